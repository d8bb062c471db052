/* formats/arch.h: parameter tensors of real architectures, for replay workloads and
 * for the performance model (model/).
 *
 * An architecture is its parameter tensors in forward (registration) order, exactly as
 * PyTorch's named_parameters() lists them, each with the forward FLOPs per sample of
 * the layer it belongs to and, once timed, the seconds its gradient's backward takes.
 * Backward order (how data-parallel training buckets gradients) is the reverse.
 *
 * FLOPs conventions (docs/model.md): a multiply-add is 2 FLOPs; conv 2*k*k*cin*cout*
 * hout*wout at a 224x224 input; linear 2*in*out per token; BERT and GPT-2 at sequence
 * length GC_ARCH_SEQ_LEN (128); attention scores (QK^T and AV, 4*S*d per token per
 * layer) are attributed to the value projection (BERT attention.self.value.weight,
 * GPT-2 attn.c_attn.weight), the tensor whose gradient follows them in backward;
 * GPT-2's tied LM head (2*768*50257 per token) is attributed to wte.weight; embedding
 * lookups, norms, activations and pooling count 0. A layer's FLOPs go to its weight
 * tensor; biases and norm parameters carry 0.
 */
#ifndef GC_ARCH_H
#define GC_ARCH_H

#include <stddef.h>

#include "result.h"

/* Effective FLOP/s a V100 sustains training ResNet-50 in fp32: 367 images/s
 * (NVIDIA DeepLearningExamples, PyTorch ResNet-50 v1.5, DGX-1 1x V100 16GB, FP32)
 * x 3 x 8.18 GFLOPs (forward + 2x backward) = 9.0e12. Derivation in docs/model.md. */
#define GC_V100_FLOPS 9.0e12
#define GC_ARCH_SEQ_LEN 128

/* "csv:@bin/models/X.csv": a model provisioned with the build, in the models/ folder
 * beside the program that reads it. gcbench run passes this form when the hosts' builds
 * sit in different folders (logins that differ); gcbench-worker resolves it. */
#define GC_ARCH_BIN_DIR "@bin"

typedef struct gc_arch_tensor {
	char name[128];        /* e.g. "layer1.0.conv1.weight" */
	int ndim;              /* 1..4 */
	size_t shape[4];
	size_t numel;
	double flops_fwd;      /* forward FLOPs per sample of the layer this tensor belongs to,
	                        * attributed to its weight tensor (0 for bias/bn/other tensors of the same layer) */
	double t_bwd;          /* seconds of backward compute for this tensor's gradient at the configured
	                        * batch and device speed (gc_arch_set_timing or gc_arch_load_profile) */
} gc_arch_tensor;

typedef struct gc_arch {
	char name[64];
	gc_arch_tensor *t;     /* n tensors in FORWARD (registration) order; backward order is the reverse */
	size_t n, numel;
	double flops_fwd;      /* total forward FLOPs per sample */
} gc_arch;

/* Build a known architecture ("resnet50", "resnet101", "vgg16", "bert-base",
 * "gpt2-small", plus "tiny" for tests: 6 tensors, 985,408 parameters) from its
 * definition in code, or load a parameter list with "csv:PATH" (the format of
 * data/models/\*.csv: '#' comments, a header "index,name,shape,numel", then one row per
 * tensor "I,NAME,AxBxC,NUMEL"; csv tensors have flops_fwd 0 unless a fifth column
 * "flops_fwd" is present). t_bwd is 0 until timed. On failure *out is empty and e says
 * which file, line and value is wrong. Caller releases *out. */
gc_rc gc_arch_build(const char *name, gc_arch *out, gc_err *e);

/* Read a parameter list file (the csv: format above); the arch is named after the file. */
gc_rc gc_arch_load_csv(const char *path, gc_arch *out, gc_err *e);

/* Parse a parameter list from memory (the csv: format above); label names the source
 * in messages. Used by gc_arch_build("csv:...") and the fuzz target. */
gc_rc gc_arch_parse_csv(const char *buf, size_t len, const char *label, gc_arch *out,
			gc_err *e);

/* Backward time per tensor from FLOPs: t_bwd = 2 * flops_fwd * batch / (device_flops *
 * compute_scale) (backward ~ 2x forward). The layer's time sits on its weight tensor;
 * its biases/norm parameters get 0 (their gradients are ready with the weight's).
 * device_flops <= 0 means GC_V100_FLOPS; compute_scale <= 0 means 1. */
void gc_arch_set_timing(gc_arch *a, int batch, double device_flops, double compute_scale);

/* Per-tensor backward seconds from a profile the user measured: lines "name,seconds"
 * ('#' comments and blank lines allowed, an optional header "name,t_bwd_seconds").
 * Every tensor of the arch must appear exactly once. Errors (file and line): unknown
 * tensor name, duplicate, negative or non-numeric time, missing tensors (the first
 * one named). On failure a is unchanged. */
gc_rc gc_arch_load_profile(gc_arch *a, const char *path, gc_err *e);

double gc_arch_backward_total(const gc_arch *a);     /* sum of t_bwd */
void gc_arch_release(gc_arch *a);                    /* accepts NULL; leaves *a empty */
const char *const *gc_arch_names(void);              /* NULL-terminated built-in names */

#endif
