# kernels/: the gradient compressors (CPU back end in C; CUDA in kernels/cuda/).
KERNEL_SRCS := kernels/isa.c kernels/params.c kernels/plan.c kernels/compress.c kernels/simulate.c \
               kernels/select.c kernels/sparse.c kernels/syncsgd.c kernels/fp16.c kernels/signsgd.c \
               kernels/topk.c kernels/mstopk.c kernels/powersgd.c kernels/bf16.c \
               kernels/randomk.c kernels/terngrad.c kernels/qsgd.c \
               kernels/efsign_ar.c kernels/dgc.c kernels/cgx.c
LIB_SRCS += $(KERNEL_SRCS)
UNIT_TESTS += $(BUILD)/tests/test_kernels $(BUILD)/tests/test_kernels_methods \
              $(BUILD)/tests/test_kernels_plan $(BUILD)/tests/test_kernels_isa \
              $(BUILD)/tests/test_kernels_rng $(BUILD)/tests/test_kernels_randomk \
              $(BUILD)/tests/test_kernels_terngrad \
              $(BUILD)/tests/test_kernels_qsgd \
              $(BUILD)/tests/test_kernels_efsign_ar \
              $(BUILD)/tests/test_kernels_dgc \
              $(BUILD)/tests/test_kernels_cgx
BINS += $(BUILD)/bin/gcbench-bench-kernels
INTEG_TESTS += tests/integration/test_compress_cli.sh tests/integration/test_portable.sh \
               tests/integration/test_run_baselines.sh
# held-out python references for syncsgd, fp16, signsgd, topk, mstopk and powersgd
INTEG_TESTS += tests/integration/test_compress_refs.sh
BENCHES += bench-kernels

# How the build was made (kernels/isa.h): its -march and, for ARCH=native, the CPU of
# the machine it was built on (provisioning names it in its warning).
GC_BUILD_HOST_CPU := $(shell sed -n 's/^model name[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo 2>/dev/null | head -n 1 | tr -cd 'A-Za-z0-9 ._@()-' | cut -c1-80)
$(BUILD)/obj/kernels/isa.o: CPPFLAGS += -DGC_BUILD_ARCH='"$(or $(ARCH),x86-64)"' \
	-DGC_BUILD_HOST_CPU='"$(or $(GC_BUILD_HOST_CPU),unknown)"'

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
