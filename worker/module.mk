# worker/: gcbench-worker (one rank) and the record format it writes.
LIB_SRCS += worker/records.c
