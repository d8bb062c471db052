/* worker/wk_main.c: gcbench-worker's main: validate the command line (before MPI),
 * bootstrap MPI (MPI_THREAD_SERIALIZED), run, then write the record file. */
#include "wk_run.h"

#include <cblas.h>
#include <mpi.h>
#include <omp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "json.h"
#include "log.h"
#include "strutil.h"
#include "timing.h"
#include "formats/arch.h"
#include "wk_selftest.h"

#ifndef GC_VERSION
#define GC_VERSION "0.1"
#endif

static void read_line(const char *path, char *buf, size_t n)
{
	FILE *f = fopen(path, "r");
	buf[0] = 0;
	if (f) {
		if (!fgets(buf, (int)n, f))
			buf[0] = 0;
		fclose(f);
	}
	buf[strcspn(buf, "\n")] = 0;
}

static void json_env(gc_json *j, const char *key, const char *var)
{
	gc_json_str_field(j, key, getenv(var));
}

static void header_network(gc_json *j, const gc_wk_cfg *c, const gc_wk_comm *m)
{
	char cc[64];
	gc_json_key(j, "network");
	gc_json_obj_open(j);
	gc_json_str_field(j, "iface", c->iface[0] ? c->iface : NULL);
	json_env(j, "pml", "OMPI_MCA_pml");
	json_env(j, "btl", "OMPI_MCA_btl");
	json_env(j, "btl_tcp_if_include", "OMPI_MCA_btl_tcp_if_include");
	json_env(j, "mpi_yield_when_idle", "OMPI_MCA_mpi_yield_when_idle");
	json_env(j, "coll_tuned_use_dynamic_rules", "OMPI_MCA_coll_tuned_use_dynamic_rules");
	gc_json_str_field(j, "allreduce_algorithm", m->algo_allreduce);
	gc_json_str_field(j, "allgather_algorithm", m->algo_allgather);
	json_env(j, "NCCL_IB_DISABLE", "NCCL_IB_DISABLE");
	json_env(j, "NCCL_SOCKET_IFNAME", "NCCL_SOCKET_IFNAME");
	json_env(j, "NCCL_P2P_DISABLE", "NCCL_P2P_DISABLE");
	json_env(j, "NCCL_SHM_DISABLE", "NCCL_SHM_DISABLE");
	read_line("/proc/sys/net/ipv4/tcp_congestion_control", cc, sizeof(cc));
	gc_json_str_field(j, "tcp_congestion_control", cc[0] ? cc : NULL);
	gc_json_obj_close(j);
}

/* "n0,n1,..." in exchange order, for "bucket_numel" */
static void bucket_list(gc_buf *b, const gc_wk_result *r)
{
	for (size_t i = 0; r->bucket_numel && i < r->nbuckets; i++)
		gc_buf_addf(b, "%s%zu", i ? "," : "", r->bucket_numel[i]);
}

static void header_run(gc_json *j, const gc_wk_cfg *c, const gc_wk_comm *m,
		       const gc_wk_result *r, const char *buckets)
{
	char host[256] = "";
	gethostname(host, sizeof(host) - 1);
	gc_json_str_field(j, "format", "gcbench-worker");
	gc_json_str_field(j, "method", gc_method_name(c->params.method));
	gc_json_str_field(j, "params", c->param_text);
	gc_json_str_field(j, "workload", c->workload);
	gc_json_str_field(j, "model", c->model);
	gc_json_int_field(j, "numel", (long long)r->numel);
	gc_json_int_field(j, "tensors", (long long)r->ntensors);
	gc_json_int_field(j, "buckets", (long long)r->nbuckets);
	gc_json_str_field(j, "bucket_numel", buckets);
	gc_json_num_field(j, "bucket_first_mb", c->bucket_first_mb);
	gc_json_num_field(j, "bucket_mb", c->bucket_mb);
	gc_json_int_field(j, "world", m->world);
	gc_json_int_field(j, "rank", m->rank);
	gc_json_str_field(j, "host", host);
	gc_json_str_field(j, "backend", m->name);
	gc_json_str_field(j, "mpi_coll", c->blocking ? "blocking" : "nb");
	gc_json_int_field(j, "overlap", c->overlap);
	gc_json_int_field(j, "batch", c->batch);
	gc_json_num_field(j, "compute_scale", c->compute_scale);
	gc_json_num_field(j, "device_flops", c->device_flops > 0 ? c->device_flops : GC_V100_FLOPS);
	gc_json_str_field(j, "profile", c->profile[0] ? c->profile : NULL);
	gc_json_num_field(j, "t_backward_model", r->t_backward_model);
	gc_json_int_field(j, "iters", c->iters);
	gc_json_int_field(j, "warmup", c->warmup);
	gc_json_num_field(j, "lr", c->lr);
	gc_json_str_field(j, "data", c->kind == GC_WK_TRAIN ? r->data : NULL);
	gc_json_int_field(j, "eval_every", c->eval_every);
	gc_json_num_field(j, "deadline", c->deadline);
	gc_json_int_field(j, "threads", r->threads ? r->threads : c->threads);
}

