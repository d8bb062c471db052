# worker/sources.mk: the MPI-free sources of gcbench-worker, in one list that both
# worker/module.mk (into the library) and the GPU check's subset build
# (kernels/cuda/module.mk, cuda-check-worker) use, so a new worker file lands in both.
WK_LIB_SRCS := worker/wk_args.c worker/wk_layout.c worker/wk_exchange.c \
	worker/wk_mlp.c worker/wk_cnn.c worker/wk_net.c worker/wk_data.c worker/wk_selftest.c \
	worker/wk_optim.c worker/wk_fill.c worker/wk_mem.c
