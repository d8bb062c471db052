# kernels/cuda/: the CUDA back end of the compressors (built when CUDA=1) and the
# host-side bisection planner of mstopk (plain C, always built and unit-tested).
CU_SRCS += kernels/cuda/cuda_util.cu kernels/cuda/spin.cu kernels/cuda/dispatch.cu \
	   kernels/cuda/syncsgd.cu kernels/cuda/fp16.cu kernels/cuda/signsgd.cu \
	   kernels/cuda/sparse.cu kernels/cuda/topk.cu kernels/cuda/mstopk.cu \
	   kernels/cuda/powersgd.cu
LIB_SRCS += kernels/cuda/bisect.c
UNIT_TESTS += $(BUILD)/tests/test_kernels_cuda
