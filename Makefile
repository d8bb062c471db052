# gcbench: a plain Makefile that detects its dependencies.
#
#   make            build everything that can be built here
#   make test       build, then run every test level that applies (unit, fuzz
#                   replay, integration as root, GPU with a device); ends with
#                   "N passed, N failed, N skipped"
#   make bench      run the benchmarks (figures as ratios, never pass/fail)
#   make deps       install the Debian packages (root), or print the apt-get line
#   make deb        the Debian package, with the group's shaping helper (pkg/module.mk);
#                   make install-netem installs that helper alone (root)
#   make fuzz       build libFuzzer targets with clang (build-fuzz/)
#
# Knobs: V=1 (show commands), DEBUG=1 (-O0), SANITIZE=address,undefined,
#        CUDA=0|1|auto, CUDA_ARCH="80 90", ARCH=x86-64-v2 (the CPU baseline:
#        hot kernels are dispatched at run time; ARCH=native for one machine,
#        docs/kernels.md), TUNE=native (-mtune: scheduling for the build
#        machine's CPU, still runs everywhere), BUILD=dir,
#        WERROR= (warnings stay warnings: an unknown compiler version),
#        EXTRA_CFLAGS, EXTRA_NVCCFLAGS
#
# Each component adds itself in its own module.mk (see common/module.mk for
# the variables it may append to).

V        ?= 0
DEBUG    ?= 0
SANITIZE ?=
CUDA     ?= auto
ARCH     ?= x86-64-v2
TUNE     ?=
CUDA_ARCH ?= 80 90
PREFIX   ?= /usr/local

ifeq ($(SANITIZE),)
BUILD    ?= build
else
BUILD    ?= build-san
endif

Q := $(if $(filter 1,$(V)),,@)
CC ?= cc
ifeq ($(CC),cc)
CC := gcc
endif
PKG_CONFIG ?= pkg-config

# ---- dependency detection ------------------------------------------------
comma := ,
pc_cflags = $(shell $(PKG_CONFIG) --cflags $(1) 2>/dev/null)
pc_libs   = $(shell $(PKG_CONFIG) --libs $(1) 2>/dev/null)
pc_have   = $(shell $(PKG_CONFIG) --exists $(1) 2>/dev/null && echo 1)

REQ_PC := libnl-route-3.0 sqlite3 yaml-0.1 libcurl openblas
MISSING_PC := $(foreach m,$(REQ_PC),$(if $(call pc_have,$(m)),,$(m)))
# flags of the packages that are there: one query for all would give nothing at all
# (and drop -lopenblas) as soon as any one is missing
FOUND_PC   := $(filter-out $(MISSING_PC),$(REQ_PC))

DEP_CFLAGS := $(if $(FOUND_PC),$(call pc_cflags,$(FOUND_PC)))
DEP_LIBS   := $(if $(FOUND_PC),$(call pc_libs,$(FOUND_PC))) -lm -lpthread

MPI_CFLAGS := $(call pc_cflags,ompi-c)
MPI_LIBS   := $(call pc_libs,ompi-c)
HAVE_MPI   := $(call pc_have,ompi-c)

NVCC := $(or $(shell command -v nvcc 2>/dev/null),$(wildcard /usr/local/cuda/bin/nvcc))
CUDA_HOME ?= $(if $(NVCC),$(patsubst %/bin/nvcc,%,$(NVCC)),/usr/local/cuda)
ifeq ($(CUDA),auto)
  ifneq ($(SANITIZE),)
    USE_CUDA := 0
  else
    USE_CUDA := $(if $(NVCC),1,0)
  endif
else
  USE_CUDA := $(CUDA)
endif
HAVE_NCCL := $(if $(wildcard $(CUDA_HOME)/include/nccl.h /usr/include/nccl.h),1,)

# ---- flags ----------------------------------------------------------------
WERROR ?= -Werror
WARN := -Wall -Wextra $(WERROR) -Wshadow -Wformat=2 -Wstrict-prototypes \
        -Wmissing-prototypes -Wvla -fno-common -Wno-unused-parameter
ifeq ($(DEBUG),1)
OPT := -O0 -g3
else
OPT := -O3 -g
endif
ifneq ($(ARCH),)
OPT += -march=$(ARCH)
endif
ifneq ($(TUNE),)
OPT += -mtune=$(TUNE)
endif
SANFLAGS := $(if $(SANITIZE),-fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all,)

CPPFLAGS += -D_GNU_SOURCE -I. -Icommon -MMD -MP -DGC_HAVE_CUDA=$(USE_CUDA)
CFLAGS   += -std=c11 $(OPT) $(WARN) $(SANFLAGS) -fopenmp $(DEP_CFLAGS) $(EXTRA_CFLAGS)
LDFLAGS  += $(SANFLAGS) -fopenmp
LDLIBS   += $(DEP_LIBS)

ifeq ($(USE_CUDA),1)
NVCCFLAGS := -O3 -std=c++17 -Xcompiler -Wall$(if $(WERROR),$(comma)-Werror -Werror all-warnings) \
             $(foreach a,$(CUDA_ARCH),-gencode arch=compute_$(a),code=sm_$(a)) \
             -I. -Icommon -DGC_HAVE_CUDA=1 $(EXTRA_NVCCFLAGS)
CUDA_LIBS := -L$(CUDA_HOME)/lib64 -Wl,-rpath,$(CUDA_HOME)/lib64 -lcudart   # cuBLAS: dlopen (kernels/cuda/cublas_load.h)
CPPFLAGS  += -I$(CUDA_HOME)/include
LDLIBS    += $(CUDA_LIBS) -lstdc++
endif

