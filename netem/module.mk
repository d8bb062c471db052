# netem/: bandwidth shaping through libnl-route (rate.c, shape.c), the local emulated
# cluster of namespaced nodes (cluster.c), and two programs: gcbench-netem (set, show,
# clear, restore-all) and gcbench-probe (TCP goodput / RTT probe).
LIB_SRCS += netem/rate.c
UNIT_TESTS += $(BUILD)/tests/test_netem_rate
FUZZ_TARGETS += fuzz_rate
