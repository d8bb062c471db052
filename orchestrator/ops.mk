# orchestrator/ops.mk: scheduling, regression tracking and notifications (their tests).
# The sources (notify.c, schedule.c, regress.c, stats.c, cmd_*.c) are picked up by
# orchestrator/module.mk's wildcards.
UNIT_TESTS += $(BUILD)/tests/test_notify $(BUILD)/tests/test_schedule $(BUILD)/tests/test_stats $(BUILD)/tests/test_regress
INTEG_TESTS += tests/integration/test_notify.sh tests/integration/test_regress.sh tests/integration/test_schedule.sh
