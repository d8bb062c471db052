# tests/: the harness, the runner and the generic rules for unit tests and fuzz replays.
# A unit test tests/unit/NAME.c becomes $(BUILD)/tests/NAME, linked with libgcbench.a.
# A fuzz target tests/fuzz/NAME.c becomes $(BUILD)/tests/NAME (replayed over
# tests/fuzz/corpus/NAME/ by tests/fuzz/replay.c) and build-fuzz/NAME (libFuzzer).

FUZZ_REPLAYS = $(FUZZ_TARGETS:%=$(BUILD)/tests/%)

# the layers of docs/CONTRIBUTING.md, checked on this tree (tools/check-layers.sh)
INTEG_TESTS += tests/integration/test_layers.sh
# the docs against the binaries (tools/doc-check.sh), and the README's five steps
INTEG_TESTS += tests/integration/test_docs.sh tests/integration/test_newcomer.sh
# tests/run.sh -l: the suite checks that no script left a namespace, bridge or daemon up
INTEG_TESTS += tests/integration/test_leftovers.sh tests/integration/test_runner_skips.sh

$(BUILD)/tests/%: tests/unit/%.c $(LIB)
	@mkdir -p $(@D) $(BUILD)/obj/tests/unit
	$(if $(Q),@echo "  TEST    $@")
	$(Q)$(CC) $(CPPFLAGS) -MF $(BUILD)/obj/tests/unit/$*.d $(CFLAGS) -Itests -o $@ $< $(LIB) $(LDFLAGS) $(LDLIBS)

$(BUILD)/tests/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/replay.c $(LIB)
	@mkdir -p $(@D) $(BUILD)/obj/tests/fuzz
	$(if $(Q),@echo "  FUZZ    $@")
	$(Q)$(CC) $(CPPFLAGS) -MF $(BUILD)/obj/tests/fuzz/$*.d $(CFLAGS) -Wno-missing-prototypes -o $@ $< tests/fuzz/replay.c $(LIB) $(LDFLAGS) $(LDLIBS)

# Tests that need a whole build tree run in this order: unit, fuzz replays, integration;
# then leftovers/nothing_left_up: no script left a namespace, bridge or daemon up (-l).
test:
	@tools/deps.sh --ensure
	@$(MAKE) --no-print-directory all
	@BUILD=$(BUILD) tests/run.sh -l $(UNIT_TESTS) $(FUZZ_REPLAYS) $(if $(filter 1,$(UNIT_ONLY)),,$(INTEG_TESTS))

# Coverage-guided fuzzing with libFuzzer (clang). FUZZ_SECONDS per target; FUZZ_FLAGS
# are passed to each target (CI: "-seed=1 -runs=20000", the same inputs every run).
# A failing input is written to build-fuzz/TARGET-crash-..., never into the tree.
FUZZ_SECONDS ?= 60
FUZZ_FLAGS ?=
FUZZ_BUILD := build-fuzz
fuzz:
	@command -v clang >/dev/null || { echo "make fuzz needs clang: apt-get install clang" >&2; exit 1; }
	$(MAKE) --no-print-directory BUILD=$(FUZZ_BUILD)/lib CC=clang ARCH= \
	  SANITIZE=address,undefined EXTRA_CFLAGS="-fsanitize=fuzzer-no-link -Wno-pass-failed" $(FUZZ_BUILD)/lib/libgcbench.a
	@for t in $(FUZZ_TARGETS); do \
	  echo "== $$t"; \
	  clang $(CPPFLAGS) -std=c11 -g -O1 -fsanitize=fuzzer,address,undefined $(DEP_CFLAGS) \
	    -o $(FUZZ_BUILD)/$$t tests/fuzz/$$t.c $(FUZZ_BUILD)/lib/libgcbench.a $(LDLIBS) -fopenmp || exit 1; \
	  mkdir -p $(FUZZ_BUILD)/corpus-$$t; \
	  $(FUZZ_BUILD)/$$t -max_total_time=$(FUZZ_SECONDS) -artifact_prefix=$(FUZZ_BUILD)/$$t- $(FUZZ_FLAGS) \
	    $(FUZZ_BUILD)/corpus-$$t tests/fuzz/corpus/$$t || { \
	    echo "make fuzz: $$t failed; the input is $(FUZZ_BUILD)/$$t-crash-* (or -leak-, -timeout-):" \
	      "replay it with $(BUILD)/tests/$$t FILE, fix, then add it to tests/fuzz/corpus/$$t/" >&2; exit 1; }; \
	done
-include tests/pytorch.mk
