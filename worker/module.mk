# worker/: gcbench-worker (one rank) and the record format it writes.
include worker/sources.mk
# gcbench-worker: the MPI-free parts (and the record format) go into the library (unit
# tests link them)
LIB_SRCS += $(WK_LIB_SRCS)
# the digits for the training workloads: converted at build time from python3-sklearn's
# copy (tools/digits_convert.py) and embedded into gcbench-worker (worker/wk_digits.S);
# without the package the worker trains on generated clusters and the tests on real
# data skip
DIGITS_CSV ?= /usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz
DIGITS := $(if $(wildcard $(DIGITS_CSV)),$(BUILD)/data/digits.gcbd)
$(BUILD)/data/digits.gcbd: tools/digits_convert.py $(DIGITS_CSV)
	@mkdir -p $(@D)
	$(if $(Q),@echo "  CONVERT $@")
	$(Q)python3 tools/digits_convert.py --csv $(DIGITS_CSV) --out $@ >/dev/null
$(BUILD)/obj/worker/wk_digits.o: worker/wk_digits.S $(DIGITS)
	@mkdir -p $(@D)
	$(if $(Q),@echo "  AS      $@")
	$(Q)$(CC) -c $(if $(DIGITS),-DGC_DIGITS_FILE='"$(DIGITS)"') -o $@ $<
ifeq ($(HAVE_MPI),1)
WK_SRCS := worker/wk_main.c worker/wk_train.c worker/wk_comm_mpi.c
WK_VERSION := $(shell git describe --always --dirty 2>/dev/null || echo 0.1)
WK_HAVE_NCCL := $(if $(and $(filter 1,$(USE_CUDA)),$(HAVE_NCCL),$(wildcard worker/wk_comm_nccl.c)),1,0)
ifeq ($(WK_HAVE_NCCL),1)
WK_SRCS += worker/wk_comm_nccl.c
WK_LIBS := -L$(CUDA_HOME)/lib64 -Wl,-rpath,$(CUDA_HOME)/lib64 -lnccl
endif
WK_OBJS := $(WK_SRCS:%.c=$(BUILD)/obj/%.o) $(BUILD)/obj/worker/wk_digits.o
BINS += $(BUILD)/bin/gcbench-worker
$(WK_OBJS): CPPFLAGS += $(MPI_CFLAGS) -DGC_WK_HAVE_NCCL=$(WK_HAVE_NCCL)
$(BUILD)/obj/worker/wk_main.o: CPPFLAGS += -DGC_VERSION='"$(WK_VERSION)"'
$(BUILD)/bin/gcbench-worker: $(WK_OBJS) $(LIB)
	@mkdir -p $(@D)
	$(if $(Q),@echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $(WK_OBJS) $(LIB) $(LDLIBS) $(MPI_LIBS) $(WK_LIBS)
else
$(info gcbench: MPI (ompi-c) not found: gcbench-worker is not built; apt-get install libopenmpi-dev)
endif
UNIT_TESTS += $(BUILD)/tests/test_worker
INTEG_TESTS += tests/integration/test_worker.sh tests/integration/test_worker_nccl.sh
# gcbench-worker --print-model: the csv it prints replays as the model
INTEG_TESTS += tests/integration/test_worker_print_model.sh
BENCHES += bench-worker
bench: bench-worker
bench-worker: $(if $(filter 1,$(HAVE_MPI)),$(BUILD)/bin/gcbench-worker)
	@BUILD=$(BUILD) worker/bench_worker.sh
UNIT_TESTS += $(BUILD)/tests/test_wk_data $(BUILD)/tests/test_wk_exchange $(BUILD)/tests/test_wk_fill
FUZZ_TARGETS += fuzz_data
INTEG_TESTS += tests/integration/test_accuracy.sh
INTEG_TESTS += tests/integration/test_run_accuracy.sh
