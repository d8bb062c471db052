# kernels/cuda/: the CUDA back end of the compressors (built when CUDA=1) and the
# host-side bisection planner of mstopk (plain C, always built and unit-tested).
CU_SRCS += kernels/cuda/cuda_util.cu kernels/cuda/spin.cu kernels/cuda/dispatch.cu \
	   kernels/cuda/syncsgd.cu kernels/cuda/fp16.cu kernels/cuda/signsgd.cu \
	   kernels/cuda/sparse.cu kernels/cuda/radix.cu kernels/cuda/topk.cu kernels/cuda/mstopk.cu \
	   kernels/cuda/powersgd.cu kernels/cuda/rng.cu kernels/cuda/bf16.cu \
	   kernels/cuda/randomk.cu kernels/cuda/terngrad.cu \
	   kernels/cuda/qsgd.cu kernels/cuda/efsign_ar.cu kernels/cuda/dgc.cu \
	   kernels/cuda/cgx.cu kernels/cuda/cublas_load.cu
LIB_SRCS += kernels/cuda/bisect.c
UNIT_TESTS += $(BUILD)/tests/test_kernels_cuda
# tools/gpu-check.sh up to the GPU (fakes for the device steps; runs on any host)
INTEG_TESTS += tests/integration/test_gpu_check.sh

# `make CUDA=1 cuda-check`: the GPU tests and the kernel benchmark on a GPU machine,
# linked from common/, kernels/ and the architecture tables (worker/arch*.c: tensor
# shapes in code) only, so no sqlite, libnl, yaml, curl or BLAS is needed (the CPU
# kernels call no BLAS; the worker's optimizer step does). tools/gpu-check.sh uses it.
CUDA_CHECK_DIR := $(BUILD)/cuda-check
include worker/sources.mk
CUDA_CHECK_OBJS = $(patsubst %.c,$(BUILD)/obj/%.o,common/result.c common/log.c common/strutil.c \
	common/npy.c common/fsutil.c common/buf.c common/json.c common/grow.c $(KERNEL_SRCS) kernels/cuda/bisect.c \
	$(FORMATS_SRCS)) \
	$(CU_SRCS:%.cu=$(BUILD)/obj/%.cu.o)

$(CUDA_CHECK_DIR)/test_kernels_cuda: tests/unit/test_kernels_cuda.c $(CUDA_CHECK_OBJS)
	@mkdir -p $(@D) $(BUILD)/obj/tests/unit
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

# `make CUDA=1 HAVE_MPI=1 cuda-check-worker`: gcbench-worker from the same subset plus the
# worker's MPI-free parts, for tools/gpu-check.sh on a GPU machine without sqlite, libnl,
# yaml or curl. Needs NCCL (nccl.h and libnccl.so on the compiler's paths: CPATH,
# LIBRARY_PATH) and MPI (MPI_CFLAGS, MPI_LIBS). Where they are missing: CBLAS_SHIM=1
# builds against tools/gpu-check/cblas/ instead of OpenBLAS, MPI_STUB=1 against the
# one-process MPI of tools/gpu-check/mpi/ (world size 1, run without mpirun).
GC_CHECK_SHIMS := $(if $(filter 1,$(CBLAS_SHIM)),tools/gpu-check/cblas/cblas_shim.c) \
	$(if $(filter 1,$(MPI_STUB)),tools/gpu-check/mpi/mpi_stub.c)
CUDA_CHECK_WK_OBJS := $(patsubst %.c,$(BUILD)/obj/%.o,worker/wk_main.c worker/wk_train.c \
	worker/wk_comm_mpi.c worker/wk_comm_nccl.c $(WK_LIB_SRCS) $(GC_CHECK_SHIMS)) \
	$(BUILD)/obj/worker/wk_digits.o
ifeq ($(CBLAS_SHIM),1)
$(patsubst %.c,$(BUILD)/obj/%.o,worker/wk_main.c worker/wk_train.c worker/wk_mlp.c \
	worker/wk_cnn.c): CPPFLAGS += -Itools/gpu-check/cblas
endif
ifeq ($(MPI_STUB),1)
$(patsubst %.c,$(BUILD)/obj/%.o,worker/wk_main.c worker/wk_train.c worker/wk_comm_mpi.c \
	worker/wk_comm_nccl.c): CPPFLAGS += -Itools/gpu-check/mpi
endif

$(CUDA_CHECK_DIR)/gcbench-worker: $(CUDA_CHECK_WK_OBJS) $(CUDA_CHECK_OBJS)
	@mkdir -p $(@D)
	$(if $(Q),@echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS) $(MPI_LIBS) -lnccl

cuda-check-worker: $(CUDA_CHECK_DIR)/gcbench-worker
	@test "$(USE_CUDA)" = 1 || { echo "cuda-check-worker: needs CUDA=1 (nvcc)" >&2; exit 1; }

.PHONY: cuda-check-worker
