# kernels/: the gradient compressors (CPU back end in C; CUDA in kernels/cuda/).
KERNEL_SRCS := kernels/params.c kernels/plan.c kernels/compress.c kernels/simulate.c \
               kernels/select.c kernels/sparse.c kernels/syncsgd.c kernels/fp16.c kernels/signsgd.c \
               kernels/topk.c kernels/mstopk.c kernels/powersgd.c
LIB_SRCS += $(KERNEL_SRCS)
UNIT_TESTS += $(BUILD)/tests/test_kernels $(BUILD)/tests/test_kernels_methods \
              $(BUILD)/tests/test_kernels_plan
BINS += $(BUILD)/bin/gcbench-bench-kernels
INTEG_TESTS += tests/integration/test_compress_cli.sh
BENCHES += bench-kernels

# The CUDA back end is called only when its dispatch table is part of the build
# (kernels/cuda/module.mk adds kernels/cuda/dispatch.cu to CU_SRCS); expanded late,
# after every module.mk is read.
$(BUILD)/obj/kernels/compress.o $(BUILD)/obj/kernels/simulate.o: CPPFLAGS += \
	-DGC_CUDA_KERNELS=$(if $(and $(filter 1,$(USE_CUDA)),$(filter kernels/cuda/dispatch.cu,$(CU_SRCS))),1,0)

$(BUILD)/bin/gcbench-bench-kernels: $(BUILD)/obj/kernels/bench_kernels.o $(LIB)
	$(link_rule)

# bench_kernels.c is a program, not library code.
$(BUILD)/obj/kernels/bench_kernels.o: CPPFLAGS += -DGC_CUDA_KERNELS=$(if $(and $(filter 1,$(USE_CUDA)),$(filter kernels/cuda/dispatch.cu,$(CU_SRCS))),1,0)

bench-kernels: $(BUILD)/bin/gcbench-bench-kernels
	$(BUILD)/bin/gcbench-bench-kernels $(BENCH_KERNELS_ARGS)

# Every module adds its own bench-X to `bench` (prerequisites merge across rules).
bench: bench-kernels
FUZZ_TARGETS += fuzz_params
