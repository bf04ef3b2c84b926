"""Triplet scoring on a Dask distributed cluster.

``scheduler="local:N"`` starts a :class:`distributed.LocalCluster` of ``N``
worker processes on this machine (``cores // N`` threads each; on a machine
with GPUs, unless ``device="cpu"``, worker ``i`` sees only GPU ``i mod G``
through its ``CUDA_VISIBLE_DEVICES``: one process per GPU);
``scheduler="tcp://HOST:PORT"`` (or any ``scheme://`` address) connects to a
running cluster. Each worker scores with its GPU when it has one, else with
its CPU cores (``device="auto"``, resolved on the worker).

Data flow: the encoded sequences (codes + offsets, a few bytes per residue)
are broadcast once to every worker (:meth:`distributed.Client.scatter`); each
task then carries only an ``(m, 3)`` int32 index array and returns ``m``
int64 scores, which the client writes at their input positions.

Partitions (see :mod:`trimsa.triplet.plan`):

``dynamic`` (default)
    The triplets are cut into ``parts_per_worker x workers`` parts of nearly
    equal estimated cost (LPT, least loaded by cells). Only one part per
    worker is in flight at a time; whenever a part comes back the next one
    (largest first) is submitted and Dask gives it to the idle worker. Many
    smaller parts, rather than the paper's one part per device, make the
    balance hold also when workers differ in speed (GPU and CPU workers,
    shared machines, cost-model errors), and bound the work redone when a
    worker dies to one small part.
``blocked``, ``interleaved``
    The paper's static schemes: one part per worker, each sent to its
    worker (a loose restriction, so that the part moves elsewhere if its
    worker dies).

Failures: Dask reschedules the tasks of a worker that dies; a task that still
fails because its workers keep dying (``KilledWorker``) or because the
connection broke is resubmitted up to ``retries`` times. Every part's scores
are written exactly once, by index, and the client checks that every triplet
was written exactly once before returning.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import uuid
from dataclasses import dataclass

import numpy as np

from ..errors import BackendUnavailableError, OptionError
from ..io import SequenceSet, as_sequence_set
from ..scoring import Scoring, check_mode
from . import backends, plan
from ._checks import all_triplets, check_overflow, check_triplets, scoring_for

#: Parts per worker for the dynamic scheme.
PARTS_PER_WORKER = 4
#: Fraction of a worker's memory limit (or available memory) one part may plan to use.
MEMORY_FRACTION = 0.5
#: How often a part whose worker was lost is resubmitted.
PART_RETRIES = 3


def _require():
    try:
        import distributed
    except ImportError as exc:
        raise BackendUnavailableError(
            "Dask distributed is not installed; install trimsa[dist] "
            "(pip install 'trimsa[dist]') to use --scheduler"
        ) from exc
    return distributed


def parse_scheduler(spec: str) -> tuple:
    """``"local:N"`` -> ``("local", N)``; ``"tcp://host:port"`` -> ``("address", spec)``.

    Examples
    --------
    >>> parse_scheduler("local:4")
    ('local', 4)
    >>> parse_scheduler("tcp://10.0.0.1:8786")
    ('address', 'tcp://10.0.0.1:8786')
    """
    if not isinstance(spec, str) or not spec:
        raise OptionError(f"--scheduler must be local:N or tcp://HOST:PORT, got {spec!r}")
    if spec == "local" or spec.startswith("local:"):
        text = spec[6:] or str(os.cpu_count() or 1)
        try:
            n = int(text)
        except ValueError:
            n = 0
        if n < 1:
            raise OptionError(f"--scheduler local:N needs a positive number of workers, got {spec!r}")
        return ("local", n)
    if "://" in spec:
        host, sep, port = spec.split("://", 1)[1].rpartition(":")
        if host and sep and port.isdigit() and 0 < int(port) < 65536:
            return ("address", spec)
    raise OptionError(f"--scheduler must be local:N or tcp://HOST:PORT, got {spec!r}")


def local_gpu_ids() -> list:
    """The GPUs of this machine as ``CUDA_VISIBLE_DEVICES`` names, or ``[]`` (none, or no CuPy).

    Honours a ``CUDA_VISIBLE_DEVICES`` already set for this process (numbers
    or UUIDs).
    """
    from . import _gpu

    if _gpu.available() is None:
        return []
    import cupy

    count = int(cupy.cuda.runtime.getDeviceCount())
    given = [x.strip() for x in os.environ.get("CUDA_VISIBLE_DEVICES", "").split(",") if x.strip()]
    return given[:count] if given else [str(i) for i in range(count)]


def _pinned_cluster(distributed, gpu_ids: list, **options):
    """A local cluster whose worker ``i`` sees only GPU ``gpu_ids[i % len(gpu_ids)]``.

    One process per GPU: each worker's CUDA context, host threads and GIL
    are its own. Workers are added with ``scale``; each new worker's nanny
    starts its process with ``CUDA_VISIBLE_DEVICES`` set.
    """
    import copy

    class PinnedCluster(distributed.LocalCluster):
        def new_worker_spec(self):
            ((name, spec),) = super().new_worker_spec().items()
            spec = copy.deepcopy(spec)
            opts = spec.setdefault("options", {})
            env = dict(opts.get("env") or {})
            env["CUDA_VISIBLE_DEVICES"] = gpu_ids[int(name) % len(gpu_ids)]
            opts["env"] = env
            return {name: spec}

    return PinnedCluster(n_workers=0, **options)


@contextlib.contextmanager
def connect(scheduler, *, timeout: float = 60, gpu_ids=None, device: str | None = None):
    """A :class:`distributed.Client` for ``scheduler`` (closed on exit unless passed in).

    ``scheduler`` is ``"local:N"``, an address, or an existing ``Client``.
    ``gpu_ids`` (local clusters only): pin worker ``i`` to GPU
    ``gpu_ids[i % len(gpu_ids)]`` through its ``CUDA_VISIBLE_DEVICES``; by
    default, when the workers' ``device`` is given and is not ``"cpu"``, the
    GPUs of this machine (:func:`local_gpu_ids`): one worker per GPU.
    """
    distributed = _require()
    if isinstance(scheduler, distributed.Client):
        yield scheduler
        return
    kind, value = parse_scheduler(scheduler)
    if kind == "local" and gpu_ids is None and device not in (None, "cpu"):
        gpu_ids = local_gpu_ids() or None
    if kind == "local":
        cores = os.cpu_count() or 1
        options = dict(threads_per_worker=max(1, cores // value), processes=True,
                       dashboard_address=":0", silence_logs=logging.ERROR)
        if gpu_ids:
            cluster = _pinned_cluster(distributed, list(gpu_ids), **options)
            cluster.scale(value)
        else:
            cluster = distributed.LocalCluster(n_workers=value, **options)
        try:
            with distributed.Client(cluster) as client:
                client.wait_for_workers(value, timeout=timeout)
                yield client
        finally:
            cluster.close()
        return
    try:
        client = distributed.Client(value, timeout=timeout)
    except (OSError, ValueError) as exc:
        raise OptionError(f"cannot reach the Dask scheduler at {value}: {exc}") from exc
    try:
        client.wait_for_workers(1, timeout=timeout)
        yield client
    finally:
        client.close()


# -- the worker side ----------------------------------------------------------------

@dataclass(frozen=True)
class Payload:
    """The encoded sequences as they travel to the workers."""

    token: str
    codes: np.ndarray
    offsets: np.ndarray
    alphabet: object


_LOCAL = {"seqs": {}, "device": {}}
_LOCK = threading.Lock()  # one part at a time per worker process (numba threads, GPU)


def _worker_seqs(payload: Payload):
    """A :class:`~trimsa.io.SequenceSet` rebuilt from the payload, cached per worker."""
    cache = _LOCAL["seqs"]
    seqs = cache.get(payload.token)
    if seqs is None:
        n = payload.offsets.shape[0] - 1
        letters = np.frombuffer(payload.alphabet.letters.encode("ascii"), dtype=np.uint8)
        text = letters[payload.codes].tobytes().decode("ascii")
        off = payload.offsets
        names = tuple(f"s{i}" for i in range(n))
        seqs = SequenceSet(names=names, descriptions=names,
                           sequences=tuple(text[off[i]:off[i + 1]] for i in range(n)),
                           alphabet=payload.alphabet, codes=payload.codes, offsets=off,
                           source="<distributed>")
        cache.clear()
        cache[payload.token] = seqs
    return seqs


def worker_threads() -> int:
    """The threads of this Dask worker (0 outside one: all cores)."""
    try:
        from distributed import get_worker

        return int(get_worker().state.nthreads)
    except (ImportError, ValueError, AttributeError):
        return 0


def _worker_budget(device: str) -> int:
    """Bytes one part may plan to use on this worker."""
    if device == "gpu":
        import cupy

        return int(cupy.cuda.runtime.memGetInfo()[0] * MEMORY_FRACTION)
    limit = 0
    with contextlib.suppress(ImportError, ValueError, AttributeError):
        from distributed import get_worker

        limit = int(get_worker().memory_manager.memory_limit or 0)
    if not limit:
        import psutil

        limit = int(psutil.virtual_memory().available)
    return int(limit * MEMORY_FRACTION)


def score_part(seqs, trip, mode: str, scoring, device: str, threads: int) -> np.ndarray:
    """Score one part on this process's device, in memory-bounded batches."""
    dev = _LOCAL["device"].get(device)
    if dev is None:
        dev = _LOCAL["device"][device] = backends.resolve_device(device, announce=False)
    m = check_mode(mode)
    scoring = scoring_for(seqs, scoring)
    threads = threads or worker_threads()
    seq_bytes = seqs.codes.nbytes + seqs.offsets.nbytes
    model = plan.memory_model(dev, threads=max(1, threads), sequence_bytes=seq_bytes)
    out = np.empty(trip.shape[0], dtype=np.int64)
    for sl in plan.memory_batches(seqs.lengths, trip, model, _worker_budget(dev)):
        backends.score(seqs, trip[sl], m, scoring, dev, out[sl], threads=threads)
    return out


