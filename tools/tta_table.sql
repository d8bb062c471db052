-- tools/tta_table.sql: the table of docs/accuracy.md from a results database: per model,
-- cap and method the iteration speedup and the time-to-target speedup (means over the
-- repeats, in brackets the range over them, each repeat against the baseline run of the
-- same repeat and sweep) and the iterations to the target. Usage:
--   sqlite3 gcbench.db < tools/tta_table.sql
.mode list
.separator " | "
WITH per AS (
  SELECT m.model, m.method, m.params, m.bw_cap_bps, m.repeat_idx,
         b.t_iter_median / m.t_iter_median AS isp,
         b.t_to_target / m.t_to_target AS tsp
  FROM run_time_to_target m JOIN run_time_to_target b
    ON b.method = b.baseline AND b.model = m.model AND b.bw_cap_bps = m.bw_cap_bps
   AND b.repeat_idx = m.repeat_idx AND b.sweep_id = m.sweep_id),
rng AS (SELECT model, method, params, bw_cap_bps, MIN(isp) AS i0, MAX(isp) AS i1,
               MIN(tsp) AS t0, MAX(tsp) AS t1 FROM per GROUP BY model, method, params, bw_cap_bps)
SELECT '| ' || s.model, s.method || CASE WHEN s.params LIKE '%ratio=0.001%' THEN ' 0.1%, no EF'
                                     WHEN s.params LIKE '%ratio=0.01%' THEN ' 1%, EF'
                                     WHEN s.method = 'powersgd' THEN ' rank 2, EF'
                                     WHEN s.params LIKE '%scaled=1%' THEN ' scaled, EF' ELSE '' END,
       CAST(s.bw_cap_bps / 1000000 AS INTEGER) || ' Mbit/s',
       printf('%.2fx (%.2f-%.2f)', s.iter_speedup, r.i0, r.i1),
       CASE WHEN s.missed > 0 THEN printf('never (%d of %d)', s.missed, s.repeats)
            ELSE printf('%.0f', s.iters_to_target) END,
       CASE WHEN s.tta_speedup IS NULL THEN '-' ELSE printf('%.2fx (%.2f-%.2f)', s.tta_speedup, r.t0, r.t1) END || ' |'
FROM time_to_target_speedup s JOIN rng r USING (model, method, params, bw_cap_bps)
ORDER BY s.model DESC, s.bw_cap_bps, CASE s.method WHEN 'syncsgd' THEN 0 WHEN 'powersgd' THEN 1 WHEN 'topk' THEN 2 ELSE 3 END, s.params DESC;
