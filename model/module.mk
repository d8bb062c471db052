# model/: the performance model (bucketing, collectives, event model), its fitting,
# and what-if sweeps. The workload catalogue it models is formats/arch.c.
LIB_SRCS += $(wildcard model/*.c)
UNIT_TESTS += $(BUILD)/tests/test_model
INTEG_TESTS += tests/integration/test_whatif_cli.sh tests/integration/test_validation_specs.sh
UNIT_TESTS += $(BUILD)/tests/test_model_db $(BUILD)/tests/test_model_whatif $(BUILD)/tests/test_model_validate \
	$(BUILD)/tests/test_model_racks
