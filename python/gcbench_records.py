"""gcbench record files from Python, and the per-phase timing of a PyTorch DDP run.

The record format is docs/records.md (magic, a JSON header, 128-byte little-endian
records, a trailer); `gcbench ingest` stores the files in a gcbench database as a run
of a sweep, beside gcbench-worker's runs. Import with only a path (no install step):

    PYTHONPATH=/usr/local/share/gcbench/python python3 train.py

Three layers, use the one you need:

  RecordWriter    header + records kept in memory + trailer, written once at close()
                  (atomically: a temporary file, then a rename). Needs only `struct`.
  Recorder        a RecordWriter plus timers: `with rec.iteration(): with
                  it.phase("forward"): ...`; perf_counter on CPU, CUDA events on a GPU
                  (no synchronize inside the iteration: events are resolved at close).
  Recorder.wrap_hook(hook)
                  a DDP communication hook wrapped so that every iteration's encode
                  (the hook's work before each collective, and between rounds), comm
                  (each collective from issue to completion) and decode (after the last
                  collective until the hook's future completes) are attributed, nested
                  rounds included (PowerSGD's P then Q), by wrapping
                  torch.distributed.all_reduce / all_gather / all_gather_into_tensor
                  while the recorder is open. On gloo the hook's collectives on the
                  world group go to one process group per DDP bucket, so that hooks
                  issuing later rounds from callbacks work with several buckets
                  (see wrap_hook).

Example (one rank; torchrun sets RANK and WORLD_SIZE):

    from gcbench_records import Recorder
    rec = Recorder("out/rank%d.gcr" % rank, method="powersgd", params="rank=2",
                   workload="pytorch", model="mlp", world=world, rank=rank,
                   backend="gloo", batch=32)
    ddp.register_comm_hook(state, rec.wrap_hook(powerSGD_hook))
    for i in range(iters):
        with rec.iteration(warmup=i < warmup) as it:
            with it.phase("forward"):
                loss = loss_fn(ddp(x), y)
            with it.phase("backward"):
                loss.backward()
            with it.phase("optimizer"):
                opt.step(); opt.zero_grad()
            it.loss = loss.detach()          # read at close, not now (no sync)
    rec.close(checksum_param=param_checksum(ddp.module))

Honest limits (also written into every header's "timing"): on CPU with gloo, the
future callbacks run on gloo's threads and need the GIL, so comm ends when the callback
gets to run, and encode/decode between rounds are wall time of the callback (other
Python threads may hold the GIL meanwhile). Collectives that a hook calls on the
process group object directly (pg.allreduce) rather than through torch.distributed's
functions are not seen. On a GPU the phases are CUDA-event times on the current
stream of the thread that records them.
"""
import hashlib
import json
import os
import platform
import struct
import threading
import time

__version__ = "1"
PRODUCER = "gcbench_records %s (pytorch-ddp-hook)" % __version__

MAGIC = b"GCBREC1\n"
TRAILER = 0xFFFFFFFFFFFFFFFF
MAX_HEADER = 1 << 20
REC = struct.Struct("<4I10d2Qd2f")   # docs/records.md, "The record (128 bytes)"
assert REC.size == 128
FIELDS = ("rank", "iter", "warmup", "flags", "t_forward", "t_backward", "t_encode",
          "t_decode", "t_comm", "t_exposed", "t_optimizer", "t_iter", "t_iter_gpu", "loss",
          "bytes_sent", "bytes_recv", "val_loss", "val_acc", "t_eval")
F_EVAL = 1
REQUIRED = ("producer", "method", "params", "workload", "model", "world", "rank",
            "backend", "batch")

TIMING_CPU = ("perf_counter; on gloo, future callbacks run on gloo threads under the "
              "GIL: comm ends when its callback runs, encode/decode between rounds are "
              "wall time of the callbacks")
TIMING_CUDA = ("CUDA events on the recording thread's current stream, resolved at close "
               "(no synchronize inside the iteration); t_iter is perf_counter wall time")


