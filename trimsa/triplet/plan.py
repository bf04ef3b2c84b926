"""Planning triplet work: cost model, partitions over devices, memory-bounded batches.

Cost model
    Scoring one triplet sweeps ``|A|·|B|·|C|`` DP cells (:func:`triplet_cells`);
    a device does that at ``cells_per_s`` and pays ``overhead_s`` per triplet
    on top (launch share, index and output traffic, the DP's borders). The
    estimated time of a triplet is ``cells / cells_per_s + overhead_s``
    (:class:`Rate`). Defaults live in :data:`RATES`;
    :func:`calibrate` measures a device's own rate on a sample.

Partitions (:func:`partition`) split a triplet set into ``P`` parts and
return, for each part, the ascending indices of its triplets:

``blocked``
    ``P`` contiguous runs of (nearly) equal count.
``interleaved``
    round robin: triplet ``t`` goes to part ``t mod P``.
``dynamic``
    least loaded by estimated cost. Triplets are taken in order of
    decreasing cost (LPT, longest processing time first) and each goes to
    the part with the least cost so far. See :func:`dynamic` for why LPT
    rather than the paper's input order.

Memory-bounded batches (:func:`memory_batches`) cut the triplets one device
scores into consecutive batches whose memory (indices, outputs and the
kernel's working memory, from :func:`memory_model` of the backend) stays
within a budget.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable, Literal

import numpy as np

from .._numba import jit
from ..errors import OptionError

Scheme = Literal["dynamic", "blocked", "interleaved"]
SCHEMES = ("dynamic", "blocked", "interleaved")


@dataclass(frozen=True)
class Rate:
    """Throughput of one device: DP cells per second and a fixed cost per triplet.

    Attributes
    ----------
    cells_per_s
        Cells (``|A|·|B|·|C|``) scored per second on large triplets.
    overhead_s
        Extra seconds per triplet, whatever its size.
    """

    cells_per_s: float
    overhead_s: float = 0.0

    def __post_init__(self):
        if not self.cells_per_s > 0 or self.overhead_s < 0:
            raise OptionError(f"invalid rate: {self.cells_per_s} cells/s, {self.overhead_s} s overhead")

    def seconds(self, cells) -> np.ndarray:
        """Estimated seconds for triplets of ``cells`` cells each."""
        return np.asarray(cells, dtype=np.float64) / self.cells_per_s + self.overhead_s


#: The one table of engine throughputs, keyed by ``(device, engine)``: cells
#: per second per CPU thread (the CPU kernels) or per whole GPU, and a cost
#: per triplet. ``engine`` is ``"exact"`` (the exact 3-way engine, linear gaps),
#: ``"affine"`` (the same engine, affine gaps), ``"band"`` or ``"band-affine"`` (the
#: banded 3-way kernel of :mod:`trimsa.triplet.banded`, linear or affine gaps). The sampled
#: guide-tree designs turn their time budget into cells with it
#: (:func:`trimsa.tree.distances.triplet_distances`); constants, not a
#: run-time calibration, keep those designs (hence the trees) deterministic.
#: The partitions use it as a cost model (only ratios matter there).
#: The CPU figures come from ``eval/tree_speed.py`` on the loaded 2-core
#: development machine (``eval/results/tree_speed.md``); the GPU one is the
#: TrioSeq paper's rate for lengths 256-1024, below what trimsa's kernels
#: measure (``eval/results/bench_kernels.md``): :func:`calibrate`
#: measures a device's own rate. The affine ones: the CPU engine scored 2.2e7 cells
#: per second on one thread of the 2-core development machine (L = 150, DNA -3 / -1,
#: 2026-11-28), and the H100's affine score sweeps run at 0.06-0.2 TCUPS
#: (``eval/results/bench_affine.md``). The banded affine 3-way kernel ran at 2.1-3.5e7
#: cells per second there, a fifth of the linear one's 1.0-1.7e8 in the same run
#: (``eval/experiments/2026-11-28-cpu-affine-tree/rates.log``); its rate is the linear
#: band's divided by five. ``band-pair`` is the banded pairwise kernel of the sampled
#: designs' prior (both gap models): 1.7e8 cells per second per thread on 1 and 2
#: threads there, for L = 300 and 600 (``eval/experiments/2026-11-29-partial-prior/
#: pair_rate.log``), taken at 1e8; on the GPU (one thread per pair,
#: :mod:`trimsa.triplet._gpu_band`) 6.6e10 cells per second on an H200 for the 4.5 million
#: pairs of 3,000 sequences of about 400 residues (``eval/results/gpu_tests.md``,
#: 2026-11-29 10:05), taken at 2e10.
#: ``affine-pruned`` is the exact affine engine on bound-pruned cubes (global mode,
#: :mod:`trimsa.triplet.pruned`), in cube cells per second; what it sweeps follows how
#: related a triplet is. CPU: 1.4e9-9.2e9 per thread on sampled
#: guide-tree designs of nine tune sets (2.5e8-6.6e9 on random triplets), taken at 3e9,
#: about the designs' lower quartile. GPU: 1.1e11-7.7e11 on an H100 for designs of a 0.5 s
#: budget on ten tune sets (0.56-1.3e12 on an H200 for all triplets of 128 sequences), taken
#: at 2e11. The measurements: docs/tree.md, section 4.
RATES = {
    ("cpu", "exact"): Rate(cells_per_s=4e7, overhead_s=2e-6),
    ("cpu", "band"): Rate(cells_per_s=5e7),
    ("cpu", "band-affine"): Rate(cells_per_s=1e7),
    ("cpu", "band-pair"): Rate(cells_per_s=1e8),
    ("gpu", "exact"): Rate(cells_per_s=5e11, overhead_s=2e-8),
    ("cpu", "affine"): Rate(cells_per_s=2e7, overhead_s=2e-6),
    ("gpu", "affine"): Rate(cells_per_s=1e11, overhead_s=2e-8),
    ("gpu", "band-pair"): Rate(cells_per_s=2e10),
    ("cpu", "affine-pruned"): Rate(cells_per_s=3e9, overhead_s=2e-6),
    ("gpu", "affine-pruned"): Rate(cells_per_s=2e11, overhead_s=2e-8),
}


def default_rate(device: str, threads: int = 1, engine: str = "exact") -> Rate:
    """The :class:`Rate` of ``engine`` on ``device`` (a CPU's scales with ``threads``)."""
    key = (device, engine)
    if key not in RATES:
        known = ", ".join(f"{d}/{e}" for d, e in RATES)
        raise OptionError(f"no rate for the {engine} engine on {device!r}; known: {known}")
    r = RATES[key]
    if device == "cpu" and threads > 1:
        return Rate(r.cells_per_s * threads, r.overhead_s / threads)
    return r


def triplet_lengths(lengths, trip) -> np.ndarray:
    """``(T, 3)`` int64 lengths of each triplet's sequences."""
    lengths = np.asarray(lengths, dtype=np.int64)
    trip = np.asarray(trip)
    if trip.size == 0:
        return np.zeros((0, 3), dtype=np.int64)
    return lengths[trip]


def triplet_cells(lengths, trip) -> np.ndarray:
    """DP cells ``|A|·|B|·|C|`` of each triplet (``int64``).

    Examples
    --------
    >>> triplet_cells([2, 3, 4, 5], [[0, 1, 2], [1, 2, 3]]).tolist()
    [24, 60]
    """
    L = triplet_lengths(lengths, trip)
    return L[:, 0] * L[:, 1] * L[:, 2]


def triplet_costs(lengths, trip, rate: Rate | None = None) -> np.ndarray:
    """Estimated seconds of each triplet under ``rate`` (default: the exact engine on a GPU)."""
    rate = rate or RATES[("gpu", "exact")]
    return rate.seconds(triplet_cells(lengths, trip))


def calibrate(score: Callable[[np.ndarray], object], lengths, trip, *, sample: int = 4096,
              groups: int = 4, clock=time.perf_counter) -> Rate:
    """Measure a device's :class:`Rate` by scoring a sample of ``trip``.

    The sample (up to ``sample`` triplets spread over ``trip``) is sorted by
    cells and cut into ``groups`` groups of equal count; each group is
    scored once (after a small warm-up call) and timed. A least-squares fit
    of ``time = cells / cells_per_s + count * overhead_s`` over the groups
    gives the rate; the overhead is clamped at 0.

    Parameters
    ----------
    score
        Scores an ``(m, 3)`` index array on the device (its result is ignored).
    lengths
        Sequence lengths.
    trip
        The triplets the rate is for (a representative sample is taken).
    """
    trip = np.asarray(trip)
    if trip.shape[0] == 0:
        raise OptionError("cannot calibrate on an empty triplet set")
    pick = np.unique(np.linspace(0, trip.shape[0] - 1, min(sample, trip.shape[0])).astype(np.int64))
    sub = trip[pick]
    cells = triplet_cells(lengths, sub)
    order = np.argsort(cells, kind="stable")
    score(sub[order[:min(8, order.size)]])  # warm-up: compilation, uploads
    rows, times = [], []
    for g in np.array_split(order, min(groups, order.size)):
        t0 = clock()
        score(sub[g])
        times.append(clock() - t0)
        rows.append((float(cells[g].sum()), float(g.size)))
    A = np.array(rows)
    t = np.array(times)
    coef = np.linalg.lstsq(A, t, rcond=None)[0] if len(rows) > 1 else np.array([t[0] / A[0, 0], 0.0])
    per_cell, overhead = float(coef[0]), max(0.0, float(coef[1]))
    if not per_cell > 0:  # degenerate fit (all groups alike): no overhead term
        per_cell, overhead = float(t.sum() / A[:, 0].sum()), 0.0
    return Rate(cells_per_s=1.0 / per_cell, overhead_s=overhead)


# -- partitions -----------------------------------------------------------------

def check_scheme(scheme: str) -> str:
    if scheme not in SCHEMES:
        raise OptionError(f"unknown partition {scheme!r}; choose one of: {', '.join(SCHEMES)}")
    return scheme


def _check_parts(parts: int) -> int:
    if int(parts) != parts or parts < 1:
        raise OptionError(f"number of parts must be a positive integer, got {parts}")
    return int(parts)


def blocked(count: int, parts: int) -> list:
    """``parts`` contiguous runs of ``0..count-1`` whose sizes differ by at most one.

    Examples
    --------
    >>> [p.tolist() for p in blocked(5, 2)]
    [[0, 1, 2], [3, 4]]
    """
    parts = _check_parts(parts)
    return [np.asarray(p, dtype=np.int64) for p in np.array_split(np.arange(count), parts)]


def interleaved(count: int, parts: int) -> list:
    """Round robin: part ``p`` holds ``p, p + parts, p + 2 parts, ...``.

    Examples
    --------
    >>> [p.tolist() for p in interleaved(5, 2)]
    [[0, 2, 4], [1, 3]]
    """
    parts = _check_parts(parts)
    return [np.arange(p, count, parts, dtype=np.int64) for p in range(parts)]


@jit
def _greedy_owner(costs, parts):
    """Give each item, in turn, to the part of least load (binary min-heap)."""
    owner = np.empty(costs.shape[0], dtype=np.int64)
    heap_load = np.zeros(parts, dtype=np.float64)
    heap_part = np.arange(parts)
    for t in range(costs.shape[0]):
        p = heap_part[0]
        owner[t] = p
        heap_load[0] += costs[t]
        # sift the root down; ties go to the lower part number
        i = 0
        while True:
            lft = 2 * i + 1
            if lft >= parts:
                break
            c = lft
            rgt = lft + 1
            if rgt < parts and (heap_load[rgt] < heap_load[lft] or (
                    heap_load[rgt] == heap_load[lft] and heap_part[rgt] < heap_part[lft])):
                c = rgt
            if heap_load[c] < heap_load[i] or (heap_load[c] == heap_load[i]
                                               and heap_part[c] < heap_part[i]):
                heap_load[c], heap_load[i] = heap_load[i], heap_load[c]
                heap_part[c], heap_part[i] = heap_part[i], heap_part[c]
                i = c
            else:
                break
    return owner


@jit
def _bucket(owner, parts):
    """Indices grouped by owner, ascending within each group (a counting sort)."""
    start = np.zeros(parts + 1, dtype=np.int64)
    for t in range(owner.shape[0]):
        start[owner[t] + 1] += 1
    for p in range(parts):
        start[p + 1] += start[p]
    fill = start[:-1].copy()
    order = np.empty(owner.shape[0], dtype=np.int64)
    for t in range(owner.shape[0]):
        p = owner[t]
        order[fill[p]] = t
        fill[p] += 1
    return order, start


def groups_of(owner: np.ndarray, parts: int) -> list:
    """Ascending index arrays of the items of each part, from an owner array."""
    order, start = _bucket(np.ascontiguousarray(owner, dtype=np.int64), int(parts))
    return [order[start[p]:start[p + 1]] for p in range(parts)]


#: Buckets per octave of the LPT order (costs within 0.3% of each other may swap).
LPT_RESOLUTION = 256


def lpt_order(costs) -> np.ndarray:
    """Indices by decreasing cost; ties (and costs within 0.3%) keep input order.

    Costs are bucketed on a log scale (:data:`LPT_RESOLUTION` buckets per
    octave below the largest cost, 16-bit keys) so that a stable radix sort
    orders millions of triplets in linear time.
    """
    costs = np.asarray(costs, dtype=np.float64)
    if costs.size == 0:
        return np.zeros(0, dtype=np.int64)
    top = costs.max()
    with np.errstate(divide="ignore", invalid="ignore"):
        depth = (np.log2(top) - np.log2(costs)) * LPT_RESOLUTION if top > 0 else np.zeros_like(costs)
    key = np.clip(np.nan_to_num(depth, nan=65535.0, posinf=65535.0), 0, 65535).astype(np.uint16)
    return np.argsort(key, kind="stable").astype(np.int64)


def dynamic(costs, parts: int, *, order: Literal["lpt", "input"] = "lpt") -> list:
    """Least-loaded partition by cost.

    Each triplet goes to the part whose summed cost is least so far.
    ``order="lpt"`` (default) hands them out by decreasing cost; ``"input"``
    in the order given, as the TrioSeq paper does. Both keep every part
    within the largest single cost of the least loaded one (a triplet only
    joins a part that was the least loaded when it arrived). LPT also makes
    the last triplets to be placed the smallest ones, so the spread is
    usually far below that bound (and its makespan within about 4/3 of the
    optimum),
    and every part receives a similar mix of sizes, which makes the balance
    robust to errors of the cost model (e.g. a GPU that is faster per cell
    on short triplets than on long ones). It costs one linear-time sort
    (:func:`lpt_order`).

    Indices within each part are ascending (input order).
    """
    parts = _check_parts(parts)
    costs = np.ascontiguousarray(costs, dtype=np.float64)
    if order == "lpt":
        seq = lpt_order(costs)
    elif order == "input":
        seq = np.arange(costs.shape[0])
    else:
        raise OptionError(f"unknown order {order!r}; choose 'lpt' or 'input'")
    # every triplet adds at least a hair to its part's load, so that free
    # triplets (empty sequences, no overhead) are spread too
    top = float(costs.max()) if costs.size else 0.0
    eff = costs + (top * 1e-12 if top > 0 else 1.0)
    # the greedy runs over the costs in their order of arrival, stored
    # contiguously (random access into the costs would dominate its time)
    seq = seq.astype(np.int64)
    owner = np.empty(costs.shape[0], dtype=np.int64)
    owner[seq] = _greedy_owner(eff[seq], parts)
    return groups_of(owner, parts)


def partition(costs, parts: int, scheme: Scheme = "dynamic") -> list:
    """Split triplets of the given ``costs`` into ``parts`` parts by ``scheme``.

    Returns a list of ``parts`` ascending ``int64`` index arrays that together
    hold every index ``0..len(costs)-1`` exactly once (a part may be empty).
    """
    check_scheme(scheme)
    costs = np.asarray(costs)
    if scheme == "blocked":
        return blocked(costs.shape[0], parts)
    if scheme == "interleaved":
        return interleaved(costs.shape[0], parts)
    return dynamic(costs, parts)


def loads(costs, parts: list) -> np.ndarray:
    """Summed cost of each part."""
    costs = np.asarray(costs, dtype=np.float64)
    return np.array([costs[p].sum() for p in parts])


# -- memory ---------------------------------------------------------------------

@dataclass(frozen=True)
class MemoryModel:
    """Bytes a backend needs to score a batch of triplets.

    A batch of triplets with per-triplet bytes ``per`` and working bytes
    ``work`` needs ``fixed + sum(per) + min(concurrent, n) * max(work)``:
    ``per`` stays for every triplet of the batch (indices, outputs, per-triplet
    device state), ``work`` is held by each of at most ``concurrent``
    triplets scored at once (DP planes); ``fixed`` is what the device keeps
    for the whole run (the encoded sequences). ``per`` may be a number (the
    same for every triplet) and ``work`` ``None`` (none): then batches are
    cut without looking at the lengths.
    """

    per: Callable[[np.ndarray], np.ndarray] | int
    work: Callable[[np.ndarray], np.ndarray] | None
    concurrent: int
    fixed: int = 0

    def uniform(self) -> bool:
        return not callable(self.per) and self.work is None


#: Bytes of one triplet's indices (3 x int32) and score (int64).
INDEX_OUT_BYTES = 3 * 4 + 8
#: Device bytes per triplet of the GPU kernels besides indices and score
#: (slot row 3 x int32, output position, 32-bit result, with room to spare).
GPU_TRIPLET_BYTES = 32


def _planes_bytes(lens3: np.ndarray, planes: int) -> np.ndarray:
    """``planes`` int32 planes of the two longer sequences, ``(mid+1)·(max+1)`` cells."""
    a, b, c = lens3[:, 0], lens3[:, 1], lens3[:, 2]
    hi = np.maximum(np.maximum(a, b), c)
    mid = a + b + c - hi - np.minimum(np.minimum(a, b), c)
    return planes * 4 * (mid + 1) * (hi + 1)


def memory_model(backend: str, *, threads: int = 1, sequence_bytes: int = 0) -> MemoryModel:
    """The :class:`MemoryModel` of ``"cpu"`` or ``"gpu"``.

    CPU (``trimsa.triplet._cpu.score_batch``): indices and outputs per
    triplet; each of ``8 · threads`` chunks holds two int32 planes of its
    largest triplet, so ``concurrent = 8 · threads``.

    GPU: per triplet the indices and score plus :data:`GPU_TRIPLET_BYTES` on
    the device (its slot row, output position and 32-bit result); the DP
    scratch is sized by :mod:`trimsa.triplet._gpu` itself, from the memory
    left free, and is not charged here.
    """
    per = lambda lens3: np.full(lens3.shape[0], INDEX_OUT_BYTES, dtype=np.int64)  # noqa: E731
    if backend == "cpu":
        return MemoryModel(per=per, work=lambda l3: _planes_bytes(l3, 2),
                           concurrent=8 * max(1, threads), fixed=sequence_bytes)
    if backend == "gpu":
        return MemoryModel(per=INDEX_OUT_BYTES + GPU_TRIPLET_BYTES, work=None, concurrent=0,
                           fixed=sequence_bytes)
    raise OptionError(f"no memory model for backend {backend!r}; choose 'cpu' or 'gpu'")


@jit
def _cut_batches(per, work, concurrent, budget, max_count):
    """Greedy cut points: extend a batch while its bytes stay within ``budget``."""
    T = per.shape[0]
    cuts = np.empty(T + 1, dtype=np.int64)
    nc = 0
    cuts[nc] = 0
    nc += 1
    used = 0.0
    wmax = 0.0
    n = 0
    for t in range(T):
        w = max(wmax, float(work[t]))
        need = used + per[t] + min(concurrent, n + 1) * w
        if n > 0 and (need > budget or n >= max_count):
            cuts[nc] = t
            nc += 1
            used = 0.0
            wmax = 0.0
            n = 0
            w = float(work[t])
        used += per[t]
        wmax = w
        n += 1
    cuts[nc] = T
    nc += 1
    return cuts[:nc]


def memory_batches(lengths, trip, model: MemoryModel, budget: int, *,
                   max_count: int = 1 << 20) -> list:
    """Cut ``trip`` (in its order) into consecutive batches that fit ``budget`` bytes.

    Returns a list of slices. A batch never holds more than ``max_count``
    triplets. Raises :class:`OptionError` when one triplet alone does not fit.
    """
    trip = np.asarray(trip)
    T = trip.shape[0]
    if T == 0:
        return []
    avail = int(budget) - int(model.fixed)
    if model.uniform() and avail >= model.per:
        step = max(1, min(int(max_count), avail // int(model.per)))
        return [slice(lo, min(lo + step, T)) for lo in range(0, T, step)]
    lens3 = triplet_lengths(lengths, trip)
    per, work = _model_arrays(model, lens3)
    single = per + work
    if avail <= 0 or single.max() > avail:
        t = int(np.argmax(single)) if avail > 0 else 0
        raise OptionError(
            f"triplet {tuple(int(x) for x in trip[t])} (lengths "
            f"{tuple(int(x) for x in lens3[t])}) needs {int(single[t] + model.fixed)} bytes, "
            f"more than the memory budget of {int(budget)} bytes"
        )
    cuts = _cut_batches(per, work, float(min(model.concurrent, T)), float(avail), int(max_count))
    return [slice(int(a), int(b)) for a, b in zip(cuts[:-1], cuts[1:])]


def batch_bytes(lengths, trip, model: MemoryModel) -> int:
    """Bytes :class:`MemoryModel` ``model`` charges for scoring ``trip`` as one batch."""
    trip = np.asarray(trip)
    if trip.shape[0] == 0:
        return int(model.fixed)
    per, work = _model_arrays(model, triplet_lengths(lengths, trip))
    n = trip.shape[0]
    return int(model.fixed + per.sum() + min(model.concurrent, n) * work.max())


def _model_arrays(model: MemoryModel, lens3: np.ndarray) -> tuple:
    """``(per, work)`` bytes of each triplet under ``model``, as float64 arrays."""
    n = lens3.shape[0]
    per = model.per(lens3) if callable(model.per) else np.full(n, model.per)
    work = np.zeros(n) if model.work is None else model.work(lens3)
    return np.asarray(per, dtype=np.float64), np.asarray(work, dtype=np.float64)
