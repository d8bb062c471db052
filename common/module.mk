# common/: what every component shares (result codes, logging, timing, .npy I/O, the
# string buffer, the JSON writer, the child-process runner, $GCBENCH_HOME: home.c)
LIB_SRCS += common/result.c common/log.c common/npy.c common/strutil.c common/proc.c common/fsutil.c \
	common/buf.c common/json.c common/opts.c common/bandwidth.c common/home.c
UNIT_TESTS += $(BUILD)/tests/test_npy $(BUILD)/tests/test_strutil $(BUILD)/tests/test_proc \
	$(BUILD)/tests/test_fsutil $(BUILD)/tests/test_buf $(BUILD)/tests/test_json $(BUILD)/tests/test_opts \
	$(BUILD)/tests/test_bandwidth
FUZZ_TARGETS += fuzz_npy fuzz_opts
# the FNV-1a 64 hashes (header-only: common/fnv.h)
UNIT_TESTS += $(BUILD)/tests/test_fnv
# the growable array (common/grow.h)
LIB_SRCS += common/grow.c
UNIT_TESTS += $(BUILD)/tests/test_grow
