# netem/: bandwidth shaping through libnl-route (rate.c, shape.c), the local emulated
# cluster of namespaced nodes (cluster.c; each node's mount view: cluster_view.c; its
# sshd and the cluster's keys: cluster_sshd.c), and two programs: gcbench-netem (set,
# show, clear, restore-all) and gcbench-probe (TCP goodput / RTT probe).
LIB_SRCS += netem/trace.c netem/play.c netem/rate.c netem/netns.c netem/state.c netem/shape.c netem/netem_check.c netem/pids.c netem/link.c \
	netem/cluster.c netem/cluster_view.c netem/cluster_sshd.c
LIB_SRCS += netem/classes.c netem/shares.c netem/u32.c
UNIT_TESTS += $(BUILD)/tests/test_netem_rate $(BUILD)/tests/test_netem_state \
	$(BUILD)/tests/test_netem_links $(BUILD)/tests/test_netem_request \
	$(BUILD)/tests/test_netem_trace
FUZZ_TARGETS += fuzz_rate fuzz_delay fuzz_trace fuzz_classes fuzz_shares
UNIT_TESTS += $(BUILD)/tests/test_netem_classes $(BUILD)/tests/test_netem_shares

BINS += $(BUILD)/bin/gcbench-netem
NETEM_VERSION := $(shell git describe --always --dirty 2>/dev/null || echo 0.1)
$(BUILD)/obj/netem/main.o: CPPFLAGS += -DGC_VERSION='"$(NETEM_VERSION)"'
$(BUILD)/bin/gcbench-netem: $(BUILD)/obj/netem/main.o $(LIB)
	$(link_rule)

BINS += $(BUILD)/bin/gcbench-probe
$(BUILD)/bin/gcbench-probe: $(BUILD)/obj/netem/probe.o $(LIB)
	$(link_rule)

INTEG_TESTS += tests/integration/test_netem_shape.sh tests/integration/test_netem_shares.sh tests/integration/test_netem_trace.sh tests/integration/test_cluster.sh \
	tests/integration/test_run_latency.sh

BENCHES += bench-netem
bench: bench-netem
bench-netem: $(BUILD)/bin/gcbench $(BUILD)/bin/gcbench-netem $(BUILD)/bin/gcbench-probe
	@BUILD=$(BUILD) tools/bench-netem.sh

# SLURM on the local cluster (gcbench cluster up --slurm)
LIB_SRCS += netem/cluster_slurm.c

# The installed helper (netem/policy.h): gcbench-netem with the group's policy compiled
# in, for the package (pkg/module.mk: make deb, make install-netem).
LIB_SRCS += netem/policy_conf.c netem/policy.c
UNIT_TESTS += $(BUILD)/tests/test_netem_policy
FUZZ_TARGETS += fuzz_netem_conf
all: $(BUILD)/pkg/gcbench-netem
$(BUILD)/obj/pkg/netem/main.o: netem/main.c $(FLAGS_FILE)
	@mkdir -p $(@D)
	$(if $(Q),@echo "  CC      $< (policy)")
	$(Q)$(CC) $(CPPFLAGS) -DGC_NETEM_POLICY -DGC_VERSION='"$(NETEM_VERSION)"' $(CFLAGS) -c $< -o $@
$(BUILD)/pkg/gcbench-netem: $(BUILD)/obj/pkg/netem/main.o $(LIB)
	$(link_rule)