class RecordWriter:
    """A record file: header (dict), records kept in memory, written at close()."""

    def __init__(self, path, header):
        missing = [k for k in REQUIRED if k not in header]
        if missing:
            raise ValueError("record header lacks %s (docs/records.md)" % ", ".join(missing))
        if not 0 <= int(header["rank"]) < int(header["world"]):
            raise ValueError("rank %s is not in 0..world-1 (world %s)"
                             % (header["rank"], header["world"]))
        self.path = path
        self.header = dict(header)
        self.rows = []
        self.closed = False

    def add(self, **f):
        """One record: keyword arguments named as FIELDS; absent ones are 0. rank is
        the header's unless given; iter counts from 0 unless given."""
        f.setdefault("rank", self.header["rank"])
        f.setdefault("iter", len(self.rows))
        unknown = set(f) - set(FIELDS)
        if unknown:
            raise ValueError("unknown record fields: %s" % ", ".join(sorted(unknown)))
        self.rows.append(REC.pack(*[f.get(k, 0) for k in FIELDS]))

    def close(self, **header_extra):
        """Write the file (header updated with header_extra) once; later calls do nothing."""
        if self.closed:
            return
        self.header.update(header_extra)
        head = json.dumps(self.header, sort_keys=True).encode()
        if len(head) > MAX_HEADER:
            raise ValueError("record header of %d bytes is too long" % len(head))
        d = os.path.dirname(os.path.abspath(self.path))
        os.makedirs(d, exist_ok=True)
        tmp = "%s.tmp.%d" % (self.path, os.getpid())
        with open(tmp, "wb") as f:
            f.write(MAGIC + struct.pack("<I", len(head)) + head)
            f.write(b"".join(self.rows))
            f.write(struct.pack("<QQ", TRAILER, len(self.rows)))
        os.replace(tmp, self.path)
        self.closed = True


def eval_flags(samples):
    """flags of a record that holds an evaluation of `samples` validation samples"""
    if not 0 < samples <= 0xFFFFFF:
        raise ValueError("validation samples must be 1..16777215")
    return F_EVAL | (samples << 8)


def param_checksum(module):
    """16 hex digits of a hash of a module's parameters (equal on every replica)"""
    h = hashlib.sha256()
    for p in module.parameters():
        h.update(p.detach().cpu().contiguous().numpy().tobytes())
    return h.hexdigest()[:16]


def _versions():
    v = {"python": platform.python_version(), "gcbench_records": __version__}
    try:
        import torch
        v["torch"] = torch.__version__
        if torch.version.cuda:
            v["cuda"] = torch.version.cuda
        if torch.cuda.is_available() and hasattr(torch.cuda, "nccl"):
            v["nccl"] = ".".join(str(x) for x in torch.cuda.nccl.version())
    except Exception:   # torch missing or partial: the writer works without it
        pass
    return v


class _Clock:
    """Stamps: perf_counter floats, or CUDA events resolved at close."""

    def __init__(self, cuda):
        self.cuda = cuda
        if cuda:
            import torch
            self._torch = torch

    def now(self):
        if not self.cuda:
            return time.perf_counter()
        e = self._torch.cuda.Event(enable_timing=True)
        e.record()
        return e

    def seconds(self, start, stamp):
        if not self.cuda:
            return stamp - start
        return start.elapsed_time(stamp) / 1e3

    def sync(self):
        if self.cuda:
            self._torch.cuda.synchronize()


class _Flow:
    """One bucket's way through a hook: the stamp its next encode or decode starts at."""

    __slots__ = ("it", "stamp", "done", "group")

    def __init__(self, it, stamp, group=None):
        self.it, self.stamp, self.done, self.group = it, stamp, False, group


class Iteration:
    """The stamps of one iteration; turned into a record at Recorder.close()."""

    def __init__(self, rec, warmup):
        self._rec = rec
        self.warmup = 1 if warmup else 0
        self.loss = 0.0
        self.phases = {}          # name -> [(start, end)]
        self.encode, self.comm, self.decode = [], [], []
        self.ready, self.finals = [], []   # hook entries (bucket ready), hook futures done
        self.bytes_sent = self.bytes_recv = 0
        self.collectives = 0
        self.eval = None
        self.start = self.end = None
        self.wall = 0.0

    def phase(self, name):
        """A context manager timing `name` ("forward", "backward", "optimizer", ...)."""
        return _Phase(self, name)

    def __enter__(self):
        self._wall0 = time.perf_counter()
        self.start = self._rec._clock.now()
        self._rec._current = self
        return self

    def __exit__(self, *exc):
        self.end = self._rec._clock.now()
        self.wall = time.perf_counter() - self._wall0
        self._rec._current = None
        self._rec._iters.append(self)
        return False

    def evaluate(self, samples, val_loss, val_acc, seconds):
        """The validation that followed this iteration (outside t_iter)."""
        self.eval = (eval_flags(samples), float(val_loss), float(val_acc), float(seconds))

    def record(self, clock, rank, index):
        s = lambda t: clock.seconds(self.start, t)
        span = lambda pairs: sum(s(b) - s(a) for a, b in pairs)
        bwd = self.phases.get("backward", [])
        if self.ready and bwd:
            t_backward = max(s(t) for t in self.ready) - s(bwd[0][0])
        else:
            t_backward = span(bwd)
        exposed = 0.0
        if self.ready and self.finals:
            exposed = max(0.0, max(s(t) for t in self.finals) - max(s(t) for t in self.ready))
        loss = self.loss
        loss = float(loss.item() if hasattr(loss, "item") else loss)
        f = dict(rank=rank, iter=index, warmup=self.warmup, t_forward=span(self.phases.get("forward", [])),
                 t_backward=max(0.0, t_backward), t_encode=span(self.encode),
                 t_decode=span(self.decode), t_comm=span(self.comm), t_exposed=exposed,
                 t_optimizer=span(self.phases.get("optimizer", [])), t_iter=self.wall,
                 t_iter_gpu=s(self.end) if clock.cuda else 0.0, loss=loss,
                 bytes_sent=self.bytes_sent, bytes_recv=self.bytes_recv)
        if self.eval:
            f["flags"], f["val_loss"], f["val_acc"], f["t_eval"] = self.eval
        return f