static void header_tail(gc_json *j, const gc_wk_comm *m, const gc_wk_result *r)
{
	char hex[32];

	gc_json_key(j, "versions");
	gc_json_obj_open(j);
	gc_json_str_field(j, "mpi", m->lib_version);
	gc_json_str_field(j, "nccl", m->nccl_version[0] ? m->nccl_version : NULL);
	gc_json_str_field(j, "gcbench", GC_VERSION);
	gc_json_obj_close(j);
	snprintf(hex, sizeof(hex), "%016llx", (unsigned long long)r->sum_grad);
	gc_json_str_field(j, "checksum_grad", hex);
	snprintf(hex, sizeof(hex), "%016llx", (unsigned long long)r->sum_param);
	gc_json_str_field(j, "checksum_param", hex);
	gc_json_num_field(j, "final_loss", r->final_loss);
}

/* The record file's header: one JSON object (malloc'ed), NULL when out of memory. */
static char *build_header(const gc_wk_cfg *c, const gc_wk_comm *m, const gc_wk_result *r)
{
	gc_buf b = GC_BUF_INIT, buckets = GC_BUF_INIT;
	gc_json j;
	gc_rc rc;

	bucket_list(&buckets, r);
	gc_json_init(&j, &b, 0);
	gc_json_obj_open(&j);
	header_run(&j, c, m, r, gc_buf_str(&buckets));
	header_network(&j, c, m);
	header_tail(&j, m, r);
	gc_json_obj_close(&j);
	rc = gc_buf_rc(&buckets) ? GC_E_NOMEM : gc_json_finish(&j);
	gc_buf_release(&buckets);
	if (rc) {
		gc_buf_release(&b);
		return NULL;
	}
	return gc_buf_take(&b);
}

