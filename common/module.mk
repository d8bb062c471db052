# common/: what every component shares (result codes, logging, timing, .npy I/O)
LIB_SRCS += common/result.c common/log.c common/npy.c common/strutil.c common/proc.c common/fsutil.c
UNIT_TESTS += $(BUILD)/tests/test_npy $(BUILD)/tests/test_strutil $(BUILD)/tests/test_proc \
	$(BUILD)/tests/test_fsutil
FUZZ_TARGETS += fuzz_npy
