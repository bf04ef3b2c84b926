"""Triplet scoring on every GPU of one machine.

Host threads: one per device and stream (:attr:`CupyBackend.streams`, two
by default: while one batch's kernels run, the other thread plans and
uploads the next, and the tail of one launch overlaps the next one's start).
Each thread enters its device's context, takes parts from its device's
queue, scores each in memory-bounded batches
(:func:`trimsa.triplet.plan.memory_batches`) and writes each batch's scores
into the shared output at the batch's input positions.

Partitions: ``blocked`` and ``interleaved`` give each device one part, as
in the TrioSeq paper (cut into a few pieces for its streams); ``dynamic``
cuts the triplets into up to :data:`CHUNKS_PER_DEVICE` equal-cost chunks
per device (LPT, :func:`trimsa.triplet.plan.dynamic`) in one shared queue,
largest first, so that a device that runs ahead (a faster or less busy GPU,
an error of the cost model) takes more of them. A chunk holds at least
:data:`MIN_CHUNK` triplets: a GPU needs many triplets per thread group to
run efficiently, so a small set becomes one equal-cost part per device.
The chunks are planned on the calling thread in segments (strided slices
of the set, the first of them small) while the devices already work on the
first ones.

The output is in input order and equal to what one device computes (each
score depends only on its triplet).

The per-device work goes through a small backend object
(:class:`CupyBackend` for real GPUs), so that the orchestration can be tested
on the CPU with a fake backend.
"""

from __future__ import annotations

import contextlib
import threading
from collections import deque

import numpy as np

from .._numba import jit
from ..errors import OptionError
from . import plan

#: Fraction of a device's free memory a run may plan to use.
MEMORY_FRACTION = 0.6
#: Chunks per device of the dynamic scheme, and the fewest triplets in a chunk.
CHUNKS_PER_DEVICE = 4
MIN_CHUNK = 32768
#: the dynamic scheme plans first a lead segment of every LEAD-th triplet (one chunk per
#: device), so that the devices start while the rest is planned
LEAD = 16
#: host threads (each with its own CUDA stream) per GPU
STREAMS = 2


_SHARED: dict = {}
_SHARED_LOCK = threading.Lock()


class CupyBackend:
    """Scores on CUDA devices through :mod:`trimsa.triplet._gpu` and CuPy.

    ``streams`` host threads work on each device at once, each on its own
    non-blocking CUDA stream (:data:`STREAMS` by default).
    """

    name = "gpu"

    def __init__(self, precision: str = "auto", streams: int | None = None):
        from . import _gpu

        _gpu.require()
        import cupy

        self._gpu = _gpu
        self._cupy = cupy
        self.precision = precision
        self.streams = int(streams or STREAMS)
        if self.streams < 1:
            raise OptionError(f"streams per GPU must be at least 1, got {self.streams}")
        self._streams = {}
        self._big = {}  # per device: one batch at a time that takes the whole memory share
        self._lock = threading.Lock()

    @classmethod
    def shared(cls, precision: str = "auto") -> "CupyBackend":
        """One backend per precision for the whole process.

        Its streams (and so the memory pool's blocks cached for them) are
        reused by every call; a new backend per call would leave the pool's
        blocks of the old streams unused.
        """
        with _SHARED_LOCK:
            if precision not in _SHARED:
                _SHARED[precision] = cls(precision=precision)
            return _SHARED[precision]

    def count(self) -> int:
        return int(self._cupy.cuda.runtime.getDeviceCount())

    def context(self, device: int, slot: int = 0):
        """Device ``device`` and its stream number ``slot`` as the current ones.

        The streams live as long as the backend: CuPy's memory pool keeps
        freed blocks per stream, so fresh streams for every call would never
        reuse them.
        """
        cupy = self._cupy
        key = (device, slot)
        with self._lock:
            if key not in self._streams:
                with cupy.cuda.Device(device):
                    self._streams[key] = cupy.cuda.Stream(non_blocking=True)
        stack = contextlib.ExitStack()
        stack.enter_context(cupy.cuda.Device(device))
        stack.enter_context(self._streams[key])
        return stack

    def free_bytes(self, device: int) -> int:
        with self._cupy.cuda.Device(device):
            pool = self._cupy.get_default_memory_pool()
            return int(self._cupy.cuda.runtime.memGetInfo()[0] + pool.free_bytes())

    def memory_model(self, seqs) -> plan.MemoryModel:
        return plan.memory_model("gpu", sequence_bytes=seqs.codes.nbytes + seqs.offsets.nbytes)

    def score(self, seqs, trip, mode: int, scoring, out, *, pruning: str = "auto",
              work=None) -> None:
        """Scores on the current device and stream (see :meth:`context`); global affine
        triplets by the bound-pruned path unless ``pruning="off"``
        (:mod:`trimsa.triplet._gpu_pruned`), ``work`` counting the cells swept.

        A batch plans its face buffers within its stream's share of the free
        memory (``MEM_FRACTION / streams``). One whose buffers need more
        (very long sequences on a small GPU) is planned again with the whole
        ``MEM_FRACTION``, one such batch at a time per device, so that
        running several streams never turns a batch that one stream could
        score into an error.
        """
        frac = self._gpu.MEM_FRACTION
        from . import pruned

        if pruned.applies(mode, scoring, pruning):
            from . import _gpu_pruned

            _gpu_pruned.score_triplets(seqs, trip, scoring, out=out, precision=self.precision,
                                       mem_fraction=frac / self.streams, work=work)
            return
        if work is not None:
            cube = pruned.cube_cells(seqs.lengths, trip)
            work.add(triplets=trip.shape[0], cube_cells=cube.sum(), swept_cells=cube.sum(),
                     full=trip.shape[0])
        if not scoring.linear:
            from . import _gpu_affine

            _gpu_affine.score_triplets(seqs, trip, mode, scoring, out=out, precision=self.precision,
                                       mem_fraction=frac / self.streams)
            return
        try:
            self._gpu.score_triplets(seqs, trip, mode, scoring, out=out, precision=self.precision,
                                     mem_fraction=frac / self.streams)
            return
        except self._gpu.ScratchBudgetError:
            if self.streams == 1:
                raise
        dev = self._cupy.cuda.Device().id
        with self._lock:
            big = self._big.setdefault(dev, threading.Lock())
        with big:
            self._gpu.score_triplets(seqs, trip, mode, scoring, out=out, precision=self.precision,
                                     mem_fraction=frac)


