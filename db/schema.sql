-- db/schema.sql: the gcbench results database (SQLite >= 3.37, for STRICT tables).
--
-- The file is the ordered list of migrations. Each starts with a line
--   -- @migration N
-- and is applied once, in one transaction, when PRAGMA user_version < N; then
-- user_version becomes N. Never edit a released migration: append a new one.
-- Times are Unix seconds (REAL); bandwidths are bits/s (INTEGER, 0 = unlimited);
-- durations are seconds (REAL). Versions are kept as text and as a sortable
-- integer *_num = major*1000000 + minor*1000 + patch (0 when unknown).
-- See docs/database.md for the views and the queries users run first.

-- @migration 1
CREATE TABLE environments (
	id           INTEGER PRIMARY KEY,
	host         TEXT NOT NULL,
	gpu_model    TEXT NOT NULL DEFAULT '',
	gpu_count    INTEGER NOT NULL DEFAULT 0,
	driver       TEXT NOT NULL DEFAULT '',
	driver_num   INTEGER NOT NULL DEFAULT 0,
	cuda         TEXT NOT NULL DEFAULT '',
	cuda_num     INTEGER NOT NULL DEFAULT 0,
	nccl         TEXT NOT NULL DEFAULT '',
	nccl_num     INTEGER NOT NULL DEFAULT 0,
	mpi          TEXT NOT NULL DEFAULT '',
	mpi_num      INTEGER NOT NULL DEFAULT 0,
	kernel       TEXT NOT NULL DEFAULT '',
	kernel_num   INTEGER NOT NULL DEFAULT 0,
	libnl        TEXT NOT NULL DEFAULT '',
	libnl_num    INTEGER NOT NULL DEFAULT 0,
	sqlite       TEXT NOT NULL DEFAULT '',
	sqlite_num   INTEGER NOT NULL DEFAULT 0,
	gcbench      TEXT NOT NULL DEFAULT '',
	tcp_cc       TEXT NOT NULL DEFAULT '',
	tag          TEXT NOT NULL DEFAULT '',
	first_seen   REAL NOT NULL,
	UNIQUE (host, gpu_model, gpu_count, driver, cuda, nccl, mpi, kernel, libnl, sqlite,
		gcbench, tcp_cc, tag)
) STRICT;

CREATE TABLE sweeps (
	id           INTEGER PRIMARY KEY,
	name         TEXT NOT NULL,
	spec_text    TEXT NOT NULL,
	spec_hash    TEXT NOT NULL,
	baseline     TEXT NOT NULL,
	owner_host   TEXT NOT NULL DEFAULT '',
	owner_pid    INTEGER NOT NULL DEFAULT 0,
	started      REAL NOT NULL,
	finished     REAL,
	status       TEXT NOT NULL DEFAULT 'running'
		CHECK (status IN ('running', 'done', 'failed', 'interrupted'))
) STRICT;
CREATE INDEX sweeps_hash ON sweeps (spec_hash);

CREATE TABLE runs (
	id            INTEGER PRIMARY KEY,
	sweep_id      INTEGER NOT NULL REFERENCES sweeps (id) ON DELETE CASCADE,
	point_key     TEXT NOT NULL,
	workload      TEXT NOT NULL,
	model         TEXT NOT NULL,
	method        TEXT NOT NULL,
	params        TEXT NOT NULL DEFAULT '',
	world_size    INTEGER NOT NULL CHECK (world_size > 0),
	nodes         INTEGER NOT NULL CHECK (nodes > 0),
	batch         INTEGER NOT NULL CHECK (batch > 0),
	bw_cap_bps    INTEGER NOT NULL CHECK (bw_cap_bps >= 0),
	latency_s     REAL NOT NULL DEFAULT 0,
	backend       TEXT NOT NULL,
	compute_scale REAL NOT NULL DEFAULT 1,
	iterations    INTEGER NOT NULL CHECK (iterations > 0),
	warmup        INTEGER NOT NULL CHECK (warmup >= 0),
	repeat_idx    INTEGER NOT NULL DEFAULT 0,
	status        TEXT NOT NULL DEFAULT 'running'
		CHECK (status IN ('running', 'ok', 'failed', 'interrupted', 'timeout')),
	error         TEXT NOT NULL DEFAULT '',
	stderr_tail   TEXT NOT NULL DEFAULT '',
	started       REAL NOT NULL,
	finished      REAL,
	env_id        INTEGER REFERENCES environments (id),
	network_json  TEXT NOT NULL DEFAULT '{}'
) STRICT;
CREATE INDEX runs_sweep ON runs (sweep_id, status);
CREATE INDEX runs_point ON runs (point_key);

