# model/: the performance model (bucketing, collectives, event model), its fitting,
# and what-if sweeps. worker/arch*.c (architectures) are compiled by worker/module.mk.
LIB_SRCS += $(wildcard model/*.c)
UNIT_TESTS += $(BUILD)/tests/test_arch $(BUILD)/tests/test_model
FUZZ_TARGETS += fuzz_arch_csv
INTEG_TESTS += tests/integration/test_whatif_cli.sh
UNIT_TESTS += $(BUILD)/tests/test_model_db $(BUILD)/tests/test_model_whatif
UNIT_TESTS += $(BUILD)/tests/test_report
INTEG_TESTS += tests/integration/test_report_page.sh