def _score_task(payload: Payload, trip: np.ndarray, mode: str, scoring, device: str,
                threads: int, scorer) -> np.ndarray:
    """The work of one part of :func:`score_triplets_distributed`: its scores."""
    seqs = _worker_seqs(payload)
    scores = np.asarray((scorer or score_part)(seqs, trip, mode, scoring, device, threads),
                        dtype=np.int64)
    if scores.shape != (trip.shape[0],):
        raise RuntimeError(f"{scores.shape[0]} scores for {trip.shape[0]} triplets")
    return scores


def _run_task(payload, part: int, items, task, args) -> tuple:
    """The Dask task of :func:`run_parts`: ``(part, task(payload, items, *args))``, one at a
    time per worker process."""
    with _LOCK:
        return part, task(payload, items, *args)


def _worker_device(device: str) -> str:
    return backends.resolve_device(device, announce=False)


def describe_workers(client, device: str) -> str:
    """How a stage run on the workers of ``client`` names where it ran."""
    n = len(client.scheduler_info()["workers"])
    return f"{n} Dask worker{'s' if n != 1 else ''} ({device})"


def cluster_rate(client, device: str, engine: str = "exact") -> float:
    """Cells per second of the exact engine (``"exact"``: linear gaps, ``"affine"``) on
    all the workers of ``client`` together, each on ``device`` as it resolves it
    (:data:`trimsa.triplet.plan.RATES`, a CPU's times the worker's threads)."""
    devices = client.run(_worker_device, device)
    info = client.scheduler_info()["workers"]
    return float(sum(plan.default_rate(dev, int(info[w]["nthreads"]), engine).cells_per_s
                     for w, dev in devices.items()))


