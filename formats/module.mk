# formats/: the formats several components share, on their own floor below all of them
# (docs/CONTRIBUTING.md, Layers): the workload catalogue (arch.c, its CSV arch_csv.c),
# the per-iteration record a worker writes and db/ ingests (records.c, its header
# rec_header.c; docs/records.md), the
# environment record of a host (envinfo.c), and the JSON string escapes the two JSON
# readers share (json_escape.c).
FORMATS_SRCS := formats/arch.c formats/arch_csv.c formats/records.c formats/rec_header.c formats/envinfo.c \
	formats/json_escape.c
LIB_SRCS += $(FORMATS_SRCS)
UNIT_TESTS += $(BUILD)/tests/test_arch $(BUILD)/tests/test_envinfo $(BUILD)/tests/test_rec_header \
	$(BUILD)/tests/test_records
FUZZ_TARGETS += fuzz_arch_csv fuzz_records fuzz_envinfo
INTEG_TESTS += tests/integration/test_no_quote.sh