class _Feed:
    """Index arrays for the device threads, filled while they run.

    Each device has its own queue (the static schemes put its pieces
    there); the dynamic scheme puts chunks in one queue shared by all
    (``dev=None``). A thread takes from its device's queue first; when that
    is empty it takes a whole chunk from the shared queue and cuts it into
    ``pieces`` strided pieces, keeping one and queueing the rest for the
    other threads of its device (only pieces of at least ``min_piece``
    triplets: a GPU runs a few large launches better than many small ones
    side by side). So a device takes one chunk at a time,
    whatever its number of threads (a device's second thread must not take
    a chunk that another device is waiting for). :meth:`take` waits for
    work until :meth:`close`; :meth:`abort` empties the queues and wakes
    every thread.
    """

    def __init__(self, devs, pieces: int = 1, min_piece: int = 1):
        self.min_piece = max(1, int(min_piece))
        self.cv = threading.Condition()
        self.common = deque()
        self.queues = {d: deque() for d in devs}
        self.busy = {d: 0 for d in devs}  # items taken and not yet done, per device
        self.pieces = max(1, int(pieces))
        self.closed = False

    def put(self, dev, idx) -> None:
        with self.cv:
            (self.common if dev is None else self.queues[dev]).append(idx)
            self.cv.notify_all()

    def close(self) -> None:
        with self.cv:
            self.closed = True
            self.cv.notify_all()

    def abort(self) -> None:
        with self.cv:
            self.common.clear()
            for q in self.queues.values():
                q.clear()
            self.closed = True
            self.cv.notify_all()

    def _may_share(self, dev) -> bool:
        """Whether a thread of ``dev`` may take a chunk from the shared queue now.

        Always when its device is idle; while the device still works on
        something, only if more chunks wait than there are idle devices.
        """
        if not self.common:
            return False
        if self.busy[dev] == 0:
            return True
        return len(self.common) > sum(1 for b in self.busy.values() if b == 0)

    def take(self, dev):
        """Next index array for a thread of ``dev``, or ``None`` when all is done.

        The caller reports each one finished with :meth:`done`.
        """
        with self.cv:
            q = self.queues[dev]
            while not q and not self._may_share(dev) and not (self.closed and not self.common):
                self.cv.wait()
            if q:
                self.busy[dev] += 1
                return q.popleft()
            if not self._may_share(dev):
                return None
            chunk = self.common.popleft()
            n = max(1, min(self.pieces, chunk.size // self.min_piece))
            q.extend(chunk[w::n] for w in range(1, n))
            self.busy[dev] += 1
            self.cv.notify_all()
            return chunk[0::n]

    def done(self, dev) -> None:
        with self.cv:
            self.busy[dev] -= 1
            self.cv.notify_all()


@jit
def _rows(trip, idx):
    """``trip[idx]`` without holding the GIL (the device threads gather at once)."""
    out = np.empty((idx.shape[0], 3), dtype=trip.dtype)
    for r in range(idx.shape[0]):
        out[r, 0] = trip[idx[r], 0]
        out[r, 1] = trip[idx[r], 1]
        out[r, 2] = trip[idx[r], 2]
    return out


def select_devices(gpus, count: int) -> list:
    """Device numbers to use: ``None`` = all ``count`` visible ones, else the given list."""
    if count < 1:
        raise OptionError("no GPU is visible")
    if gpus is None:
        return list(range(count))
    if isinstance(gpus, str):
        gpus = parse_gpus(gpus)
    devs = [int(g) for g in gpus]
    if not devs:
        raise OptionError("the list of GPUs is empty")
    bad = [d for d in devs if d < 0 or d >= count]
    if bad:
        raise OptionError(f"GPU {bad[0]} does not exist; visible GPUs are 0..{count - 1}")
    if len(set(devs)) != len(devs):
        raise OptionError(f"GPU list {devs} names a device twice")
    return devs


def parse_gpus(text: str) -> list:
    """``"0,1"`` -> ``[0, 1]`` (the ``--gpus`` option)."""
    try:
        devs = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise OptionError(f"--gpus takes comma-separated device numbers like 0,1; got {text!r}")
    if not devs:
        raise OptionError("--gpus is empty")
    return devs


def _segments(T: int, P: int, chunks_per_device: int, min_chunk: int) -> list:
    """Index arrays of the segments the dynamic scheme plans one after another.

    One segment per chunk and device (strided slices of the set, alike in
    their mix of lengths), at most ``chunks_per_device``, none giving chunks
    below ``min_chunk``. A large set starts with a small lead segment, every
    :data:`LEAD`-th triplet, so that the devices need not wait for a whole
    segment's costs and partition (0.1 s for 1.7 million triplets on the
    development machine) before they start; the others are strided slices
    of the rest.
    """
    min_chunk = max(1, min_chunk)
    nseg = max(1, min(chunks_per_device, T // (P * min_chunk)))
    stride = min(LEAD, T // (P * min_chunk))
    if nseg == 1 or stride <= nseg:
        return [np.arange(s, T, nseg) for s in range(nseg)]
    lead = np.arange(0, T, stride)
    rest = np.ones(T, dtype=bool)
    rest[lead] = False
    rest = np.flatnonzero(rest)
    return [lead] + [rest[s::nseg] for s in range(nseg)]


def score_on_devices(seqs, trip, mode: int, scoring, *, gpus=None, partition: str = "dynamic",
                     backend=None, rate: plan.Rate | None = None, budget: int | None = None,
                     out: np.ndarray | None = None, chunks_per_device: int = CHUNKS_PER_DEVICE,
                     min_chunk: int = MIN_CHUNK, pruning: str = "auto",
                     work=None) -> np.ndarray:
    """Scores of ``trip`` computed on several devices at once, in input order.

    Parameters
    ----------
    seqs
        A :class:`~trimsa.io.SequenceSet`.
    trip
        ``(T, 3)`` int32 triplet indices (already checked).
    mode
        Mode number (0 global, 1 semiglobal, 2 local).
    scoring
        The :class:`~trimsa.scoring.Scoring`.
    gpus
        Device numbers, or ``None`` for every visible device.
    partition
        ``"dynamic"`` (default), ``"blocked"`` or ``"interleaved"``.
    backend
        Per-device backend (default :class:`CupyBackend`); it needs
        ``count()``, ``context(i)``, ``free_bytes(i)``, ``memory_model(seqs)``
        and ``score(seqs, trip, mode, scoring, out)``.
    rate
        Cost model for the dynamic partition (default: the GPU default).
    budget
        Bytes per device (default :data:`MEMORY_FRACTION` of its free memory).
    out
        Optional ``int64`` output of length ``T``.
    chunks_per_device, min_chunk
        The dynamic scheme cuts the triplets into ``chunks_per_device``
        equal-cost chunks per device (fewer, down to one, so that a chunk
        holds at least ``min_chunk`` triplets), which the devices take from
        one queue, largest first.
    pruning, work
        Passed to the backend's ``score`` where they are not the defaults (``"auto"``,
        ``None``): whether global affine triplets take the bound-pruned path, and a
        :class:`~trimsa.triplet.pruned.Work` that counts the cells swept.
    """
    backend = backend or CupyBackend()
    plan.check_scheme(partition)
    devs = select_devices(gpus, backend.count())
    trip = np.asarray(trip)
    T = trip.shape[0]
    if out is None:
        out = np.empty(T, dtype=np.int64)
    if T == 0:
        return out
    P = len(devs)
    model = backend.memory_model(seqs)
    written = np.zeros(T, dtype=np.int8)
    lock = threading.Lock()

    workers = max(1, int(getattr(backend, "streams", 1)))
    extra = {} if pruning == "auto" else {"pruning": pruning}
    if work is not None:
        extra["work"] = work
    feed = _Feed(devs, pieces=workers, min_piece=min_chunk)

    def run(dev, slot=0):
        ctx = backend.context(dev, slot) if workers > 1 else backend.context(dev)
        with ctx if ctx is not None else contextlib.nullcontext():
            cap = budget if budget is not None else int(backend.free_bytes(dev) * MEMORY_FRACTION)
            cap //= workers
            while (idx := feed.take(dev)) is not None:
                sub = trip if idx.size == T else _rows(trip, idx)
                for sl in plan.memory_batches(seqs.lengths, sub, model, cap):
                    res = np.empty(sl.stop - sl.start, dtype=np.int64)
                    backend.score(seqs, np.ascontiguousarray(sub[sl]), mode, scoring, res,
                                  **extra)
                    pos = idx[sl]
                    with lock:
                        written[pos] += 1
                    out[pos] = res
                feed.done(dev)

    def plan_parts():
        """Fill the feed (on this thread, while the devices already run)."""
        if P == 1 or partition != "dynamic":
            # one part per device (the static schemes need no costs), each cut
            # into a few strided pieces (alike in their mix of lengths) so
            # that its streams overlap and end together
            parts = [np.arange(T)] if P == 1 else plan.partition(np.zeros(T), P, partition)
            for d, part in zip(devs, parts):
                n = max(1, min(2 * workers if workers > 1 else 1, part.size // max(1, min_chunk)))
                for w in range(n):
                    if part[w::n].size:
                        feed.put(d, part[w::n])
        else:
            # equal-cost chunks (LPT) in one shared queue: a device that runs
            # ahead takes more of them. A whole number of chunks per device,
            # so that equal devices end together; planned in interleaved
            # segments so that the devices start on the first segment's
            # chunks while the next segment is planned.
            r = rate or plan.default_rate("gpu")
            segments = _segments(T, P, chunks_per_device, min_chunk)
            for s, seg in enumerate(segments):
                # equal-cost chunks even in the first segment: a chunk that holds
                # all the long triplets (as a round robin over an alternating
                # set would) keeps its device busy while the others finish.
                # The last segment in finer chunks (guided self-scheduling):
                # the tail of the queue is what a slower device can hold up.
                # No chunk below min_chunk (small launches waste the GPU).
                finer = 2 if s == len(segments) - 1 else 1
                k = P * min(finer, max(1, seg.size // (P * max(1, min_chunk))))
                costs = plan.triplet_costs(seqs.lengths, trip[seg], r)
                chunks = plan.dynamic(costs, k)
                chunks.sort(key=lambda c: -costs[c].sum())  # largest first
                for c in chunks:
                    if c.size:
                        feed.put(None, seg[c])
        feed.close()

    if P == 1 and workers == 1:
        plan_parts()
        run(devs[0])
    else:
        errors = []

        def guarded(dev, slot):
            try:
                run(dev, slot)
            except BaseException as exc:  # re-raised in the calling thread
                errors.append(exc)
                feed.abort()  # the others stop after their current batch

        threads = [threading.Thread(target=guarded, args=(d, w), name=f"trimsa-gpu{d}.{w}")
                   for d in devs for w in range(workers)]
        for th in threads:
            th.start()
        try:
            plan_parts()
        except BaseException:
            feed.abort()
            raise
        finally:
            for th in threads:
                th.join()
        if errors:
            raise errors[0]
    if not (written == 1).all():  # pragma: no cover - would be a bug in the partition
        raise AssertionError("internal error: a triplet was scored %s times"
                             % int(written[written != 1][0]))
    return out