# -- the client side ------------------------------------------------------------------

def _lost(exc: BaseException) -> bool:
    """Whether ``exc`` means a worker or connection was lost (worth resubmitting)."""
    names = {type(e).__name__ for e in (exc, exc.__cause__, exc.__context__) if e is not None}
    return bool(names & {"KilledWorker", "CommClosedError", "FutureCancelledError",
                         "CancelledError", "StreamClosedError"})


def run_parts(client, payload, items, order, task, args, store, *, pinned=None,
              in_flight: int, retries: int = PART_RETRIES) -> None:
    """Run ``task(payload, items(p), *args)`` for every part ``p`` of ``order`` on the
    cluster of ``client`` and hand each result to ``store(p, result)`` (in the order
    they come back; each part exactly once).

    ``payload`` is broadcast to every worker once (again if the workers lose it);
    at most ``in_flight`` parts run at a time, submitted in ``order`` as others
    come back, so that an idle worker takes the next; ``pinned`` maps parts to
    the worker they should run on (a loose restriction). A part whose worker or
    connection was lost is resubmitted up to ``retries`` times; any other error
    is raised, and nothing of this call is left running on the cluster.
    ``task`` must be importable on the workers (a module-level function).
    """
    distributed = _require()
    pinned = pinned or {}
    shared = {"data": None}

    def data():
        # (re)broadcast the payload when no worker holds it any more
        if shared["data"] is None or shared["data"].status != "finished":
            [shared["data"]] = client.scatter([payload], broadcast=True, hash=False)
        return shared["data"]

    tries = {p: 0 for p in order}
    part_of = {}
    ac = distributed.as_completed()
    inflight = set()

    def submit(p):
        kw = {}
        if p in pinned:
            kw = {"workers": [pinned[p]], "allow_other_workers": True}
        key = f"trimsa-part-{p}-{uuid.uuid4().hex}"
        part_of[key] = p
        fut = client.submit(_run_task, data(), p, items(p), task, args, pure=False, key=key,
                            **kw)
        inflight.add(fut)
        ac.add(fut)

    pending = list(order)
    try:
        for _ in range(min(in_flight, len(pending))):
            submit(pending.pop(0))
        for fut in ac:
            inflight.discard(fut)
            try:
                p, result = fut.result()
            except Exception as exc:
                p = part_of[fut.key]
                if not _lost(exc) or tries[p] >= retries:
                    raise
                tries[p] += 1
                fut.release()
                submit(p)
                continue
            fut.release()
            store(p, result)
            if pending:
                submit(pending.pop(0))
    finally:
        # on an error, leave nothing running on a shared cluster
        client.cancel([f for f in [*inflight, shared["data"]] if f is not None])