class _Phase:
    def __init__(self, it, name):
        self.it, self.name = it, name

    def __enter__(self):
        self.t0 = self.it._rec._clock.now()
        return self

    def __exit__(self, *exc):
        self.it.phases.setdefault(self.name, []).append((self.t0, self.it._rec._clock.now()))
        return False


_tls = threading.local()


class _Work:
    """A collective's Work whose get_future() is the recorder's future (see _collective)."""

    def __init__(self, work, fut):
        self._work, self._fut = work, fut

    def get_future(self):
        return self._fut

    def wait(self, *a, **kw):
        r = self._work.wait(*a, **kw)
        self._fut.wait()
        return r

    def is_completed(self):
        return self._fut.done()

    def __getattr__(self, name):
        return getattr(self._work, name)


def _nbytes(t):
    return t.numel() * t.element_size()


def _is_world(group):
    """group is the default (world) group: None, or dist.group.WORLD"""
    if group is None:
        return True
    import torch.distributed as dist
    return group is dist.group.WORLD


class Recorder:
    """A rank's record file with phase timers and a DDP comm-hook wrapper.

    header keys: method, params, workload, model, world, rank, backend, batch (required,
    docs/records.md) and any others (kept in the file and the database). device: a torch
    device (or its name) whose type "cuda" selects CUDA events; None times on CPU."""

    def __init__(self, path, device=None, **header):
        cuda = device is not None and str(device).startswith("cuda")
        h = {"producer": PRODUCER, "params": "", "versions": _versions(),
             "timing": TIMING_CUDA if cuda else TIMING_CPU, "host": platform.node()}
        h.update(header)
        self.writer = RecordWriter(path, h)
        self._clock = _Clock(cuda)
        self._iters = []
        self._current = None
        self._patched = {}
        self._open = True
        self._lock = threading.Lock()
        self._inflight = 0     # collective callbacks not returned yet
        self._groups = {}      # DDP bucket index -> its process group (wrap_hook)

    def iteration(self, warmup=False):
        """A context manager for one iteration: `with rec.iteration() as it:`."""
        return Iteration(self, warmup)

    # --- collectives and hooks ---------------------------------------------------

    def _collective(self, orig, sizes):
        rec = self

        def wrapped(*args, **kw):
            flow = getattr(_tls, "flow", None)
            if flow is None or flow.done or not rec._open:
                return orig(*args, **kw)
            it = flow.it
            if flow.group is not None and len(args) < 3 and _is_world(kw.get("group")):
                kw["group"] = flow.group
            t_issue = rec._clock.now()
            it.encode.append((flow.stamp, t_issue))
            sent, recv = sizes(*args, **kw)
            it.bytes_sent += sent
            it.bytes_recv += recv
            it.collectives += 1
            work = orig(*args, **kw)
            if not kw.get("async_op", False) or work is None:
                t = rec._clock.now()
                it.comm.append((t_issue, t))
                flow.stamp = t
                return work
            # The hook's callbacks go on a future of ours, completed from the
            # collective's own callback on the same thread: they run with the flow set
            # (the collective's future may run them on any thread otherwise).
            import torch
            mine = torch.futures.Future()

            def done(fut):
                t = rec._clock.now()
                it.comm.append((t_issue, t))
                flow.stamp = t
                prev = getattr(_tls, "flow", None)
                _tls.flow = flow
                try:
                    mine.set_result(fut.value())
                except Exception as exc:   # the collective failed: so does ours
                    mine.set_exception(exc)
                finally:
                    _tls.flow = prev
                    with rec._lock:
                        rec._inflight -= 1
            with rec._lock:
                rec._inflight += 1
            work.get_future().then(done)
            return _Work(work, mine)
        wrapped.__wrapped__ = orig
        return wrapped

    def _install(self):
        if self._patched:
            return
        import torch.distributed as dist

        def world(kw):
            g = kw.get("group")
            return dist.get_world_size(g) if g is not None else dist.get_world_size()

        def ar(tensor, *a, **kw):
            return _nbytes(tensor), _nbytes(tensor)

        def ag(tensor_list, tensor, *a, **kw):
            return _nbytes(tensor), _nbytes(tensor) * (world(kw) - 1)

        def agt(output, tensor, *a, **kw):
            return _nbytes(tensor), _nbytes(output) - _nbytes(tensor)

        for name, sizes in (("all_reduce", ar), ("all_gather", ag),
                            ("all_gather_into_tensor", agt), ("_all_gather_base", agt)):
            orig = getattr(dist, name, None)
            if orig is not None:
                self._patched[name] = orig
                setattr(dist, name, self._collective(orig, sizes))

    def _uninstall(self):
        if not self._patched:
            return
        import torch.distributed as dist
        for name, orig in self._patched.items():
            setattr(dist, name, orig)
        self._patched = {}

    def _bucket_group(self, index):
        """The process group of DDP bucket `index`, created on its first use. Called
        on the autograd thread, where DDP starts the buckets' hooks in bucket order on
        every rank, so every rank creates the groups in the same order (new_group's
        contract). Its timeout is GCBENCH_DEADLINE_S when set (gcbench run --deadline),
        as the world group's should be, so a hook that waits for a peer ends there."""
        g = self._groups.get(index)
        if g is None:
            import datetime
            import torch.distributed as dist
            kw = {}
            deadline = float(os.environ.get("GCBENCH_DEADLINE_S", "0") or 0)
            if deadline > 0:
                kw["timeout"] = datetime.timedelta(seconds=deadline)
            g = self._groups[index] = dist.new_group(backend=dist.get_backend(), **kw)
        return g

    def wrap_hook(self, hook, bucket_groups="auto"):
        """hook(state, bucket) -> Future, wrapped to attribute encode, comm and decode.

        bucket_groups: the hook's collectives on the default group go to one process
        group per DDP bucket instead ("auto": on the gloo backend, True, False). A hook
        that issues a later round from a future's callback (PowerSGD's P and Q rounds,
        examples/topk_hook.py's indices) races with the next bucket's first round:
        the ranks issue them in different orders, and gloo pairs collectives by issue
        order within a group ("op.preamble.length <= op.nbytes", or a recv timeout;
        with or without this wrapper). One group per bucket orders every group's
        collectives the same way on every rank and keeps the buckets overlapping. A
        hook that passes its own group (not the world group), or passes the group
        positionally, keeps it."""
        rec = self
        self._install()
        if bucket_groups == "auto":
            import torch.distributed as dist
            bucket_groups = dist.is_initialized() and dist.get_backend() == "gloo"

        def wrapped(state, bucket):
            it = rec._current
            if it is None or not rec._open:
                return hook(state, bucket)
            group = rec._bucket_group(bucket.index()) if bucket_groups else None
            t = rec._clock.now()
            it.ready.append(t)
            flow = _Flow(it, t, group)
            _tls.flow = flow
            try:
                fut = hook(state, bucket)
            finally:
                _tls.flow = None

            def final(f):
                t_end = rec._clock.now()
                it.decode.append((flow.stamp, t_end))
                it.finals.append(t_end)
                flow.done = True
                return f.value()
            return fut.then(final)
        wrapped.__name__ = getattr(hook, "__name__", "hook")
        return wrapped

    # --- the end -------------------------------------------------------------------

    def close(self, **header_extra):
        """Resolve the timers (one synchronize on a GPU), write the file, unwrap the
        collectives. header_extra is added to the header (checksum_param, final_loss...)."""
        if not self._open:
            return
        self._open = False
        self._uninstall()
        # Let the collectives' callbacks return (they need the GIL once more after the
        # hook's future completed): a process group destroyed before that deadlocks.
        deadline = time.monotonic() + 30
        while self._inflight and time.monotonic() < deadline:
            time.sleep(0.001)
        self._clock.sync()
        rank = self.writer.header["rank"]
        for i, it in enumerate(self._iters):
            self.writer.add(**it.record(self._clock, rank, i))
        if self._iters:
            header_extra.setdefault("collectives_last_iteration", self._iters[-1].collectives)
        if self._groups:
            header_extra.setdefault("bucket_groups", len(self._groups))
        header_extra.setdefault("iters", sum(1 for it in self._iters if not it.warmup))
        header_extra.setdefault("warmup", sum(1 for it in self._iters if it.warmup))
        self.writer.close(**header_extra)
