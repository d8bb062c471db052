# worker/: gcbench-worker (one rank) and the record format it writes.
LIB_SRCS += worker/records.c
# architecture builders for replay workloads (worker/arch*.c)
LIB_SRCS += $(wildcard worker/arch*.c)
