/* kernels/cuda/radix.cuh: the exact top-k selection rule on the GPU, shared by topk
 * and dgc (C++, nvcc only).
 *
 * The k-th largest magnitude key K (bits of |c|) is found by a radix select, entirely
 * on the device (no host round trip): four passes of 8 bits from the top, each a
 * histogram of the keys that match the digits found so far (shared-memory bins,
 * warp-aggregated with __match_any_sync), then one thread picks the digit holding the
 * k-th largest. The rule (sparse.cuh) is every key > K and the first (k - #(key > K))
 * keys == K in index order (ties: lower index first); sparse.cu compacts it.
 */
#ifndef GC_CU_RADIX_CUH
#define GC_CU_RADIX_CUH

#include "sparse.cuh"

#define GC_CU_RADIX_BINS 256

struct gc_cu_radix_sel;

/* The device scratch of one bucket's selection. */
struct gc_cu_radix {
	unsigned *hist;                /* GC_CU_RADIX_BINS (device) */
	struct gc_cu_radix_sel *sel;   /* the digits found so far (device) */
};

/* Allocate r's device scratch (r zeroed by the caller); method names it in messages
 * ("the topk histogram"). On failure what was allocated stays for gc_cu_radix_release. */
gc_rc gc_cu_radix_init(struct gc_cu_radix *r, const char *method, gc_err *e);
/* Free r's device scratch; NULL members are skipped. */
void gc_cu_radix_release(struct gc_cu_radix *r);
/* Queue on st the rule that selects the exact top k of |c[0..n)| (n > 0) into *rule
 * (device). GC_E_CUDA if a launch fails. */
gc_rc gc_cu_radix_rule(struct gc_cu_radix *r, const float *c, size_t n, unsigned long long k,
		       gc_cu_rule *rule, cudaStream_t st);

#endif
