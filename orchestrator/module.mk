# orchestrator/: the gcbench program, in parts, highest first (docs/CONTRIBUTING.md,
# Layers; tools/check-layers.sh enforces the order: a part includes only those below it):
#   cli/     the front end: main.c, the subcommand table (commands.def), one cmd_NAME.c
#            per subcommand; nothing else includes it
#   run/     the sweep engine: expansion into points, resume, lock, one point's steps,
#            the sweep's provisioning, progress and the end-of-sweep summary
#   ops/     operations on the results: regression tracking and its statistics,
#            scheduling, notifications, the CLI's text tables and how they show a run
#   remote/  what runs on or against the nodes: ssh, provisioning, mpirun's command
#            line, reaping leftovers, this host's environment probe, the SLURM
#            allocation and sbatch script
#   spec/    the inputs: sweep spec, host inventory, their YAML reader
# Everything but cli/ goes into libgcbench.a, so unit tests link it.
ORCH_PARTS := spec run remote ops
LIB_SRCS += $(foreach p,$(ORCH_PARTS),$(wildcard orchestrator/$(p)/*.c))
GC_VERSION := $(shell git describe --always --dirty 2>/dev/null || echo 0.1)
ORCH_SRCS := $(wildcard orchestrator/cli/*.c)
ORCH_OBJS := $(ORCH_SRCS:%.c=$(BUILD)/obj/%.o)
BINS += $(BUILD)/bin/gcbench

$(BUILD)/obj/orchestrator/cli/main.o $(BUILD)/obj/orchestrator/cli/cmd_env.o \
	$(BUILD)/obj/orchestrator/cli/cmd_ingest.o: \
	CPPFLAGS += -DGC_VERSION='"$(GC_VERSION)"'

$(BUILD)/bin/gcbench: $(ORCH_OBJS) $(LIB)
	$(link_rule)

# run/: the host lock
UNIT_TESTS += $(BUILD)/tests/test_hostlock
FUZZ_TARGETS += fuzz_hostlock fuzz_nights
INTEG_TESTS += tests/integration/test_hostlock.sh tests/integration/test_cli_vocab.sh
# spec/, run/, remote/
UNIT_TESTS += $(BUILD)/tests/test_spec $(BUILD)/tests/test_sweep $(BUILD)/tests/test_inventory \
	$(BUILD)/tests/test_ssh $(BUILD)/tests/test_launch $(BUILD)/tests/test_reap \
	$(BUILD)/tests/test_resume $(BUILD)/tests/test_provision $(BUILD)/tests/test_run_summary \
	$(BUILD)/tests/test_spec_command $(BUILD)/tests/test_spec_slow $(BUILD)/tests/test_spec_uplink $(BUILD)/tests/test_fetch \
	$(BUILD)/tests/test_spec_trace $(BUILD)/tests/test_spec_background \
	$(BUILD)/tests/test_run_bg
FUZZ_TARGETS += fuzz_spec fuzz_inventory fuzz_fetch
INTEG_TESTS += tests/integration/test_run_e2e.sh tests/integration/test_run_faults.sh \
	tests/integration/test_nightly.sh tests/integration/test_hosts.sh \
	tests/integration/test_status_env.sh tests/integration/test_hetero.sh \
	tests/integration/test_run_command.sh tests/integration/test_run_stacks.sh \
	tests/integration/test_slow.sh tests/integration/test_racks.sh tests/integration/test_ssh_config.sh \
	tests/integration/test_run_trace.sh tests/integration/test_background.sh
# ops/
UNIT_TESTS += $(BUILD)/tests/test_notify $(BUILD)/tests/test_schedule $(BUILD)/tests/test_stats \
	$(BUILD)/tests/test_regress $(BUILD)/tests/test_bootstrap $(BUILD)/tests/test_ingest \
	$(BUILD)/tests/test_series
INTEG_TESTS += tests/integration/test_notify.sh tests/integration/test_regress.sh \
	tests/integration/test_schedule.sh tests/integration/test_ingest_foreign.sh \
	tests/integration/test_regress_series.sh
# remote/slurm.c: its unit test and fuzz target; the emulated cluster with SLURM and the
# module on live allocations (test_slurm.sh, through the test tool slurm_probe)
UNIT_TESTS += $(BUILD)/tests/test_slurm
FUZZ_TARGETS += fuzz_slurm
INTEG_TESTS += tests/integration/test_slurm.sh tests/integration/test_slurm_run.sh \
	tests/integration/test_slurm_submit.sh tests/integration/test_slurm_timelimit.sh
all: $(BUILD)/tests/slurm_probe
$(BUILD)/tests/slurm_probe: tests/tools/slurm_probe.c $(LIB)
	@mkdir -p $(@D) $(BUILD)/obj/tests/tools
	$(if $(Q),@echo "  TOOL    $@")
	$(Q)$(CC) $(CPPFLAGS) -MF $(BUILD)/obj/tests/tools/slurm_probe.d $(CFLAGS) -o $@ $< $(LIB) $(LDFLAGS) $(LDLIBS)
# the checks before a sweep and the exit status table
UNIT_TESTS += $(BUILD)/tests/test_validate
INTEG_TESTS += tests/integration/test_exit_codes.sh