-- the environment of every host of a run (runs.env_id is the launching host's)
CREATE TABLE run_hosts (
	run_id   INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
	node     TEXT NOT NULL,
	env_id   INTEGER NOT NULL REFERENCES environments (id),
	PRIMARY KEY (run_id, node)
) STRICT, WITHOUT ROWID;

CREATE TABLE links (
	run_id      INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
	src         TEXT NOT NULL,
	dst         TEXT NOT NULL,
	cap_bps     INTEGER NOT NULL CHECK (cap_bps >= 0),
	goodput_bps REAL,
	rtt_s       REAL,
	PRIMARY KEY (run_id, src, dst)
) STRICT, WITHOUT ROWID;

-- one row per rank per iteration: every field of struct gc_iter_rec (formats/records.h)
CREATE TABLE iterations (
	run_id      INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
	rank        INTEGER NOT NULL,
	iter        INTEGER NOT NULL,
	warmup      INTEGER NOT NULL,
	flags       INTEGER NOT NULL DEFAULT 0,
	t_forward   REAL NOT NULL,
	t_backward  REAL NOT NULL,
	t_encode    REAL NOT NULL,
	t_decode    REAL NOT NULL,
	t_comm      REAL NOT NULL,
	t_exposed   REAL NOT NULL,
	t_optimizer REAL NOT NULL,
	t_iter      REAL NOT NULL,
	t_iter_gpu  REAL NOT NULL,
	loss        REAL NOT NULL,
	bytes_sent  INTEGER NOT NULL,
	bytes_recv  INTEGER NOT NULL,
	PRIMARY KEY (run_id, rank, iter)
) STRICT, WITHOUT ROWID;

-- the performance model's prediction for a run (model/ writes these)
CREATE TABLE predictions (
	run_id        INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
	model_version TEXT NOT NULL,
	t_iter        REAL NOT NULL,
	t_compute     REAL,
	t_encode      REAL,
	t_decode      REAL,
	t_comm        REAL,
	t_exposed     REAL,
	created       REAL NOT NULL,
	PRIMARY KEY (run_id, model_version)
) STRICT, WITHOUT ROWID;

-- post-warmup samples of ok runs, one row per (run, field, value)
CREATE VIEW run_samples AS
	WITH s AS (SELECT i.* FROM iterations i JOIN runs r ON r.id = i.run_id
		   WHERE r.status = 'ok' AND i.warmup = 0)
	SELECT run_id, 'iter' AS field, t_iter AS v FROM s
	UNION ALL SELECT run_id, 'forward', t_forward FROM s
	UNION ALL SELECT run_id, 'backward', t_backward FROM s
	UNION ALL SELECT run_id, 'encode', t_encode FROM s
	UNION ALL SELECT run_id, 'decode', t_decode FROM s
	UNION ALL SELECT run_id, 'comm', t_comm FROM s
	UNION ALL SELECT run_id, 'exposed', t_exposed FROM s
	UNION ALL SELECT run_id, 'optimizer', t_optimizer FROM s
	UNION ALL SELECT run_id, 'bytes_sent', bytes_sent FROM s;

-- median ((x[(n+1)/2] + x[(n+2)/2]) / 2) and p95 (nearest rank: x[ceil(0.95 n)])
-- of every field, over all ranks and post-warmup iterations of a run
CREATE VIEW run_field_stats AS
	WITH ranked AS (
		SELECT run_id, field, v,
		       ROW_NUMBER() OVER (PARTITION BY run_id, field ORDER BY v) AS rn,
		       COUNT(*) OVER (PARTITION BY run_id, field) AS n
		FROM run_samples)
	SELECT run_id, field, n,
	       AVG(CASE WHEN rn IN ((n + 1) / 2, (n + 2) / 2) THEN v END) AS median,
	       MAX(CASE WHEN rn = (95 * n + 99) / 100 THEN v END) AS p95
	FROM ranked GROUP BY run_id, field;

CREATE VIEW run_summary AS
	SELECT r.id AS run_id, r.sweep_id, r.point_key, r.workload, r.model, r.method,
	       r.params, r.world_size, r.nodes, r.batch, r.bw_cap_bps, r.latency_s,
	       r.backend, r.compute_scale, r.repeat_idx, r.env_id, s.baseline,
	       MAX(CASE WHEN f.field = 'iter' THEN f.n END) AS samples,
	       MAX(CASE WHEN f.field = 'iter' THEN f.median END) AS t_iter_median,
	       MAX(CASE WHEN f.field = 'iter' THEN f.p95 END) AS t_iter_p95,
	       MAX(CASE WHEN f.field = 'forward' THEN f.median END) AS t_forward_median,
	       MAX(CASE WHEN f.field = 'backward' THEN f.median END) AS t_backward_median,
	       MAX(CASE WHEN f.field = 'encode' THEN f.median END) AS t_encode_median,
	       MAX(CASE WHEN f.field = 'decode' THEN f.median END) AS t_decode_median,
	       MAX(CASE WHEN f.field = 'comm' THEN f.median END) AS t_comm_median,
	       MAX(CASE WHEN f.field = 'exposed' THEN f.median END) AS t_exposed_median,
	       MAX(CASE WHEN f.field = 'optimizer' THEN f.median END) AS t_optimizer_median,
	       MAX(CASE WHEN f.field = 'bytes_sent' THEN f.median END) AS bytes_sent_median
	FROM runs r JOIN sweeps s ON s.id = r.sweep_id
	JOIN run_field_stats f ON f.run_id = r.id
	WHERE r.status = 'ok'
	GROUP BY r.id;

-- one row per point and environment, repeats aggregated (mean of the runs' medians)
CREATE VIEW point_summary AS
	SELECT workload, model, method, params, bw_cap_bps, latency_s, world_size, batch,
	       backend, compute_scale, env_id, baseline,
	       COUNT(*) AS repeats, AVG(t_iter_median) AS t_iter, AVG(t_iter_p95) AS t_iter_p95
	FROM run_summary
	GROUP BY workload, model, method, params, bw_cap_bps, latency_s, world_size, batch,
		 backend, compute_scale, env_id, baseline;

-- speedup of every method over the baseline method (the sweep's 'baseline') at the
-- same point and environment: > 1 means the method is faster
CREATE VIEW speedup AS
	SELECT m.workload, m.model, m.method, m.params, m.bw_cap_bps, m.latency_s,
	       m.world_size, m.batch, m.backend, m.compute_scale, m.env_id, m.baseline,
	       m.repeats, m.t_iter, b.t_iter AS t_iter_baseline,
	       b.t_iter / m.t_iter AS speedup
	FROM point_summary m JOIN point_summary b
	  ON b.method = m.baseline AND b.baseline = m.baseline
	 AND b.workload = m.workload AND b.model = m.model
	 AND b.bw_cap_bps = m.bw_cap_bps AND b.latency_s = m.latency_s
	 AND b.world_size = m.world_size AND b.batch = m.batch AND b.backend = m.backend
	 AND b.compute_scale = m.compute_scale AND b.env_id IS m.env_id;

CREATE VIEW compression_wins AS
	SELECT * FROM speedup WHERE method <> baseline AND speedup > 1.0;

-- @migration 2
-- Per-run statistics, computed once when a run ends ok (gc_db_run_end) instead of on
-- every query, so that the views stay fast with millions of iteration rows. Existing
-- ok runs are filled in from the migration-1 view run_field_stats (kept for ad-hoc use).
CREATE TABLE run_stats (
	run_id  INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
	field   TEXT NOT NULL,
	n       INTEGER NOT NULL,
	median  REAL,
	p95     REAL,
	PRIMARY KEY (run_id, field)
) STRICT, WITHOUT ROWID;

INSERT INTO run_stats (run_id, field, n, median, p95)
	SELECT run_id, field, n, median, p95 FROM run_field_stats;

DROP VIEW compression_wins;
DROP VIEW speedup;
DROP VIEW point_summary;
DROP VIEW run_summary;

CREATE VIEW run_summary AS
	SELECT r.id AS run_id, r.sweep_id, r.point_key, r.workload, r.model, r.method,
	       r.params, r.world_size, r.nodes, r.batch, r.bw_cap_bps, r.latency_s,
	       r.backend, r.compute_scale, r.repeat_idx, r.env_id, s.baseline,
	       MAX(CASE WHEN f.field = 'iter' THEN f.n END) AS samples,
	       MAX(CASE WHEN f.field = 'iter' THEN f.median END) AS t_iter_median,
	       MAX(CASE WHEN f.field = 'iter' THEN f.p95 END) AS t_iter_p95,
	       MAX(CASE WHEN f.field = 'forward' THEN f.median END) AS t_forward_median,
	       MAX(CASE WHEN f.field = 'backward' THEN f.median END) AS t_backward_median,
	       MAX(CASE WHEN f.field = 'encode' THEN f.median END) AS t_encode_median,
	       MAX(CASE WHEN f.field = 'decode' THEN f.median END) AS t_decode_median,
	       MAX(CASE WHEN f.field = 'comm' THEN f.median END) AS t_comm_median,
	       MAX(CASE WHEN f.field = 'exposed' THEN f.median END) AS t_exposed_median,
	       MAX(CASE WHEN f.field = 'optimizer' THEN f.median END) AS t_optimizer_median,
	       MAX(CASE WHEN f.field = 'bytes_sent' THEN f.median END) AS bytes_sent_median
	FROM runs r JOIN sweeps s ON s.id = r.sweep_id
	JOIN run_stats f ON f.run_id = r.id
	WHERE r.status = 'ok'
	GROUP BY r.id;

CREATE VIEW point_summary AS
	SELECT workload, model, method, params, bw_cap_bps, latency_s, world_size, batch,
	       backend, compute_scale, env_id, baseline,
	       COUNT(*) AS repeats, AVG(t_iter_median) AS t_iter, AVG(t_iter_p95) AS t_iter_p95
	FROM run_summary
	GROUP BY workload, model, method, params, bw_cap_bps, latency_s, world_size, batch,
		 backend, compute_scale, env_id, baseline;

CREATE VIEW speedup AS
	SELECT m.workload, m.model, m.method, m.params, m.bw_cap_bps, m.latency_s,
	       m.world_size, m.batch, m.backend, m.compute_scale, m.env_id, m.baseline,
	       m.repeats, m.t_iter, b.t_iter AS t_iter_baseline,
	       b.t_iter / m.t_iter AS speedup
	FROM point_summary m JOIN point_summary b
	  ON b.method = m.baseline AND b.baseline = m.baseline
	 AND b.workload = m.workload AND b.model = m.model
	 AND b.bw_cap_bps = m.bw_cap_bps AND b.latency_s = m.latency_s
	 AND b.world_size = m.world_size AND b.batch = m.batch AND b.backend = m.backend
	 AND b.compute_scale = m.compute_scale AND b.env_id IS m.env_id;

CREATE VIEW compression_wins AS
	SELECT * FROM speedup WHERE method <> baseline AND speedup > 1.0;

-- @migration 3
-- the performance model's fitted parameters, per environment and model version, as
-- JSON (model/predict_db.h: gc_pdb_fit_json); env_id 0 stands for runs without an
-- environment. `gcbench model` replaces the row of its version.
CREATE TABLE model_fits (
	env_id        INTEGER NOT NULL,
	model_version TEXT NOT NULL,
	runs          INTEGER NOT NULL,
	params        TEXT NOT NULL CHECK (json_valid(params)),
	created       REAL NOT NULL,
	PRIMARY KEY (env_id, model_version)
) STRICT, WITHOUT ROWID;

-- @migration 4
-- the environments a sweep ran on ("tag=T;n1=ENV_ID,n2=ENV_ID,..."): `gcbench run`
-- continues an unfinished sweep only on the same environments (docs/spec.md, Resume).
-- Sweeps from before this migration have '' and are never continued.
ALTER TABLE sweeps ADD COLUMN env_key TEXT NOT NULL DEFAULT '';

-- @migration 5
-- Accuracy: the validation records of training runs (struct gc_iter_rec with
-- GC_REC_F_EVAL: each rank's slice of the validation samples), the sweep's target,
-- and per run the iterations and training seconds until the target is first reached.
CREATE TABLE evals (
	run_id    INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
	rank      INTEGER NOT NULL,
	iter      INTEGER NOT NULL,
	val_n     INTEGER NOT NULL CHECK (val_n > 0),
	val_loss  REAL NOT NULL,
	val_acc   REAL NOT NULL CHECK (val_acc BETWEEN 0 AND 1),
	t_eval    REAL NOT NULL,
	t_train   REAL NOT NULL,   -- the rank's t_iter summed over iterations 0..iter (warmup too)
	PRIMARY KEY (run_id, rank, iter)
) STRICT, WITHOUT ROWID;

-- '' (no target), 'accuracy' (reached when val_acc >= value) or 'loss' (val_loss <= value)
ALTER TABLE sweeps ADD COLUMN target_metric TEXT NOT NULL DEFAULT ''
	CHECK (target_metric IN ('', 'accuracy', 'loss'));
ALTER TABLE sweeps ADD COLUMN target_value REAL;

-- one row per run and evaluated iteration: the ranks' slices combined (weighted by
-- their sample counts); t_train is the slowest rank's training seconds until then,
-- evaluation time excluded
CREATE VIEW run_evals AS
	SELECT run_id, iter, SUM(val_n) AS val_n,
	       SUM(val_acc * val_n) / SUM(val_n) AS val_acc,
	       SUM(val_loss * val_n) / SUM(val_n) AS val_loss,
	       MAX(t_eval) AS t_eval, MAX(t_train) AS t_train
	FROM evals GROUP BY run_id, iter;

-- per ok run of a sweep with a target: the first evaluation that reaches it
-- (iters_to_target = its iteration + 1, counting warmup; NULL when never reached),
-- the training seconds until then, and the last evaluation's accuracy and loss
CREATE VIEW run_time_to_target AS
	WITH hit AS (
		SELECT e.run_id, MIN(e.iter) AS iter
		FROM run_evals e JOIN runs r ON r.id = e.run_id JOIN sweeps s ON s.id = r.sweep_id
		WHERE (s.target_metric = 'accuracy' AND e.val_acc >= s.target_value)
		   OR (s.target_metric = 'loss' AND e.val_loss <= s.target_value)
		GROUP BY e.run_id),
	last AS (SELECT run_id, MAX(iter) AS iter FROM run_evals GROUP BY run_id)
	SELECT rs.*, s.target_metric, s.target_value,
	       h.iter + 1 AS iters_to_target, he.t_train AS t_to_target,
	       le.val_acc AS final_val_acc, le.val_loss AS final_val_loss,
	       le.iter + 1 AS iters_evaluated
	FROM run_summary rs JOIN sweeps s ON s.id = rs.sweep_id
	LEFT JOIN hit h ON h.run_id = rs.run_id
	LEFT JOIN run_evals he ON he.run_id = h.run_id AND he.iter = h.iter
	LEFT JOIN last l ON l.run_id = rs.run_id
	LEFT JOIN run_evals le ON le.run_id = l.run_id AND le.iter = l.iter
	WHERE s.target_metric <> '';

-- per point and environment (repeats aggregated): how many runs missed the target;
-- iterations and seconds to it (means over the repeats, NULL if any repeat missed)
CREATE VIEW point_time_to_target AS
	SELECT workload, model, method, params, bw_cap_bps, latency_s, world_size, batch,
	       backend, compute_scale, env_id, baseline, target_metric, target_value,
	       COUNT(*) AS repeats, SUM(iters_to_target IS NULL) AS missed,
	       CASE WHEN SUM(iters_to_target IS NULL) = 0 THEN AVG(iters_to_target) END
		       AS iters_to_target,
	       CASE WHEN SUM(iters_to_target IS NULL) = 0 THEN AVG(t_to_target) END AS t_to_target,
	       AVG(t_iter_median) AS t_iter, AVG(final_val_acc) AS final_val_acc
	FROM run_time_to_target
	GROUP BY workload, model, method, params, bw_cap_bps, latency_s, world_size, batch,
		 backend, compute_scale, env_id, baseline, target_metric, target_value;

-- every method against the baseline at the same point: the iteration speedup (median
-- iteration times, as in the speedup view) beside the time-to-target speedup (NULL when
-- either never reached the target) and the iteration ratio to the target
CREATE VIEW time_to_target_speedup AS
	SELECT m.workload, m.model, m.method, m.params, m.bw_cap_bps, m.latency_s,
	       m.world_size, m.batch, m.backend, m.compute_scale, m.env_id, m.baseline,
	       m.target_metric, m.target_value, m.repeats, m.missed,
	       m.iters_to_target, b.iters_to_target AS iters_to_target_baseline,
	       m.t_to_target, b.t_to_target AS t_to_target_baseline,
	       b.t_iter / m.t_iter AS iter_speedup,
	       b.t_to_target / m.t_to_target AS tta_speedup
	FROM point_time_to_target m JOIN point_time_to_target b
	  ON b.method = m.baseline AND b.baseline = m.baseline
	 AND b.workload = m.workload AND b.model = m.model
	 AND b.bw_cap_bps = m.bw_cap_bps AND b.latency_s = m.latency_s
	 AND b.world_size = m.world_size AND b.batch = m.batch AND b.backend = m.backend
	 AND b.compute_scale = m.compute_scale AND b.env_id IS m.env_id;

-- @migration 6
-- The delay the run's links held, read back through libnl from every used node after
-- shaping (seconds, the smallest over the nodes): 0 when the links were capped without
-- a delay, NULL when no link was shaped (unlimited bandwidth and no latency) or the run
-- is older than this migration. runs.latency_s is the delay the spec asked for.
ALTER TABLE runs ADD COLUMN latency_applied_s REAL;

-- @migration 7
-- Placement (docs/spec.md): the most ranks on one host of the run and every used host
-- with its ranks ("n1:2,n2:2,n3:1"); runs.nodes is the number of hosts used. Runs from
-- before this migration have 0 and ''.
ALTER TABLE runs ADD COLUMN ranks_per_node INTEGER NOT NULL DEFAULT 0 CHECK (ranks_per_node >= 0);
ALTER TABLE runs ADD COLUMN placement TEXT NOT NULL DEFAULT '';

-- @migration 8
-- Record headers (docs/records.md, "Header"): the JSON header of every rank's record
-- file, stored as written, and per run the program that wrote its records (rank 0's
-- "producer"; "gcbench-worker VERSION" for gcbench-worker's files). Runs ingested
-- before this migration have producer '' and no header rows.
ALTER TABLE runs ADD COLUMN producer TEXT NOT NULL DEFAULT '';
CREATE TABLE run_headers (
	run_id    INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
	rank      INTEGER NOT NULL,
	producer  TEXT NOT NULL DEFAULT '',
	header    TEXT NOT NULL CHECK (json_valid(header)),
	PRIMARY KEY (run_id, rank)
) STRICT, WITHOUT ROWID;

-- @migration 9
-- SLURM (docs/slurm.md): the job a run ran in, its partition and its node list as
-- SLURM wrote them ("n[1-4]"); '' for runs outside SLURM and runs older than this
-- migration. On the run, not the environment: a sweep continued in a later job keeps
-- its environments (and so its resume key).
ALTER TABLE runs ADD COLUMN slurm_job TEXT NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN slurm_partition TEXT NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN slurm_nodes TEXT NOT NULL DEFAULT '';

-- @migration 10
-- Stacks (docs/spec.md, Your own program): a `workload: command` spec with `stacks:`
-- runs every point once per named program ('pytorch', 'gcbench'); runs.stack holds the
-- name ('' for every other run). The summary views carry it and compare a method with
-- the baseline of its own stack; stack_pairs puts the stacks side by side.
ALTER TABLE runs ADD COLUMN stack TEXT NOT NULL DEFAULT '';

DROP VIEW compression_wins;
DROP VIEW speedup;
DROP VIEW point_summary;
DROP VIEW run_summary;

CREATE VIEW run_summary AS
	SELECT r.id AS run_id, r.sweep_id, r.point_key, r.workload, r.model, r.method,
	       r.params, r.world_size, r.nodes, r.batch, r.bw_cap_bps, r.latency_s,
	       r.backend, r.compute_scale, r.repeat_idx, r.env_id, s.baseline,
	       MAX(CASE WHEN f.field = 'iter' THEN f.n END) AS samples,
	       MAX(CASE WHEN f.field = 'iter' THEN f.median END) AS t_iter_median,
	       MAX(CASE WHEN f.field = 'iter' THEN f.p95 END) AS t_iter_p95,
	       MAX(CASE WHEN f.field = 'forward' THEN f.median END) AS t_forward_median,
	       MAX(CASE WHEN f.field = 'backward' THEN f.median END) AS t_backward_median,
	       MAX(CASE WHEN f.field = 'encode' THEN f.median END) AS t_encode_median,
	       MAX(CASE WHEN f.field = 'decode' THEN f.median END) AS t_decode_median,
	       MAX(CASE WHEN f.field = 'comm' THEN f.median END) AS t_comm_median,
	       MAX(CASE WHEN f.field = 'exposed' THEN f.median END) AS t_exposed_median,
	       MAX(CASE WHEN f.field = 'optimizer' THEN f.median END) AS t_optimizer_median,
	       MAX(CASE WHEN f.field = 'bytes_sent' THEN f.median END) AS bytes_sent_median,
	       r.stack, r.producer
	FROM runs r JOIN sweeps s ON s.id = r.sweep_id
	JOIN run_stats f ON f.run_id = r.id
	WHERE r.status = 'ok'
	GROUP BY r.id;

CREATE VIEW point_summary AS
	SELECT workload, model, method, params, bw_cap_bps, latency_s, world_size, batch,
	       backend, compute_scale, env_id, baseline,
	       COUNT(*) AS repeats, AVG(t_iter_median) AS t_iter, AVG(t_iter_p95) AS t_iter_p95,
	       stack
	FROM run_summary
	GROUP BY workload, model, method, params, bw_cap_bps, latency_s, world_size, batch,
		 backend, compute_scale, env_id, baseline, stack;

CREATE VIEW speedup AS
	SELECT m.workload, m.model, m.method, m.params, m.bw_cap_bps, m.latency_s,
	       m.world_size, m.batch, m.backend, m.compute_scale, m.env_id, m.baseline,
	       m.repeats, m.t_iter, b.t_iter AS t_iter_baseline,
	       b.t_iter / m.t_iter AS speedup, m.stack
	FROM point_summary m JOIN point_summary b
	  ON b.method = m.baseline AND b.baseline = m.baseline AND b.stack = m.stack
	 AND b.workload = m.workload AND b.model = m.model
	 AND b.bw_cap_bps = m.bw_cap_bps AND b.latency_s = m.latency_s
	 AND b.world_size = m.world_size AND b.batch = m.batch AND b.backend = m.backend
	 AND b.compute_scale = m.compute_scale AND b.env_id IS m.env_id;

CREATE VIEW compression_wins AS
	SELECT * FROM speedup WHERE method <> baseline AND speedup > 1.0;

-- every pair of stacks at the same point, method and environment, once, the stacks in
-- name order: ratio = t_iter / t_iter_other (below 1: `stack` is faster), and each
-- stack's speedup over its own baseline
CREATE VIEW stack_pairs AS
	SELECT a.workload, a.model, a.method, a.params, a.bw_cap_bps, a.latency_s,
	       a.world_size, a.batch, a.backend, a.compute_scale, a.env_id, a.baseline,
	       a.stack, b.stack AS other_stack, a.t_iter, b.t_iter AS t_iter_other,
	       a.t_iter / b.t_iter AS ratio,
	       sa.speedup AS speedup, sb.speedup AS speedup_other
	FROM point_summary a JOIN point_summary b
	  ON a.stack < b.stack AND b.method = a.method AND b.params = a.params
	 AND b.baseline = a.baseline AND b.workload = a.workload AND b.model = a.model
	 AND b.bw_cap_bps = a.bw_cap_bps AND b.latency_s = a.latency_s
	 AND b.world_size = a.world_size AND b.batch = a.batch AND b.backend = a.backend
	 AND b.compute_scale = a.compute_scale AND b.env_id IS a.env_id
	LEFT JOIN speedup sa ON sa.stack = a.stack AND sa.method = a.method
	 AND sa.params = a.params AND sa.baseline = a.baseline AND sa.workload = a.workload
	 AND sa.model = a.model AND sa.bw_cap_bps = a.bw_cap_bps AND sa.latency_s = a.latency_s
	 AND sa.world_size = a.world_size AND sa.batch = a.batch AND sa.backend = a.backend
	 AND sa.compute_scale = a.compute_scale AND sa.env_id IS a.env_id
	LEFT JOIN speedup sb ON sb.stack = b.stack AND sb.method = b.method
	 AND sb.params = b.params AND sb.baseline = b.baseline AND sb.workload = b.workload
	 AND sb.model = b.model AND sb.bw_cap_bps = b.bw_cap_bps AND sb.latency_s = b.latency_s
	 AND sb.world_size = b.world_size AND sb.batch = b.batch AND sb.backend = b.backend
	 AND sb.compute_scale = b.compute_scale AND sb.env_id IS b.env_id;

-- @migration 11
-- Several baselines (`baseline: [syncsgd, bf16]`): sweeps.baselines is the JSON array of
-- every baseline of the spec, in order ('[]' for a single one, which sweeps.baseline
-- holds; with a list, sweeps.baseline is its first). speedup carries one row per
-- (method, baseline): the row of sweeps.baseline as before, then one per other listed
-- baseline, whose name is in the `baseline` column (sweep_baseline: the first one;
-- readers that want one speedup per method filter baseline = sweep_baseline). The
-- summary views carry baselines so that points of sweeps with different lists are
-- not merged.
ALTER TABLE sweeps ADD COLUMN baselines TEXT NOT NULL DEFAULT '[]';

DROP VIEW compression_wins;
DROP VIEW speedup;
DROP VIEW point_summary;
DROP VIEW run_summary;

CREATE VIEW run_summary AS
	SELECT r.id AS run_id, r.sweep_id, r.point_key, r.workload, r.model, r.method,
	       r.params, r.world_size, r.nodes, r.batch, r.bw_cap_bps, r.latency_s,
	       r.backend, r.compute_scale, r.repeat_idx, r.env_id, s.baseline,
	       MAX(CASE WHEN f.field = 'iter' THEN f.n END) AS samples,
	       MAX(CASE WHEN f.field = 'iter' THEN f.median END) AS t_iter_median,
	       MAX(CASE WHEN f.field = 'iter' THEN f.p95 END) AS t_iter_p95,
	       MAX(CASE WHEN f.field = 'forward' THEN f.median END) AS t_forward_median,
	       MAX(CASE WHEN f.field = 'backward' THEN f.median END) AS t_backward_median,
	       MAX(CASE WHEN f.field = 'encode' THEN f.median END) AS t_encode_median,
	       MAX(CASE WHEN f.field = 'decode' THEN f.median END) AS t_decode_median,
	       MAX(CASE WHEN f.field = 'comm' THEN f.median END) AS t_comm_median,
	       MAX(CASE WHEN f.field = 'exposed' THEN f.median END) AS t_exposed_median,
	       MAX(CASE WHEN f.field = 'optimizer' THEN f.median END) AS t_optimizer_median,
	       MAX(CASE WHEN f.field = 'bytes_sent' THEN f.median END) AS bytes_sent_median,
	       r.stack, r.producer, s.baselines
	FROM runs r JOIN sweeps s ON s.id = r.sweep_id
	JOIN run_stats f ON f.run_id = r.id
	WHERE r.status = 'ok'
	GROUP BY r.id;

CREATE VIEW point_summary AS
	SELECT workload, model, method, params, bw_cap_bps, latency_s, world_size, batch,
	       backend, compute_scale, env_id, baseline,
	       COUNT(*) AS repeats, AVG(t_iter_median) AS t_iter, AVG(t_iter_p95) AS t_iter_p95,
	       stack, baselines
	FROM run_summary
	GROUP BY workload, model, method, params, bw_cap_bps, latency_s, world_size, batch,
		 backend, compute_scale, env_id, baseline, stack, baselines;

CREATE VIEW speedup AS
	WITH mb AS (
		SELECT p.*, p.baseline AS vs FROM point_summary p
		UNION ALL
		SELECT p.*, j.value AS vs FROM point_summary p, json_each(p.baselines) j
		WHERE j.value <> p.baseline)
	SELECT m.workload, m.model, m.method, m.params, m.bw_cap_bps, m.latency_s,
	       m.world_size, m.batch, m.backend, m.compute_scale, m.env_id, m.vs AS baseline,
	       m.repeats, m.t_iter, b.t_iter AS t_iter_baseline,
	       b.t_iter / m.t_iter AS speedup, m.stack, m.baseline AS sweep_baseline
	FROM mb m JOIN point_summary b
	  ON b.method = m.vs AND b.baseline = m.baseline AND b.baselines = m.baselines
	 AND b.stack = m.stack AND b.workload = m.workload AND b.model = m.model
	 AND b.bw_cap_bps = m.bw_cap_bps AND b.latency_s = m.latency_s
	 AND b.world_size = m.world_size AND b.batch = m.batch AND b.backend = m.backend
	 AND b.compute_scale = m.compute_scale AND b.env_id IS m.env_id;

CREATE VIEW compression_wins AS
	SELECT * FROM speedup WHERE method <> baseline AND speedup > 1.0;

-- @migration 12
-- Where a point's time goes (docs/database.md, "Overhead"): the seconds each phase of
-- a run took, as `gcbench run` timed them on the controller. Per point: reap (ending
-- what an earlier run left, at a sweep's first point and after a failure), prepare
-- (the run's folder on each used node), shape (caps and delays set and read back),
-- calibrate (the probe, 0 when an earlier run's calibration was reused), launch
-- (mpirun: the ranks' start, their iterations and their end), collect (the record
-- files fetched), ingest (the records into this database), cleanup (links restored,
-- folders removed), record (the run's own rows). The first run a `gcbench run` process
-- starts also carries that process's setup, before the run's start: setup_lock (the
-- host locks), setup_provision, setup_restore (links a killed sweep left capped),
-- setup_check (the provisioning check, with the first ssh connection to each node),
-- setup_env (each node's environment). Runs older than this migration have no rows.
CREATE TABLE run_phases (
	run_id   INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
	phase    TEXT NOT NULL,
	seconds  REAL NOT NULL CHECK (seconds >= 0),
	PRIMARY KEY (run_id, phase)
) STRICT, WITHOUT ROWID;

-- The run whose probe measured this run's links rows: the run itself when it probed,
-- an earlier run of the same cap, delay and nodes when its calibration was reused (the
-- links rows are copied from it), NULL when nothing was calibrated or the run is older
-- than this migration.
ALTER TABLE runs ADD COLUMN calibration_run INTEGER;

-- A finished run's time outside its iterations: overhead_s = finished - started -
-- iter_s, iter_s the sum of rank 0's t_iter (warm-up iterations included: the point
-- runs them too); ranks_s = launch - iter_s (mpirun's start and end of the ranks, and
-- each rank's setup). Each phase of run_phases in its own column (NULL when not timed).
CREATE VIEW run_overhead AS
	SELECT r.id AS run_id, r.sweep_id, r.status, r.finished - r.started AS wall_s,
	       i.iter_s, r.finished - r.started - coalesce(i.iter_s, 0) AS overhead_s,
	       MAX(CASE WHEN p.phase = 'reap' THEN p.seconds END) AS reap_s,
	       MAX(CASE WHEN p.phase = 'prepare' THEN p.seconds END) AS prepare_s,
	       MAX(CASE WHEN p.phase = 'shape' THEN p.seconds END) AS shape_s,
	       MAX(CASE WHEN p.phase = 'calibrate' THEN p.seconds END) AS calibrate_s,
	       MAX(CASE WHEN p.phase = 'launch' THEN p.seconds END) - coalesce(i.iter_s, 0)
		 AS ranks_s,
	       MAX(CASE WHEN p.phase = 'collect' THEN p.seconds END) AS collect_s,
	       MAX(CASE WHEN p.phase = 'ingest' THEN p.seconds END) AS ingest_s,
	       MAX(CASE WHEN p.phase = 'cleanup' THEN p.seconds END) AS cleanup_s,
	       MAX(CASE WHEN p.phase = 'record' THEN p.seconds END) AS record_s,
	       SUM(CASE WHEN p.phase LIKE 'setup%' THEN p.seconds END) AS setup_s
	FROM runs r
	LEFT JOIN (SELECT run_id, SUM(t_iter) AS iter_s FROM iterations WHERE rank = 0
		   GROUP BY run_id) i ON i.run_id = r.id
	LEFT JOIN run_phases p ON p.run_id = r.id
	WHERE r.finished IS NOT NULL
	GROUP BY r.id;

-- @migration 13
-- The network a run's point had (docs/database.md, "Networks"): run_network.network is
-- 'uniform', or the point key's network axes as text joined by '+': 'trace:NAME' (bandwidth:
-- [trace:FILE]), 'slow HOST:F,...' (slow:), 'uplink 2:1' or 'uplink 1gbit' (uplink:,
-- oversubscription:), 'bg N[,onoff:ON/OFF][,tool:T][,pairs:...]' (background:), in that
-- order; e.g. 'slow n3:0.5+uplink 2:1'. It is read from runs.point_key, so runs older than
-- this migration have it too. run_summary carries it, and point_summary, speedup,
-- compression_wins and the time-to-target and stack views group and pair by it: a point
-- with a slow host is compared with the baseline of the same network only, never merged
-- with the uniform point of the same cap.
CREATE VIEW run_network AS
	SELECT id AS run_id,
	       COALESCE(NULLIF(trim(
		 COALESCE('trace:' || substr(tr, 1, instr(tr, '@') - 1) || '+', '') ||
		 COALESCE('slow ' || substr(sl, 1, instr(sl, ';') - 1) || '+', '') ||
		 COALESCE('uplink ' || CASE
			WHEN instr(up, ':') > 0 AND instr(up, ':') < instr(up, ';')
				THEN substr(up, 1, instr(up, ';') - 1)
			WHEN CAST(substr(up, 1, instr(up, ';') - 1) AS INTEGER) % 1000000000 = 0
				THEN (CAST(substr(up, 1, instr(up, ';') - 1) AS INTEGER) / 1000000000) || 'gbit'
			WHEN CAST(substr(up, 1, instr(up, ';') - 1) AS INTEGER) % 1000000 = 0
				THEN (CAST(substr(up, 1, instr(up, ';') - 1) AS INTEGER) / 1000000) || 'mbit'
			WHEN CAST(substr(up, 1, instr(up, ';') - 1) AS INTEGER) % 1000 = 0
				THEN (CAST(substr(up, 1, instr(up, ';') - 1) AS INTEGER) / 1000) || 'kbit'
			ELSE substr(up, 1, instr(up, ';') - 1) || 'bit' END || '+', '') ||
		 COALESCE('bg ' || substr(bg, 1, instr(bg, ';') - 1), ''), '+'), ''), 'uniform')
		 AS network
	FROM (SELECT id,
		     CASE WHEN instr(pk, ';bw=trace:') > 0
			  THEN substr(pk, instr(pk, ';bw=trace:') + 10) END AS tr,
		     CASE WHEN instr(pk, ';slow=') > 0 THEN substr(pk, instr(pk, ';slow=') + 6) END AS sl,
		     CASE WHEN instr(pk, ';uplink=') > 0
			  THEN substr(pk, instr(pk, ';uplink=') + 8) END AS up,
		     CASE WHEN instr(pk, ';bg=flows:') > 0
			  THEN substr(pk, instr(pk, ';bg=flows:') + 10) END AS bg
	      FROM (SELECT id, point_key || ';' AS pk FROM runs));

DROP VIEW stack_pairs;
DROP VIEW time_to_target_speedup;
DROP VIEW point_time_to_target;
DROP VIEW run_time_to_target;
DROP VIEW compression_wins;
DROP VIEW speedup;
DROP VIEW point_summary;
DROP VIEW run_summary;

CREATE VIEW run_summary AS
	SELECT r.id AS run_id, r.sweep_id, r.point_key, r.workload, r.model, r.method,
	       r.params, r.world_size, r.nodes, r.batch, r.bw_cap_bps, r.latency_s,
	       r.backend, r.compute_scale, r.repeat_idx, r.env_id, s.baseline,
	       MAX(CASE WHEN f.field = 'iter' THEN f.n END) AS samples,
	       MAX(CASE WHEN f.field = 'iter' THEN f.median END) AS t_iter_median,
	       MAX(CASE WHEN f.field = 'iter' THEN f.p95 END) AS t_iter_p95,
	       MAX(CASE WHEN f.field = 'forward' THEN f.median END) AS t_forward_median,
	       MAX(CASE WHEN f.field = 'backward' THEN f.median END) AS t_backward_median,
	       MAX(CASE WHEN f.field = 'encode' THEN f.median END) AS t_encode_median,
	       MAX(CASE WHEN f.field = 'decode' THEN f.median END) AS t_decode_median,
	       MAX(CASE WHEN f.field = 'comm' THEN f.median END) AS t_comm_median,
	       MAX(CASE WHEN f.field = 'exposed' THEN f.median END) AS t_exposed_median,
	       MAX(CASE WHEN f.field = 'optimizer' THEN f.median END) AS t_optimizer_median,
	       MAX(CASE WHEN f.field = 'bytes_sent' THEN f.median END) AS bytes_sent_median,
	       r.stack, r.producer, s.baselines, n.network
	FROM runs r JOIN sweeps s ON s.id = r.sweep_id
	JOIN run_network n ON n.run_id = r.id
	JOIN run_stats f ON f.run_id = r.id
	WHERE r.status = 'ok'
	GROUP BY r.id;

CREATE VIEW point_summary AS
	SELECT workload, model, method, params, bw_cap_bps, latency_s, world_size, batch,
	       backend, compute_scale, env_id, baseline,
	       COUNT(*) AS repeats, AVG(t_iter_median) AS t_iter, AVG(t_iter_p95) AS t_iter_p95,
	       stack, baselines, network
	FROM run_summary
	GROUP BY workload, model, method, params, bw_cap_bps, latency_s, world_size, batch,
		 backend, compute_scale, env_id, baseline, stack, baselines, network;

CREATE VIEW speedup AS
	WITH mb AS (
		SELECT p.*, p.baseline AS vs FROM point_summary p
		UNION ALL
		SELECT p.*, j.value AS vs FROM point_summary p, json_each(p.baselines) j
		WHERE j.value <> p.baseline)
	SELECT m.workload, m.model, m.method, m.params, m.bw_cap_bps, m.latency_s,
	       m.world_size, m.batch, m.backend, m.compute_scale, m.env_id, m.vs AS baseline,
	       m.repeats, m.t_iter, b.t_iter AS t_iter_baseline,
	       b.t_iter / m.t_iter AS speedup, m.stack, m.baseline AS sweep_baseline, m.network
	FROM mb m JOIN point_summary b
	  ON b.method = m.vs AND b.baseline = m.baseline AND b.baselines = m.baselines
	 AND b.stack = m.stack AND b.workload = m.workload AND b.model = m.model
	 AND b.bw_cap_bps = m.bw_cap_bps AND b.latency_s = m.latency_s
	 AND b.world_size = m.world_size AND b.batch = m.batch AND b.backend = m.backend
	 AND b.compute_scale = m.compute_scale AND b.env_id IS m.env_id
	 AND b.network = m.network;

CREATE VIEW compression_wins AS
	SELECT * FROM speedup WHERE method <> baseline AND speedup > 1.0;

CREATE VIEW run_time_to_target AS
	WITH hit AS (
		SELECT e.run_id, MIN(e.iter) AS iter
		FROM run_evals e JOIN runs r ON r.id = e.run_id JOIN sweeps s ON s.id = r.sweep_id
		WHERE (s.target_metric = 'accuracy' AND e.val_acc >= s.target_value)
		   OR (s.target_metric = 'loss' AND e.val_loss <= s.target_value)
		GROUP BY e.run_id),
	last AS (SELECT run_id, MAX(iter) AS iter FROM run_evals GROUP BY run_id)
	SELECT rs.*, s.target_metric, s.target_value,
	       h.iter + 1 AS iters_to_target, he.t_train AS t_to_target,
	       le.val_acc AS final_val_acc, le.val_loss AS final_val_loss,
	       le.iter + 1 AS iters_evaluated
	FROM run_summary rs JOIN sweeps s ON s.id = rs.sweep_id
	LEFT JOIN hit h ON h.run_id = rs.run_id
	LEFT JOIN run_evals he ON he.run_id = h.run_id AND he.iter = h.iter
	LEFT JOIN last l ON l.run_id = rs.run_id
	LEFT JOIN run_evals le ON le.run_id = l.run_id AND le.iter = l.iter
	WHERE s.target_metric <> '';

CREATE VIEW point_time_to_target AS
	SELECT workload, model, method, params, bw_cap_bps, latency_s, world_size, batch,
	       backend, compute_scale, env_id, baseline, target_metric, target_value,
	       COUNT(*) AS repeats, SUM(iters_to_target IS NULL) AS missed,
	       CASE WHEN SUM(iters_to_target IS NULL) = 0 THEN AVG(iters_to_target) END
		       AS iters_to_target,
	       CASE WHEN SUM(iters_to_target IS NULL) = 0 THEN AVG(t_to_target) END AS t_to_target,
	       AVG(t_iter_median) AS t_iter, AVG(final_val_acc) AS final_val_acc, network
	FROM run_time_to_target
	GROUP BY workload, model, method, params, bw_cap_bps, latency_s, world_size, batch,
		 backend, compute_scale, env_id, baseline, target_metric, target_value, network;

CREATE VIEW time_to_target_speedup AS
	SELECT m.workload, m.model, m.method, m.params, m.bw_cap_bps, m.latency_s,
	       m.world_size, m.batch, m.backend, m.compute_scale, m.env_id, m.baseline,
	       m.target_metric, m.target_value, m.repeats, m.missed,
	       m.iters_to_target, b.iters_to_target AS iters_to_target_baseline,
	       m.t_to_target, b.t_to_target AS t_to_target_baseline,
	       b.t_iter / m.t_iter AS iter_speedup,
	       b.t_to_target / m.t_to_target AS tta_speedup, m.network
	FROM point_time_to_target m JOIN point_time_to_target b
	  ON b.method = m.baseline AND b.baseline = m.baseline
	 AND b.workload = m.workload AND b.model = m.model
	 AND b.bw_cap_bps = m.bw_cap_bps AND b.latency_s = m.latency_s
	 AND b.world_size = m.world_size AND b.batch = m.batch AND b.backend = m.backend
	 AND b.compute_scale = m.compute_scale AND b.env_id IS m.env_id
	 AND b.network = m.network;

CREATE VIEW stack_pairs AS
	SELECT a.workload, a.model, a.method, a.params, a.bw_cap_bps, a.latency_s,
	       a.world_size, a.batch, a.backend, a.compute_scale, a.env_id, a.baseline,
	       a.stack, b.stack AS other_stack, a.t_iter, b.t_iter AS t_iter_other,
	       a.t_iter / b.t_iter AS ratio,
	       sa.speedup AS speedup, sb.speedup AS speedup_other, a.network
	FROM point_summary a JOIN point_summary b
	  ON a.stack < b.stack AND b.method = a.method AND b.params = a.params
	 AND b.baseline = a.baseline AND b.workload = a.workload AND b.model = a.model
	 AND b.bw_cap_bps = a.bw_cap_bps AND b.latency_s = a.latency_s
	 AND b.world_size = a.world_size AND b.batch = a.batch AND b.backend = a.backend
	 AND b.compute_scale = a.compute_scale AND b.env_id IS a.env_id
	 AND b.network = a.network
	LEFT JOIN speedup sa ON sa.stack = a.stack AND sa.method = a.method
	 AND sa.params = a.params AND sa.baseline = a.baseline AND sa.workload = a.workload
	 AND sa.model = a.model AND sa.bw_cap_bps = a.bw_cap_bps AND sa.latency_s = a.latency_s
	 AND sa.world_size = a.world_size AND sa.batch = a.batch AND sa.backend = a.backend
	 AND sa.compute_scale = a.compute_scale AND sa.env_id IS a.env_id
	 AND sa.network = a.network
	LEFT JOIN speedup sb ON sb.stack = b.stack AND sb.method = b.method
	 AND sb.params = b.params AND sb.baseline = b.baseline AND sb.workload = b.workload
	 AND sb.model = b.model AND sb.bw_cap_bps = b.bw_cap_bps AND sb.latency_s = b.latency_s
	 AND sb.world_size = b.world_size AND sb.batch = b.batch AND sb.backend = b.backend
	 AND sb.compute_scale = b.compute_scale AND sb.env_id IS b.env_id
	 AND sb.network = b.network;