# ---- what modules append to -----------------------------------------------
LIB_SRCS :=        # C sources linked into $(BUILD)/libgcbench.a
CU_SRCS :=         # CUDA sources, linked into libgcbench.a when CUDA=1
BINS :=            # programs: $(BUILD)/bin/NAME, rule given by the module
UNIT_TESTS :=      # unit test programs: $(BUILD)/tests/NAME (from tests/unit/NAME.c)
INTEG_TESTS :=     # integration test scripts (shell), run by tests/run.sh
FUZZ_TARGETS :=    # fuzz targets: tests/fuzz/NAME.c defining LLVMFuzzerTestOneInput
BENCHES :=         # bench targets (phony), run by make bench

LIB := $(BUILD)/libgcbench.a

all: check-deps

include common/module.mk
include formats/module.mk
-include kernels/module.mk
-include kernels/cuda/module.mk
-include netem/module.mk
-include worker/module.mk
-include db/module.mk
-include model/module.mk
-include report/module.mk
-include orchestrator/module.mk
-include pkg/module.mk
include tests/module.mk

LIB_OBJS := $(LIB_SRCS:%.c=$(BUILD)/obj/%.o)

# Objects depend on the flags they were built with: a change of ARCH, TUNE, DEBUG,
# CUDA or EXTRA_CFLAGS rebuilds them (build/flags.txt is rewritten only when the flags
# differ, so an unchanged build stays up to date).
FLAGS_FILE := $(BUILD)/flags.txt
FLAGS_NOW := $(CC) $(CPPFLAGS) $(CFLAGS) | $(NVCC) $(NVCCFLAGS) | $(LDFLAGS) $(LDLIBS)
ifneq ($(FLAGS_NOW),$(file <$(FLAGS_FILE)))
$(shell mkdir -p $(BUILD))
$(file >$(FLAGS_FILE),$(FLAGS_NOW))
endif
ifeq ($(USE_CUDA),1)
LIB_OBJS += $(CU_SRCS:%.cu=$(BUILD)/obj/%.cu.o)
endif

all: $(LIB) $(BINS) $(UNIT_TESTS) $(FUZZ_REPLAYS)

$(LIB): $(LIB_OBJS)
	@mkdir -p $(@D)
	$(if $(Q),@echo "  AR      $@")
	$(Q)rm -f $@ && ar rcs $@ $^

$(BUILD)/obj/%.o: %.c $(FLAGS_FILE)
	@mkdir -p $(@D)
	$(if $(Q),@echo "  CC      $<")
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

$(BUILD)/obj/%.cu.o: %.cu $(FLAGS_FILE)
	@mkdir -p $(@D)
	$(if $(Q),@echo "  NVCC    $<")
	$(Q)$(NVCC) $(NVCCFLAGS) -MMD -MP -c $< -o $@

# link helper: $(call link,objects...)
define link_rule
	@mkdir -p $(@D)
	$(if $(Q),@echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)
endef

check-deps:
	@if [ -n "$(strip $(MISSING_PC))" ]; then \
	  echo "gcbench: missing build dependencies: $(MISSING_PC)" >&2; \
	  echo "gcbench: run 'sudo make deps', or: $$(tools/deps.sh --print)" >&2; exit 1; fi

deps:
	tools/deps.sh --install

# the optional packages too (SLURM, munge, PyTorch, chromium, clang): without them
# `make test` skips their tests and says how many
deps-extra:
	tools/deps.sh --install --extra

# The main job: a 4-node local emulated cluster, the quickstart sweep, the speedup
# table, and gcbench.db left to query. Needs root (namespaces, tc).
DEMO_DB ?= gcbench.db
demo:
	@if [ "$$(id -u)" -ne 0 ]; then echo "make demo needs root (network namespaces and tc): run 'sudo make demo'" >&2; exit 1; fi
	@tools/deps.sh --ensure
	@$(MAKE) --no-print-directory all
	@start=$$(date +%s); \
	$(BUILD)/bin/gcbench run experiments/quickstart.yaml --inventory experiments/inventory-local.yaml --db $(DEMO_DB); rc=$$?; \
	echo "demo: took $$(( $$(date +%s) - start )) s; results in $(DEMO_DB) (try: sqlite3 $(DEMO_DB) 'SELECT model, method, bw_cap_bps/1e9 AS gbit, round(speedup, 2) FROM speedup')"; \
	echo "demo: the local cluster stays up for more sweeps; remove it with: $(BUILD)/bin/gcbench cluster down"; exit $$rc

# man pages from the programs' --help, one per command (tools/gen-man.sh; checked by
# test_docs.sh); a stale page of a removed command goes with the folder
man: all
	@rm -rf $(BUILD)/man
	@BIN=$(BUILD)/bin tools/gen-man.sh $(BUILD)/man

install: all man
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 0755 $(BINS) $(DESTDIR)$(PREFIX)/bin/
	install -m 0644 $(BUILD)/man/*.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	install -d $(DESTDIR)$(PREFIX)/share/gcbench/python
	install -m 0644 python/gcbench_records.py python/gcbench_ddp.py python/gcbench_grace.py \
		$(DESTDIR)$(PREFIX)/share/gcbench/python/

clean:
	rm -rf build build-san build-fuzz

.PHONY: all check-deps deps deps-extra test bench clean install man fuzz demo $(BENCHES)

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
