# orchestrator/: the gcbench CLI. main.c holds the table (commands.def); each
# subcommand is orchestrator/cmd_<name>.c; the library code it calls lives in the
# component folders (netem/, db/, model/, ...) and in libgcbench.a.
# Other orchestrator/*.c (spec, inventory, run logic) go into the library, so tests link them.
LIB_SRCS += $(filter-out orchestrator/main.c $(wildcard orchestrator/cmd_*.c),$(wildcard orchestrator/*.c))
GC_VERSION := $(shell git describe --always --dirty 2>/dev/null || echo 0.1)
ORCH_SRCS := orchestrator/main.c $(wildcard orchestrator/cmd_*.c) $(ORCH_EXTRA_SRCS)
ORCH_OBJS := $(ORCH_SRCS:%.c=$(BUILD)/obj/%.o)
BINS += $(BUILD)/bin/gcbench
UNIT_TESTS += $(BUILD)/tests/test_ssh $(BUILD)/tests/test_launch $(BUILD)/tests/test_reap \
	$(BUILD)/tests/test_resume $(BUILD)/tests/test_envinfo $(BUILD)/tests/test_provision \
	$(BUILD)/tests/test_bootstrap

$(BUILD)/obj/orchestrator/main.o: CPPFLAGS += -DGC_VERSION='"$(GC_VERSION)"' -Iorchestrator
$(BUILD)/obj/orchestrator/%.o: CPPFLAGS += -Iorchestrator -Ikernels -Inetem -Idb -Imodel -Iworker

$(BUILD)/bin/gcbench: $(ORCH_OBJS) $(LIB)
	$(link_rule)
-include orchestrator/ops.mk
INTEG_TESTS += tests/integration/test_run_e2e.sh tests/integration/test_run_faults.sh \
	tests/integration/test_nightly.sh tests/integration/test_hosts.sh
FUZZ_TARGETS += fuzz_envinfo