static int dump(const char *path)
{
	gc_rec_file f;
	gc_err e = { "" };
	if (gc_rec_read(path, &f, &e)) {
		gc_error("cannot dump '%s': %s", path, e.msg);
		return GC_EXIT_FAILED;
	}
	printf("header %s\n", f.header);
	printf("complete %d records %zu\n", f.complete, f.n);
	printf("# rank iter warmup t_forward t_backward t_encode t_decode t_comm t_exposed "
	       "t_optimizer t_iter t_iter_gpu loss bytes_sent bytes_recv [val_loss val_acc "
	       "t_eval val_n]\n");
	for (size_t i = 0; i < f.n; i++) {
		const struct gc_iter_rec *r = &f.recs[i];
		printf("%u %u %u %.9f %.9f %.9f %.9f %.9f %.9f %.9f %.9f %.9f %.9g %llu %llu",
		       r->rank, r->iter, r->warmup, r->t_forward, r->t_backward, r->t_encode,
		       r->t_decode, r->t_comm, r->t_exposed, r->t_optimizer, r->t_iter,
		       r->t_iter_gpu, r->loss, (unsigned long long)r->bytes_sent,
		       (unsigned long long)r->bytes_recv);
		if (r->flags & GC_REC_F_EVAL)
			printf(" %.9g %.6f %.6f %u\n", r->val_loss, (double)r->val_acc,
			       (double)r->t_eval, GC_REC_EVAL_N(r->flags));
		else
			printf("\n");
	}
	gc_rec_file_release(&f);
	return 0;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* Time MPI_Allreduce (coll/tuned) and MPI_Iallreduce + wait (coll/libnbc) of n floats;
 * per repetition the slowest rank counts. Rank 0 prints the medians. */
static int bench_allreduce(const gc_wk_cfg *c, size_t n, int rank)
{
	int reps = c->iters, warm = c->warmup > 0 ? c->warmup : 1;
	float *buf = malloc(n * sizeof(float)), *out = malloc(n * sizeof(float));
	double *t[2] = { calloc((size_t)reps, sizeof(double)), calloc((size_t)reps, sizeof(double)) };
	if (!buf || !out || !t[0] || !t[1]) {
		gc_error("out of memory for a %zu-float all-reduce benchmark", n);
		return GC_EXIT_FAILED;
	}
	gc_wk_fill_random(buf, n, 5 + (uint64_t)rank, 1.0f);
	memset(out, 0, n * sizeof(float));
	for (int k = 0; k < 2; k++)
		for (int i = -warm; i < reps; i++) {
			MPI_Request q;
			double t0, dt;
			MPI_Barrier(MPI_COMM_WORLD);
			t0 = MPI_Wtime();
			if (k == 0)
				MPI_Allreduce(buf, out, (int)n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
			else {
				MPI_Iallreduce(buf, out, (int)n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, &q);
				MPI_Wait(&q, MPI_STATUS_IGNORE);
			}
			dt = MPI_Wtime() - t0;
			MPI_Allreduce(MPI_IN_PLACE, &dt, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
			if (i >= 0)
				t[k][i] = dt;
		}
	qsort(t[0], (size_t)reps, sizeof(double), cmp_d);
	qsort(t[1], (size_t)reps, sizeof(double), cmp_d);
	if (rank == 0)
		printf("bench_allreduce floats %zu bytes %zu reps %d allreduce_s %.6f iallreduce_s %.6f\n",
		       n, n * 4, reps, t[0][reps / 2], t[1][reps / 2]);
	free(buf), free(out), free(t[0]), free(t[1]);
	return 0;
}

/* --print-model: the model's tensors in the csv format gc_arch_parse_csv reads, with
 * the forward FLOPs column when the model has FLOPs (built-ins), so that replaying the
 * printed file computes as replaying the model. 0 done, 2 unknown or unreadable model. */
static int print_model(const char *model)
{
	gc_arch a;
	gc_err e = { "" };
	size_t i;
	int flops;

	if (gc_arch_build(model, &a, &e)) {
		gc_error("--print-model: %s", e.msg);
		return GC_EXIT_USAGE;
	}
	flops = a.flops_fwd > 0;
	printf("# %s: %zu tensors, %zu parameters, forward (registration) order; printed by "
	       "gcbench-worker %s --print-model\n", a.name, a.n, a.numel, GC_VERSION);
	printf("index,name,shape,numel%s\n", flops ? ",flops_fwd" : "");
	for (i = 0; i < a.n; i++) {
		const gc_arch_tensor *t = &a.t[i];
		printf("%zu,%s,", i, t->name);
		for (int d = 0; d < t->ndim; d++)
			printf("%s%zu", d ? "x" : "", t->shape[d]);
		printf(",%zu", t->numel);
		if (flops)
			printf(",%.17g", t->flops_fwd);
		putchar('\n');
	}
	gc_arch_release(&a);
	return fflush(stdout) || ferror(stdout) ? GC_EXIT_FAILED : GC_EXIT_OK;
}

/* Checks that need the workload but not MPI, so a bad model fails before MPI starts. */
static gc_rc prevalidate(const gc_wk_cfg *c, size_t *numel, gc_err *e)
{
	gc_arch a;
	gc_rc rc;
	*numel = 784 * GC_MLP_HID + GC_MLP_HID + GC_MLP_HID * 10 + 10; /* the MLP, generated data */
	if (c->backend == GC_WK_NCCL && !GC_WK_HAVE_NCCL)
		return gc_fail(e, GC_E_UNSUPPORTED, "--backend nccl: this gcbench-worker was built "
			       "without NCCL (rebuild with CUDA=1 and nccl.h present), or use --backend mpi");
	if (c->backend == GC_WK_NCCL && c->kind == GC_WK_TRAIN)
		return gc_fail(e, GC_E_UNSUPPORTED, "workload '%s' runs on --backend mpi only",
			       c->workload);
	if (c->kind != GC_WK_REPLAY)
		return GC_OK;
	rc = gc_arch_build(c->model, &a, e);
	if (rc)
		return rc;
	*numel = a.numel;
	gc_arch_release(&a);
	return GC_OK;
}

static void check_iface(const gc_wk_cfg *c, int rank)
{
	const char *inc = getenv("OMPI_MCA_btl_tcp_if_include");
	if (!c->iface[0])
		return;
	if (c->backend == GC_WK_NCCL && !getenv("NCCL_SOCKET_IFNAME"))
		setenv("NCCL_SOCKET_IFNAME", c->iface, 1);
	if (rank == 0 && c->backend == GC_WK_MPI && (!inc || (strcmp(inc, c->iface) && !strchr(inc, '/'))))
		gc_warn("--iface '%s' but btl_tcp_if_include is '%s': MPI traffic may bypass the "
			"shaped interface; add --mca btl_tcp_if_include %s to mpirun", c->iface,
			inc ? inc : "(unset)", c->iface);
}

static gc_rc comm_init(const gc_wk_cfg *c, gc_wk_comm *m, gc_err *e)
{
#if GC_WK_HAVE_NCCL
	if (c->backend == GC_WK_NCCL)
		return gc_wk_comm_nccl_init(m, c, e);
#endif
	return gc_wk_comm_mpi_init(m, c, e);
}

static int finish(const gc_wk_cfg *c, gc_wk_comm *m, gc_wk_result *r)
{
	char path[512];
	gc_err e = { "" };
	char *hdr = build_header(c, m, r);
	gc_rc rc = hdr ? gc_wk_out_path(path, sizeof(path), c->out, m->rank, &e) :
		gc_fail(&e, GC_E_NOMEM, "out of memory for the header");
	if (!rc)
		rc = gc_rec_write(path, hdr, r->recs, r->n, &e);
	free(hdr);
	if (rc) {
		gc_error("rank %d: cannot write the records: %s", m->rank, e.msg);
		return GC_EXIT_FAILED;
	}
	if (m->rank == 0 && c->kind == GC_WK_TRAIN)
		printf("final_loss %.4f\n", r->final_loss);
	if (m->rank == 0 && r->n && (r->recs[r->n - 1].flags & GC_REC_F_EVAL))
		printf("val_loss %.4f val_acc %.4f (rank 0's %u validation samples of %s)\n",
		       r->recs[r->n - 1].val_loss, (double)r->recs[r->n - 1].val_acc,
		       GC_REC_EVAL_N(r->recs[r->n - 1].flags), r->data);
	if (m->rank == 0)
		printf("records %s\n", path);
	return 0;
}

/* Threads per rank for the CPU kernels: --threads, else the cores this process may run
 * on divided by the ranks on this host. More threads than cores makes OpenMP and
 * OpenBLAS spin against each other (4 ranks x 2 threads on 2 cores: encode 5x slower). */
static int set_threads(const gc_wk_cfg *c)
{
	const char *ls = getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
	int n = c->threads, local = ls ? atoi(ls) : 1;
	cpu_set_t set;

	if (n <= 0) {
		int cores = sched_getaffinity(0, sizeof(set), &set) ? 1 : CPU_COUNT(&set);
		n = cores / (local > 0 ? local : 1);
	}
	if (n < 1)
		n = 1;
	omp_set_num_threads(n);
	openblas_set_num_threads(n);
	return n;
}

static int run_mpi(gc_wk_cfg *c, size_t numel)
{
	gc_wk_comm m;
	gc_wk_result r;
	gc_err e = { "" };
	int provided = 0, rank = 0, rc = 1;
	MPI_Init_thread(NULL, NULL, MPI_THREAD_SERIALIZED, &provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (provided < MPI_THREAD_SERIALIZED) {
		gc_error("rank %d: the MPI library gives thread level %d, below MPI_THREAD_SERIALIZED: "
			 "the communication thread cannot call MPI safely; use an MPI built with threads", rank, provided);
		MPI_Abort(MPI_COMM_WORLD, GC_EXIT_USAGE);
	}
	check_iface(c, rank);
	c->threads = set_threads(c);
	if (c->mode == GC_WK_BENCH_ALLREDUCE) {
		rc = bench_allreduce(c, c->bench_count ? (size_t)c->bench_count : numel, rank);
		MPI_Finalize();
		return rc;
	}
	if (comm_init(c, &m, &e)) {
		gc_error("rank %d: cannot start the %s back end: %s", rank,
			 c->backend == GC_WK_NCCL ? "nccl" : "mpi", e.msg);
		MPI_Abort(MPI_COMM_WORLD, GC_EXIT_FAILED);
	}
	if (gc_wk_train(c, &m, &r, &e)) {
		gc_error("rank %d: %s", rank, e.msg);
		MPI_Abort(MPI_COMM_WORLD, GC_EXIT_FAILED);
	}
	rc = finish(c, &m, &r);
	free(r.recs);
	free(r.bucket_numel);
	m.release(&m);
	MPI_Finalize();
	return rc;
}

int main(int argc, char **argv)
{
	gc_wk_cfg c;
	gc_err e = { "" };
	size_t numel = 0;
	gc_log_init("gcbench-worker", GC_LOG_WARN);
	if (argc == 2 && !strcmp(argv[1], "--self-test"))
		return gc_wk_self_test(stdout, GC_VERSION);
	if (argc == 2 && !strcmp(argv[1], "--build-info")) {
		gc_wk_build_info(stdout, GC_VERSION);
		return GC_EXIT_OK;
	}
	if (gc_wk_args_parse(&c, argc, argv, &e)) {
		gc_error("%s", e.msg);
		return GC_EXIT_USAGE;
	}
	if (c.mode == GC_WK_HELP) {
		gc_wk_usage(stdout);
		return GC_EXIT_OK;
	}
	if (c.mode == GC_WK_VERSION) {
		printf("gcbench-worker %s\n", GC_VERSION);
		return GC_EXIT_OK;
	}
	if (c.mode == GC_WK_DUMP)
		return dump(c.dump);
	if (c.mode == GC_WK_PRINT_MODEL)
		return print_model(c.model);
	if (prevalidate(&c, &numel, &e)) {
		gc_error("%s", e.msg);
		return GC_EXIT_USAGE;
	}
	return run_mpi(&c, numel);
}
