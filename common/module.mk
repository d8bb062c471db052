# common/: what every component shares (result codes, logging, timing, .npy I/O)
LIB_SRCS += common/result.c common/log.c common/npy.c common/strutil.c common/proc.c
UNIT_TESTS += $(BUILD)/tests/test_npy $(BUILD)/tests/test_strutil $(BUILD)/tests/test_proc
FUZZ_TARGETS += fuzz_npy
