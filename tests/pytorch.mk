# tests/pytorch.mk: the PyTorch side by side (docs/pytorch.md). Included from the end of
# tests/module.mk. Everything here SKIPs (tests) or says "skipped" (bench) without torch.
#   tools/export_model.py     a PyTorch model -> gcbench parameter list (+ backward profile)
#   python/gcbench_ddp.py        one rank of PyTorch DDP with a comm hook on a model's shapes,
#                             timed into gcbench records (a workload: command program)
#   tools/bench_vs_pytorch.sh make bench-vs-pytorch: experiments/bench-vs-pytorch.yaml,
#                             both stacks in one gcbench run, then tools/stack_pairs.sql
INTEG_TESTS += tests/integration/test_export_model.sh tests/integration/test_pytorch_bench.sh
# python/gcbench_ddp.py: 2 ranks on loopback, every hook on ResNet-50's buckets
INTEG_TESTS += tests/integration/test_ddp_bench.sh
# python/gcbench_records.py: its writer (no torch needed), DDP hooks timed, gcbench ingest
INTEG_TESTS += tests/integration/test_python_records.sh
# experiments/pytorch-hooks.yaml (workload: ddp with examples/topk_hook.py as a user's
# hook) swept on a local cluster
INTEG_TESTS += tests/integration/test_run_pytorch_hooks.sh
# docs/hooks.md followed word for word: workload: ddp with a hook of ours, a package hook
# and a raising one
INTEG_TESTS += tests/integration/test_own_hook.sh
# python/gcbench_ddp.py without torch: --plan (the NCCL route's choices), refusals
INTEG_TESTS += tests/integration/test_ddp_runner.sh
# python/gcbench_grace.py: GRACE-shaped compressors through the adapter, 2 ranks
INTEG_TESTS += tests/integration/test_grace_adapter.sh

BENCHES += bench-vs-pytorch
bench: bench-vs-pytorch
# BENCH_VS_PYTORCH_ARGS: e.g. "--inventory lab.yaml --keep out" (see --help)
bench-vs-pytorch: $(BUILD)/bin/gcbench $(if $(filter 1,$(HAVE_MPI)),$(BUILD)/bin/gcbench-worker)
	@BUILD=$(BUILD) tools/bench_vs_pytorch.sh $(BENCH_VS_PYTORCH_ARGS)