def score_triplets_distributed(seqs, triplets=None, *, mode: str = "global", scoring=None,
                               scheduler="local:2", partition: str = "dynamic",
                               device: str = "auto", threads: int = 0,
                               parts_per_worker: int = PARTS_PER_WORKER, retries: int = PART_RETRIES,
                               rate: plan.Rate | None = None, scorer=None) -> np.ndarray:
    """Exact 3-way scores of many triplets on a Dask cluster, in input order.

    Parameters
    ----------
    seqs, triplets, mode, scoring
        As for :func:`trimsa.triplet.score_triplets`.
    scheduler
        ``"local:N"`` (a local cluster of ``N`` worker processes), a
        scheduler address such as ``"tcp://host:8786"``, or a
        :class:`distributed.Client`.
    partition
        ``"dynamic"`` (default), ``"blocked"`` or ``"interleaved"``.
    device
        What each worker uses: ``"auto"`` (its GPU when CuPy sees one, else
        its CPU cores), ``"cpu"`` or ``"gpu"``.
    threads
        CPU threads per worker (0 = the worker's thread count).
    parts_per_worker
        Parts per worker of the dynamic scheme.
    retries
        How often a part whose worker was lost is resubmitted.
    rate
        Cost model of the dynamic partition (default: that of ``device``).
    scorer
        Replaces :func:`score_part` on the workers (tests); called as
        ``scorer(seqs, trip, mode, scoring, device, threads)``.

    Returns
    -------
    numpy.ndarray
        ``int64`` scores, one per triplet, in the order given.
    """
    _require()
    seqs = as_sequence_set(seqs, scoring.alphabet if isinstance(scoring, Scoring) else None)
    check_mode(mode)
    plan.check_scheme(partition)
    backends.check_device(device)
    if parts_per_worker < 1 or retries < 0:
        raise OptionError("parts_per_worker must be >= 1 and retries >= 0")
    sc = scoring_for(seqs, scoring)
    if triplets is None:
        seqs.require(3, "triplet scoring")
        trip = all_triplets(len(seqs))
    else:
        trip = check_triplets(triplets, len(seqs))
    check_overflow(seqs, sc)
    T = trip.shape[0]
    out = np.empty(T, dtype=np.int64)
    if T == 0:
        return out
    # a local cluster on a GPU machine: one worker process per GPU (round robin)
    with connect(scheduler, device=device) as client:
        workers = sorted(client.scheduler_info()["workers"])
        if not workers:
            raise OptionError("the Dask cluster has no workers")
        W = len(workers)
        if rate is None:
            rate = plan.default_rate("cpu" if device == "cpu" else "gpu")
        costs = plan.triplet_costs(seqs.lengths, trip, rate)
        if partition == "dynamic":
            parts = plan.dynamic(costs, min(T, W * parts_per_worker))
            order = sorted(range(len(parts)), key=lambda p: -costs[parts[p]].sum())
            pinned = {}
        else:
            parts = plan.partition(costs, W, partition)
            order = list(range(W))
            pinned = {p: workers[p] for p in order}
        payload = Payload(uuid.uuid4().hex, seqs.codes, seqs.offsets, seqs.alphabet)
        written = np.zeros(T, dtype=np.int8)

        def store(p, scores):
            written[parts[p]] += 1
            out[parts[p]] = scores

        run_parts(client, payload, lambda p: trip[parts[p]], order, _score_task,
                  (mode, sc, device, threads, scorer), store, pinned=pinned,
                  in_flight=W if partition == "dynamic" else len(order), retries=retries)
    if not (written == 1).all():  # pragma: no cover - would be a bug here or in the partition
        raise AssertionError("internal error: a triplet's score was written %d times"
                             % int(written[written != 1][0]))
    return out
