-- tools/stack_pairs.sql: gcbench-worker against PyTorch from a database that holds a
-- sweep of experiments/bench-vs-pytorch.yaml (any spec with stacks gcbench and pytorch):
--   sqlite3 -column -header gcbench.db < tools/stack_pairs.sql
-- Per model, cap and method (one row per environment): each stack's median iteration
-- time in seconds, gcbench / PyTorch, each stack's speedup over its own syncsgd, and for
-- the baseline rows the all-reduce's bound through one node's capped egress (ring: the
-- bytes gcbench's syncsgd rank sent per iteration x 8 / cap, at 1448 payload bytes per
-- 1514-byte frame that tc counts) with each stack's time over it.
SELECT p.model,
       CASE WHEN p.bw_cap_bps = 0 THEN 'none' ELSE printf('%g', p.bw_cap_bps / 1e9) END AS gbit,
       p.method || CASE WHEN p.params <> '' THEN ':' || p.params ELSE '' END AS method,
       printf('%.3f', p.t_iter_other) AS pytorch_s,
       printf('%.3f', p.t_iter) AS gcbench_s,
       printf('%.2f', p.ratio) AS gc_over_pt,
       printf('%.2f', p.speedup_other) AS pt_speedup,
       printf('%.2f', p.speedup) AS gc_speedup,
       CASE WHEN p.method = p.baseline AND p.bw_cap_bps > 0 THEN printf('%.3f', r.ring) END AS ring_s,
       CASE WHEN p.method = p.baseline AND p.bw_cap_bps > 0 THEN printf('%.2f', p.t_iter_other / r.ring) END AS pt_over_ring,
       CASE WHEN p.method = p.baseline AND p.bw_cap_bps > 0 THEN printf('%.2f', p.t_iter / r.ring) END AS gc_over_ring
FROM stack_pairs p
LEFT JOIN (SELECT model, bw_cap_bps, world_size, batch, env_id, method,
                  AVG(bytes_sent_median) * 8 * 1514 / 1448 / bw_cap_bps AS ring
           FROM run_summary WHERE stack = 'gcbench' AND bw_cap_bps > 0
           GROUP BY model, bw_cap_bps, world_size, batch, env_id, method) r
  ON r.model = p.model AND r.bw_cap_bps = p.bw_cap_bps AND r.world_size = p.world_size
 AND r.batch = p.batch AND r.env_id IS p.env_id AND r.method = p.baseline
WHERE p.stack = 'gcbench' AND p.other_stack = 'pytorch'
ORDER BY p.model, p.env_id, p.bw_cap_bps = 0, p.bw_cap_bps, p.method <> p.baseline, p.method, p.params;
