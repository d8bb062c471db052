# kernels/cuda/: the CUDA back end of the compressors (built when CUDA=1) and the
# host-side bisection planner of mstopk (plain C, always built and unit-tested).
CU_SRCS += kernels/cuda/cuda_util.cu kernels/cuda/spin.cu kernels/cuda/dispatch.cu \
	   kernels/cuda/syncsgd.cu kernels/cuda/fp16.cu kernels/cuda/signsgd.cu \
	   kernels/cuda/sparse.cu kernels/cuda/topk.cu kernels/cuda/mstopk.cu \
	   kernels/cuda/powersgd.cu
LIB_SRCS += kernels/cuda/bisect.c
UNIT_TESTS += $(BUILD)/tests/test_kernels_cuda

# `make CUDA=1 cuda-check`: the GPU tests and the kernel benchmark on a GPU machine,
# linked from common/, kernels/ and the architecture tables (worker/arch*.c: tensor
# shapes in code) only, so no sqlite, libnl, yaml, curl or BLAS is needed (the CPU
# kernels call no BLAS; the worker's optimizer step does). tools/gpu-check.sh uses it.
CUDA_CHECK_DIR := $(BUILD)/cuda-check
CUDA_CHECK_OBJS = $(patsubst %.c,$(BUILD)/obj/%.o,common/result.c common/log.c common/strutil.c \
	common/npy.c $(KERNEL_SRCS) kernels/cuda/bisect.c worker/arch.c worker/arch_csv.c) \
	$(CU_SRCS:%.cu=$(BUILD)/obj/%.cu.o)

$(CUDA_CHECK_DIR)/test_kernels_cuda: tests/unit/test_kernels_cuda.c $(CUDA_CHECK_OBJS)
	@mkdir -p $(@D)
	$(if $(Q),@echo "  TEST    $@")
	$(Q)$(CC) $(CPPFLAGS) -MF $(BUILD)/obj/tests/unit/test_kernels_cuda.check.d $(CFLAGS) -Itests \
		-o $@ $< $(CUDA_CHECK_OBJS) $(LDFLAGS) $(LDLIBS)

$(CUDA_CHECK_DIR)/gcbench-bench-kernels: $(BUILD)/obj/kernels/bench_kernels.o $(CUDA_CHECK_OBJS)
	$(link_rule)

cuda-check-build: $(CUDA_CHECK_DIR)/test_kernels_cuda $(CUDA_CHECK_DIR)/gcbench-bench-kernels
	@test "$(USE_CUDA)" = 1 || { echo "cuda-check: needs CUDA=1 (nvcc)" >&2; exit 1; }

cuda-check: cuda-check-build
	$(CUDA_CHECK_DIR)/test_kernels_cuda
	$(CUDA_CHECK_DIR)/gcbench-bench-kernels $(BENCH_KERNELS_ARGS)

.PHONY: cuda-check cuda-check-build
