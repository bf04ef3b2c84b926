"""Distances between sequences for the guide tree: one interface, several sources.

A source is a function ``source(seqs, **options) -> Distances``;
:data:`SOURCES` names them, and :func:`trimsa.tree.build_guide_tree` and
``trimsa run --tree-distances`` / ``trimsa tree --tree-distances`` take a
source by that name. To add a distance, write a function that returns a
:class:`Distances` and add it to :data:`SOURCES`.

``kmer`` (:func:`kmer_distances`)
    ``1 - shared / min`` over each sequence's set of distinct k-mers (6-mers
    for DNA, 3-mers for protein); fast, alignment-free.
``pair-score`` (:func:`pair_score_distances`)
    Score deficits of banded global pairwise alignments (linear or natural affine
    gaps): every pair's score while the time budget allows, beyond it the nearest
    pairs by k-mer distance and some at random, the others' estimated from their
    k-mer distances; the same transform as the triplet source's step 3.
``triplet`` (:func:`triplet_distances`)
    From exact (or banded) 3-way alignment scores:

    1. triplet scores ``S(i, j, k)`` from the exact engine
       (:func:`trimsa.triplet.score_triplets`, CPU or GPU) or from the banded CPU
       kernel (:mod:`trimsa.triplet.banded`, not exact), linear or natural affine
       gaps;
    2. pairwise estimates ``s(i, j)`` by least squares on the model
       ``S(i, j, k) = s(i, j) + s(i, k) + s(j, k)``: in closed form when all
       ``C(n, 3)`` triplets were scored, otherwise by sparse least squares
       around a cheap prior (banded pairwise scores of all pairs, or of those the
       budget allows and k-mer distances for the rest) on a sampled design;
    3. distances comparable across lengths (the score between the expected
       score of unrelated sequences and the self-scores: ``deficit`` or
       Feng-Doolittle's ``fd``).

    docs/tree.md has the derivations and the measurements behind the choices.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from .. import _numba
from ..errors import OptionError
from ..io import SequenceSet, as_sequence_set
from ..scoring import Scoring, check_mode
from ..triplet import (
    DEFAULT_BAND,
    band_pair_scores,
    band_triplet_scores,
    check_device,
    resolve_device,
    scoring_for,
)
from ..triplet.plan import default_rate, triplet_cells

TripletChoice = Literal["auto", "all", "sampled"]
TRIPLET_CHOICES = ("auto", "all", "sampled")
#: Score-to-distance transforms of the triplet source.
TRANSFORMS = ("deficit", "fd")
#: Default time budget (seconds) for the prior and the triplet scoring.
DEFAULT_TIME_BUDGET = 240.0
#: Default damping of the sparse least squares (score units).
DEFAULT_DAMP = 0.1
#: The triplet source's peak memory in ``n x n`` float64 arrays: its estimates, prior,
#: k-mer distances, design and their temporaries (11.6 measured with ``tracemalloc`` for
#: 3,000 sequences: eval/experiments/2026-11-29-partial-prior/memory.log).
TRIPLET_ARRAYS = 12
#: Shuffled triplets (pairs) scored to estimate the score of unrelated sequences.
RANDOM_SAMPLES = 8

#: Below this many sequences the triplet scores do not determine the pairs' scores
#: under ``S(i, j, k) = s(i, j) + s(i, k) + s(j, k)``: 3 sequences give one equation
#: for three pairs, and 4 give four for six, whose undetermined part adds ``x`` to
#: ``s(a, b)`` and ``s(c, d)``, ``y`` to ``s(a, c)`` and ``s(b, d)``, ``z`` to
#: ``s(a, d)`` and ``s(b, c)`` with ``x + y + z = 0``: exactly which two pairs form
#: the cherries. The triplet source then takes that part from the pairs' exact global
#: alignment scores.
UNDERDETERMINED = 5


@dataclass
class Distances:
    """Distances between sequences and how they were obtained.

    Attributes
    ----------
    names
        Sequence names, in input order (rows of ``matrix``).
    matrix
        ``(n, n)`` symmetric ``float64`` distances, zero diagonal; None for a tree
        built in bounded memory (:mod:`trimsa.tree.bounded`), which holds no matrix.
    source
        The name of the source in :data:`SOURCES`.
    info
        What the source did, for messages and studies. The triplet source
        keeps ``estimates`` (``(n, n)`` pairwise score estimates, diagonal:
        self-scores), ``triplets`` (``"all"`` or ``"sampled"``), ``engine``
        (``"exact"`` or ``"band<w>"``), ``device``, ``n_triplets`` (scored
        for the estimates; the shuffled ones for the random baseline are not
        counted), ``pairs_supported`` (pairs in at least one scored triplet),
        ``min_support`` (fewest scored triplets of a supported pair) and
        ``m`` (third sequences per pair asked of the design) and
        ``pairwise_prior`` (all triplets of fewer than :data:`UNDERDETERMINED`
        sequences, completed by the pairs' global scores) and ``cells`` (summed over
        the scored triplets: the exact engine's ``|A| |B| |C|``, the banded kernel's
        ``(|A| + 1) (2w + 1)^2`` with ``A`` the longest) and ``gaps`` (the gap scores:
        ``"-3"`` linear, ``"-3 / -1"`` open / extend) and ``prior_pairs`` (pairs whose
        pairwise scores were computed: see :func:`pairwise_prior`) and ``swept_cells``,
        ``swept_share`` (the cells the exact engine swept in this process, and their
        share of the scored triplets' cubes: :mod:`trimsa.triplet.pruned`; None when it
        swept none here: the banded kernel, Dask workers); the k-mer
        source keeps ``k`` (and, built in bounded memory, ``neighbours``, ``sparse_joins``,
        ``dense_clusters``, ``evaluated``, ``matrix_bytes``: :func:`trimsa.tree.bounded.kmer_upgma`);
        the ``pair-score`` source keeps ``estimates``, ``band``, ``device``, ``pairs``
        (all pairs), ``prior_pairs`` (pairs scored), ``gaps`` and ``cells`` (None when not
        every pair was scored); the aligner's ``pairwise`` distances (corrected
        p-distances of the consistency library's pairwise alignments, see
        :class:`trimsa.progressive.Aligner`) keep ``pairs`` and ``cells``.
    timings
        Seconds spent per stage.
    """

    names: tuple
    matrix: np.ndarray = field(repr=False)
    source: str
    info: dict = field(default_factory=dict)
    timings: dict = field(default_factory=dict)

    def describe(self) -> str:
        """A short phrase saying where the distances came from."""
        i = self.info
        if self.source == "triplet":
            n = len(self.names)
            text = (f"{i['n_triplets']} {i['engine']} triplets, gaps {i['gaps']} on the "
                    f"{i['device']} "
                    f"({i['triplets']}; {i['pairs_supported']} of {n * (n - 1) // 2} pairs "
                    f"supported, min support {i['min_support']})")
            if i["triplets"] == "sampled" and i["prior_pairs"] < n * (n - 1) // 2:
                text += (f"; prior: banded scores of {i['prior_pairs']} pairs, the others' "
                         f"from k-mer distances")
            if i.get("pairwise_prior"):
                text += (f" and the pairs' global scores, which decide what the triplets of "
                         f"{n} sequences leave open")
            return text
        if self.source == "pair-score":
            text = (f"banded pairwise scores (half-width {i['band']}, gaps {i['gaps']}) of "
                    f"{i['prior_pairs']} of {i['pairs']} pairs on the {i['device']}")
            if i["prior_pairs"] < i["pairs"]:
                text += "; the others' from k-mer distances"
            return text
        if self.source == "kmer" and "neighbours" in i:
            return (f"{i['k']}-mer distances in bounded memory ({i['neighbours']} nearest "
                    f"neighbours per sequence, {i['sparse_joins']} joins from them, "
                    f"{i['dense_clusters']} clusters joined on their mean distances)")
        if self.source == "kmer":
            return f"{i['k']}-mer distances"
        if self.source == "pairwise":
            return f"corrected p-distances of {i['pairs']} pairwise alignments"
        return f"{self.source} distances"


def _check_choice(value, allowed, what):
    if value not in allowed:
        raise OptionError(f"unknown {what} {value!r}; choose one of: {', '.join(allowed)}")
    return value


def n_all_triplets(n: int) -> int:
    return n * (n - 1) * (n - 2) // 6


# -- k-mer distances -----------------------------------------------------------------

def kmer_k(alphabet_name: str) -> int:
    """The k of the k-mer distance: 6 for DNA, 3 for protein."""
    return 6 if alphabet_name == "dna" else 3


def kmer_sets(seqs: SequenceSet, threads: int = 1):
    """Each sequence's distinct k-mers (k = :func:`kmer_k`) as bits (hashed to 65,536 slots
    when there are more k-mers than that): ``(bits (n, words) uint64, counts)``, on
    ``threads`` threads."""
    from . import _cpu

    k = kmer_k(seqs.alphabet.name)
    used, compact = np.unique(seqs.codes, return_inverse=True)
    base = max(int(used.size), 1)
    nbits = int(min(base ** k, 1 << 16))
    nbits = max(64, -(-nbits // 64) * 64)
    n = len(seqs)
    bits = np.zeros((n, nbits // 64), np.uint64)
    counts = np.zeros(n, np.int64)
    codes = compact.astype(np.int64).ravel()
    offsets = np.asarray(seqs.offsets, np.int64)
    _numba.in_threads(lambda rows: _cpu.kmer_bitsets(codes, offsets, k, base, rows, bits,
                                                     counts),
                      np.arange(n, dtype=np.int64), threads)
    return bits, counts


#: Most host bytes of one block of shared k-mer counts (rows x columns).
SHARED_BLOCK_BYTES = 1 << 28
#: About this many blocks make one pass over all pairs (the progress bar's steps).
PASS_BLOCKS = 100
#: ``device="auto"`` counts the shared k-mers on the GPUs from this many sequences on.
KMER_GPU_SEQUENCES = 8192


def resolve_kmer_device(device: str, n: int, gpus=None) -> str:
    """``"cpu"`` or ``"gpu"``: where the shared k-mers of ``n`` sequences are counted.

    ``auto`` takes the GPUs from :data:`KMER_GPU_SEQUENCES` sequences on when CuPy
    sees one, and whenever ``gpus`` names them; ``gpu`` without a usable GPU is a
    :class:`~trimsa.errors.BackendUnavailableError`; ``gpus`` with ``cpu`` an error.
    """
    check_device(device)
    if device == "cpu":
        if gpus is not None:
            raise OptionError("gpus applies to device 'gpu' or 'auto', not 'cpu'")
        return "cpu"
    if gpus is not None:
        return resolve_device("gpu")
    if device == "auto" and n < KMER_GPU_SEQUENCES:
        return "cpu"
    return resolve_device(device, announce=False)


class KmerSets:
    """The sequences' sets of distinct k-mers (:func:`kmer_sets`) and the counts of k-mers
    that pairs share, in blocks of rows x columns: on the CPU cores
    (:func:`trimsa.tree._cpu.kmer_shared`) or on GPUs (:mod:`trimsa.tree._gpu`), the same
    counts either way. Every k-mer distance of the tree comes from these blocks
    (:func:`trimsa.tree._cpu.shared_distance` on the host).

    ``device``: ``cpu``, ``gpu`` or ``auto`` (:func:`resolve_kmer_device`); ``gpus``: the
    devices to use (default: every visible one). :meth:`of` makes them from sequences.
    """

    def __init__(self, bits: np.ndarray, counts: np.ndarray, *, k: int = 0,
                 device: str = "cpu", threads: int = 0, gpus=None, client=None):
        self.bits = np.ascontiguousarray(bits, np.uint64)
        self.counts = np.ascontiguousarray(counts, np.int64)
        self.n = self.bits.shape[0]
        self.k = k
        self.threads = _numba.set_threads(threads)
        # a count is at most the bits of a set
        self.dtype = np.dtype(np.uint16 if self.bits.shape[1] * 64 < 65536 else np.int32)
        self._gpus = None
        self._client = client
        if client is not None:
            if gpus is not None:
                raise OptionError("gpus cannot be combined with a scheduler (each Dask worker "
                                  "uses its own GPU)")
            check_device(device)
            self.device = device   # each worker resolves it
            return
        self.device = resolve_kmer_device(device, self.n, gpus)
        if self.device == "gpu":
            import cupy

            from ..triplet.devices import select_devices
            from . import _gpu

            devs = select_devices(gpus, cupy.cuda.runtime.getDeviceCount())
            self._gpus = _gpu.SharedOnGpus(self.bits, devs)

    @classmethod
    def of(cls, seqs, *, device: str = "cpu", threads: int = 0, gpus=None,
           client=None) -> KmerSets:
        """The k-mer sets of ``seqs`` (:func:`kmer_sets`)."""
        seqs = as_sequence_set(seqs)
        bits, counts = kmer_sets(seqs, _numba.set_threads(threads))
        return cls(bits, counts, k=kmer_k(seqs.alphabet.name), device=device,
                   threads=threads, gpus=gpus, client=client)

    @property
    def where(self) -> str:
        """The device as ``-v`` names it: ``cpu``, ``gpu``, ``N gpus`` or ``N Dask workers
        (device)``."""
        if self._client is not None:
            from ..triplet.distributed import describe_workers

            return describe_workers(self._client, self.device)
        if self._gpus is None:
            return "cpu"
        g = len(self._gpus.devices)
        return "gpu" if g == 1 else f"{g} gpus"

    def block_rows(self, nrows: int, ncols: int) -> int:
        """Rows of a block of ``ncols`` columns: within :data:`SHARED_BLOCK_BYTES`, and
        no more than a pass of ``nrows`` rows in about :data:`PASS_BLOCKS` blocks (at
        least 32 rows) needs."""
        most = max(1, int(SHARED_BLOCK_BYTES // max(1, ncols * self.dtype.itemsize)))
        return min(most, max(32, -(-nrows // PASS_BLOCKS)))

    def block(self, rows, cols) -> np.ndarray:
        """One block of shared counts, ``rows`` x ``cols`` (sequence numbers), on this
        process's CPU cores or its first GPU."""
        rows = np.ascontiguousarray(rows, np.int64)
        cols = np.ascontiguousarray(cols, np.int64)
        if self._gpus is not None:
            return self._gpus.block(self._gpus.devices[0], rows, cols, self.dtype)
        return self._cpu_block(rows, cols)

    def _cpu_block(self, rows, cols):
        from . import _cpu

        out = np.empty((rows.size, cols.size), self.dtype)
        _numba.in_threads(lambda idx: _cpu.kmer_shared(self.bits, rows, cols, idx, out),
                          np.arange(rows.size, dtype=np.int64), self.threads)
        return out

    def blocks(self, rows, cols, first=None, progress=None, pairs=None):
        """Blocks of shared counts of ``rows`` (sequence numbers) x ``cols[c0:]``, in order of
        the rows: yields ``(i0, i1, c0, shared)`` with ``shared[i, j]`` the count of
        ``rows[i0 + i]`` and ``cols[c0 + j]``; ``c0 = first(i0)`` (default 0).
        ``progress(done, total)``, when given, is called after each block with the sum of
        ``pairs(i0, i1, c0)`` (the pairs the caller takes from a block; default all) over
        the blocks done and over all.

        On GPUs the next blocks are computed (one per device, and one more) while the
        caller works on the current one.
        """
        rows = np.ascontiguousarray(rows, np.int64)
        cols = np.ascontiguousarray(cols, np.int64)
        first = first or (lambda i0: 0)
        pairs = pairs or (lambda i0, i1, c0: (i1 - i0) * (cols.size - c0))
        step = self.block_rows(rows.size, cols.size)
        plan = []
        for i0 in range(0, rows.size, step):
            i1 = min(rows.size, i0 + step)
            plan.append((i0, i1, int(first(i0))))
        weight = [int(pairs(*b)) for b in plan]
        total, done = sum(weight), 0
        if self._client is not None:
            results = self._worker_blocks(rows, cols, plan)
        elif self._gpus is None:
            results = ((i0, i1, c0, self._cpu_block(rows[i0:i1], cols[c0:]))
                       for i0, i1, c0 in plan)
        else:
            results = self._gpu_blocks(rows, cols, plan)
        for b, (i0, i1, c0, shared) in enumerate(results):
            yield i0, i1, c0, shared
            done += weight[b]
            if progress is not None:
                progress(done, total)

    def _gpu_blocks(self, rows, cols, plan):
        import concurrent.futures as cf

        devs = self._gpus.devices
        ahead = len(devs) + 1
        with cf.ThreadPoolExecutor(len(devs)) as pool:
            futures = {}

            def submit(b):
                i0, i1, c0 = plan[b]
                futures[b] = pool.submit(self._gpus.block, devs[b % len(devs)], rows[i0:i1],
                                         cols[c0:], self.dtype)

            for b in range(min(ahead, len(plan))):
                submit(b)
            for b, (i0, i1, c0) in enumerate(plan):
                shared = futures.pop(b).result()
                if b + ahead < len(plan):
                    submit(b + ahead)
                yield i0, i1, c0, shared

    def _worker_blocks(self, rows, cols, plan):
        """The blocks of ``plan`` on the Dask workers, a window of two per worker at a time
        (:func:`trimsa.triplet.distributed.run_parts`), handed on in order."""
        import uuid

        from ..triplet import distributed as tdist

        payload = KmerPayload(uuid.uuid4().hex, self.bits, self.counts)
        workers = len(self._client.scheduler_info()["workers"])
        window = 2 * max(1, workers)
        for w0 in range(0, len(plan), window):
            part = plan[w0:w0 + window]
            got = {}
            tdist.run_parts(
                self._client, payload,
                lambda p, part=part: (rows[part[p][0]:part[p][1]], cols[part[p][2]:]),
                list(range(len(part))), _shared_task, (self.device, self.dtype.str),
                got.__setitem__, in_flight=workers)
            for p, (i0, i1, c0) in enumerate(part):
                yield i0, i1, c0, got.pop(p)

    def distance_matrix(self, progress=None) -> np.ndarray:
        """The ``(n, n)`` k-mer distances (0 on the diagonal)."""
        from . import _cpu

        n = self.n
        D = np.zeros((n, n))
        order = np.arange(n, dtype=np.int64)
        # the pairs (s, t > s) of rows i0..i1 - 1
        pairs = (lambda i0, i1, c0: (i1 - i0) * (2 * n - i0 - i1 - 1) // 2)
        for i0, i1, c0, shared in self.blocks(order, order, lambda i0: min(i0 + 1, n),
                                              progress, pairs):
            _numba.in_threads(
                lambda idx, s=shared, r=i0: _cpu.distance_rows(s, r, idx, self.counts, D),
                np.arange(i1 - i0, dtype=np.int64), self.threads)
        return D


@dataclass(frozen=True)
class KmerPayload:
    """The k-mer sets as they travel to Dask workers."""

    token: str
    bits: np.ndarray
    counts: np.ndarray


_WORKER_SETS: dict = {}


def _shared_task(payload: KmerPayload, item, device: str, dtype: str) -> np.ndarray:
    """The Dask task of :meth:`KmerSets.blocks`: one block of shared counts on this worker's
    ``device`` (its sets kept per worker for the next blocks)."""
    from ..triplet.distributed import worker_threads

    ks = _WORKER_SETS.get((payload.token, device))
    if ks is None:
        _WORKER_SETS.clear()
        ks = KmerSets(payload.bits, payload.counts, device=device, threads=worker_threads())
        _WORKER_SETS[(payload.token, device)] = ks
    rows, cols = item
    return ks.block(rows, cols).astype(np.dtype(dtype), copy=False)


def kmer_distances(seqs, *, device: str = "cpu", threads: int = 0, gpus=None,
                   scheduler=None, progress=None) -> Distances:
    """``1 - shared / min`` over the sequences' sets of distinct k-mers.

    The sets are bit sets over the residue codes present (hashed to 65,536
    slots when there are more k-mers than that); k is :func:`kmer_k`. The shared
    k-mers are counted on the CPU cores or the GPUs ``gpus`` (:class:`KmerSets`;
    ``auto``: :func:`resolve_kmer_device`) or, with ``scheduler`` (as for
    :func:`triplet_distances`), on Dask workers, each on its own ``device``; the same
    distances every way. ``progress(done, total)``, when given, counts the pairs done.
    """
    t0 = time.perf_counter()
    seqs = as_sequence_set(seqs)
    with kmer_client(scheduler, device) as client:
        ks = KmerSets.of(seqs, device=device, threads=threads, gpus=gpus, client=client)
        D = ks.distance_matrix(progress)
        where = ks.where
    return Distances(seqs.names, D, "kmer", {"k": ks.k, "device": where},
                     {"k-mer distances": time.perf_counter() - t0})


def kmer_client(scheduler, device: str):
    """``connect(scheduler)`` for the k-mer blocks, or a context yielding None."""
    import contextlib

    if scheduler is None:
        return contextlib.nullcontext(None)
    from ..triplet.distributed import connect

    return connect(scheduler, device=device)


# -- triplet distances ---------------------------------------------------------------

def self_scores(seqs: SequenceSet, scoring: Scoring) -> np.ndarray:
    """Score of each sequence aligned with itself (``float64``)."""
    diag = scoring.table.diagonal().astype(np.float64)
    per = diag[seqs.codes]
    return np.add.reduceat(per, seqs.offsets[:-1]) if len(seqs) else np.zeros(0)


def _mean_triplet_cells(lengths, band):
    L = lengths.astype(np.float64) + 1.0
    if band is None:
        return float(L.mean() ** 3)
    return float(L.mean()) * float(2 * band + 1) ** 2


#: Reports of progress over a stage's triplets (blocks of at least PROGRESS_BLOCK).
PROGRESS_STEPS = 64
PROGRESS_BLOCK = 1024


def _score(seqs, trip, *, band, scoring, mode, device, threads, scheduler=None,
           progress=None, work=None):
    """Scores of ``trip`` (``None``: all ``C(n, 3)``), exact (``band`` None) or banded.
    With ``progress`` (not with a scheduler, which splits the work itself), in blocks
    after each of which ``progress(done, total)`` is called: the same scores. ``work``
    (a :class:`~trimsa.triplet.pruned.Work`) counts the exact engine's cells swept."""
    from ..triplet import iter_all_triplets, score_triplets
    from ..triplet._checks import BATCH_TRIPLETS

    if band is None and (progress is None or scheduler is not None):
        return score_triplets(seqs, trip, mode=mode, scoring=scoring, device=device,
                              threads=0 if scheduler is not None else threads,
                              scheduler=scheduler, work=work)
    if band is not None and trip is not None and progress is None:
        return band_triplet_scores(seqs, trip, band=band, scoring=scoring, threads=threads)
    n = len(seqs)
    total = n_all_triplets(n) if trip is None else len(trip)
    step = BATCH_TRIPLETS   # the blocks of the backends (bounded memory)
    if progress is not None:
        step = min(step, max(PROGRESS_BLOCK, -(-total // PROGRESS_STEPS)))
    blocks = (iter_all_triplets(n, step) if trip is None
              else (trip[lo:lo + step] for lo in range(0, total, step)))
    out, done = [], 0
    for block in blocks:
        out.append(_score(seqs, block, band=band, scoring=scoring, mode=mode, device=device,
                          threads=threads, work=work))
        done += len(block)
        if progress is not None:
            progress(done, total)
    return np.concatenate(out) if out else np.zeros(0, np.int64)


def _shuffled(seqs: SequenceSet, count: int, rng) -> SequenceSet:
    """``count`` sequences of the input with their residues shuffled."""
    picks = rng.choice(len(seqs), size=count, replace=len(seqs) < count)
    parts = [rng.permutation(seqs.code(int(i))) for i in picks]
    offsets = np.zeros(count + 1, dtype=np.int64)
    offsets[1:] = np.cumsum([p.size for p in parts])
    names = tuple(f"shuffled{i}" for i in range(count))
    return SequenceSet(names, names, ("",) * count, seqs.alphabet,
                       np.concatenate(parts).astype(np.uint8), offsets, "<shuffled>")


def random_rate(seqs, *, triplet: bool = True, band=DEFAULT_BAND, scoring=None,
                mode="global", device="cpu", threads=0, seed=0, scheduler=None) -> float:
    """Expected score per residue of unrelated sequences with this composition.

    Scores :data:`RANDOM_SAMPLES` triplets (or pairs) of shuffled input
    sequences with the engine in use; the rate ``rho`` is such that two
    unrelated sequences of lengths ``Li`` and ``Lj`` are expected to score
    ``rho (Li + Lj) / 2`` (a triplet ``rho (La + Lb + Lc)``).
    """
    seqs = as_sequence_set(seqs)
    rng = np.random.default_rng([seed, 7919])
    k = 3 if triplet else 2
    sh = _shuffled(seqs, k * RANDOM_SAMPLES, rng)
    idx = np.arange(k * RANDOM_SAMPLES).reshape(RANDOM_SAMPLES, k)
    if triplet:
        s = _score(sh, idx, band=band, scoring=scoring, mode=mode, device=device,
                   threads=threads, scheduler=scheduler)
        tot = sh.lengths[idx].sum(axis=1)
    else:
        s = band_pair_scores(sh, idx, band=band, scoring=scoring, threads=threads)
        tot = sh.lengths[idx].sum(axis=1) / 2.0
    return float(np.sum(s) / np.sum(tot))


# -- least squares -----------------------------------------------------------------

def _pair_ids(n: int):
    iu, ju = np.triu_indices(n, 1)
    pid = np.full((n, n), -1, dtype=np.int64)
    pid[iu, ju] = np.arange(iu.size)
    pid[ju, iu] = pid[iu, ju]
    return iu, ju, pid


def ls_all_triplets(n: int, scores) -> np.ndarray:
    """Closed-form least squares pairwise estimates from all ``C(n, 3)`` triplets.

    ``scores`` are in the order of :func:`trimsa.triplet.all_triplets`.
    With ``T_ij`` the sum of the ``n - 2`` triplets holding ``i`` and ``j``,
    ``R_i`` the sum of those holding ``i`` and ``Tot`` the sum of all, the
    normal equations give (for ``n >= 5``)::

        sigma = Tot / (n - 2)                 # sum of all s
        r_i   = (R_i - sigma) / (n - 3)       # sum of the s involving i
        s_ij  = (T_ij - r_i - r_j) / (n - 4)

    For ``n`` of 3 or 4 the system is underdetermined; the minimum-norm
    solution (``numpy.linalg.lstsq``) is returned. The diagonal is 0.
    """
    from ..triplet import all_triplets

    S = np.asarray(scores, dtype=np.float64)
    if S.size != n_all_triplets(n):
        raise OptionError(f"expected {n_all_triplets(n)} triplet scores for n = {n}, got {S.size}")
    if n < 5:
        return ls_triplets(n, all_triplets(n), S)
    from ..triplet import iter_all_triplets

    T = np.zeros((n, n))

    pos = 0
    for block in iter_all_triplets(n):
        s = S[pos:pos + block.shape[0]]
        pos += block.shape[0]
        i, j, k = (block[:, q].astype(np.int64) for q in range(3))
        T += (np.bincount(i * n + j, s, n * n) + np.bincount(i * n + k, s, n * n)
              + np.bincount(j * n + k, s, n * n)).reshape(n, n)
    T = T + T.T
    R = T.sum(axis=1) / 2.0
    sigma = S.sum() / (n - 2)
    r = (R - sigma) / (n - 3)
    est = (T - r[:, None] - r[None, :]) / (n - 4)
    np.fill_diagonal(est, 0.0)
    return est


def _design(n: int, triplets: np.ndarray):
    from scipy import sparse

    _, _, pid = _pair_ids(n)
    t = triplets.shape[0]
    cols = np.stack([pid[triplets[:, 0], triplets[:, 1]], pid[triplets[:, 0], triplets[:, 2]],
                     pid[triplets[:, 1], triplets[:, 2]]], axis=1).ravel()
    rows = np.repeat(np.arange(t), 3)
    return sparse.csr_matrix((np.ones(3 * t), (rows, cols)), shape=(t, n * (n - 1) // 2))


def ls_triplets(n: int, triplets, scores, *, prior=None, damp: float = 0.0) -> np.ndarray:
    """Least squares pairwise estimates from any set of triplets.

    Minimises ``sum_t (S_t - s_ij - s_ik - s_jk)^2 + damp^2 sum (s - prior)^2``
    over all pairs (``prior`` an ``(n, n)`` matrix, 0 when ``None``) with
    ``scipy.sparse.linalg.lsqr`` (dense ``lstsq`` for small systems). Pairs in
    no triplet keep their prior. Returns the ``(n, n)`` estimate (diagonal 0).
    """
    from scipy.sparse.linalg import lsqr

    trip = np.asarray(triplets, dtype=np.int64).reshape(-1, 3)
    S = np.asarray(scores, dtype=np.float64)
    iu, ju, _ = _pair_ids(n)
    base = np.zeros(iu.size) if prior is None else np.asarray(prior, np.float64)[iu, ju]
    A = _design(n, trip)
    rhs = S - A @ base
    if iu.size <= 64 and damp == 0.0:
        delta = np.linalg.lstsq(A.toarray(), rhs, rcond=None)[0]
    else:
        # pairs in no triplet keep delta = 0 (their columns are empty): solve for the others
        # alone, so that each iteration's vectors hold only them
        used = np.unique(A.indices)
        delta = np.zeros(iu.size)
        delta[used] = lsqr(A[:, used], rhs, damp=damp, atol=1e-10, btol=1e-10,
                           iter_lim=10000)[0]
    est = np.zeros((n, n))
    est[iu, ju] = base + delta
    est[ju, iu] = est[iu, ju]
    return est


def pairwise_from_triplets(seqs, triplets=None, scores=None, *, mode="global", scoring=None,
                           band: int | None = None, prior=None, damp: float = DEFAULT_DAMP,
                           device="cpu", threads: int = 0, scheduler=None,
                           progress=None, work=None) -> np.ndarray:
    """Pairwise score estimates ``(n, n)`` from triplet scores.

    Parameters
    ----------
    seqs
        Anything :func:`~trimsa.io.as_sequence_set` accepts.
    triplets
        ``(T, 3)`` indices, or ``None`` for all ``C(n, 3)`` triplets (closed
        form, no prior).
    scores
        Their scores; computed here when ``None`` (exact engine when ``band``
        is ``None``, else the banded CPU kernel).
    prior, damp
        Sampled designs: prior estimates and the damping of the least squares
        towards them (see :func:`ls_triplets`). All triplets of fewer than 5
        sequences (:data:`UNDERDETERMINED`): the estimates that fit the triplets
        exactly and are closest to ``prior`` (the minimum-norm solution when
        ``None``).
    progress
        Called as ``progress(done, total)`` while triplets are scored here (not with
        a scheduler).
    work
        A :class:`~trimsa.triplet.pruned.Work` that counts the cells the exact engine
        sweeps for the triplets scored here (not on Dask workers).

    Returns
    -------
    numpy.ndarray
        Symmetric estimates; the diagonal holds the self-scores.
    """
    seqs = as_sequence_set(seqs)
    seqs.require(3, "a guide tree from triplets")
    sc = scoring_for(seqs, scoring)
    n = len(seqs)
    if triplets is None:
        if scores is None:
            scores = _score(seqs, None, band=band, scoring=sc, mode=mode, device=device,
                            threads=threads, scheduler=scheduler, progress=progress,
                            work=work)
        if n < UNDERDETERMINED and prior is not None:
            from ..triplet import all_triplets

            # the triplets fix only part of the pairs (see UNDERDETERMINED): the estimate
            # that fits them exactly and is closest to the prior
            est = ls_triplets(n, all_triplets(n), scores, prior=prior)
        else:
            est = ls_all_triplets(n, scores)
    else:
        trip = np.asarray(triplets, dtype=np.int64).reshape(-1, 3)
        if scores is None:
            scores = _score(seqs, trip, band=band, scoring=sc, mode=mode, device=device,
                            threads=threads, scheduler=scheduler, progress=progress,
                            work=work)
        est = ls_triplets(n, trip, scores, prior=prior, damp=damp)
    np.fill_diagonal(est, self_scores(seqs, sc))
    return est


# -- distances ---------------------------------------------------------------------

def score_distances(est, self_sc, lengths, rho: float, *, kind: str = "deficit") -> np.ndarray:
    """Distances from pairwise score estimates, comparable across lengths.

    With ``e_ij = rho (L_i + L_j) / 2`` the expected score of unrelated
    sequences and ``m_ij = (self_i + self_j) / 2``, the similarity
    ``x = (s_ij - e_ij) / (m_ij - e_ij)`` is 1 for identical and 0 for
    unrelated sequences. ``kind="fd"`` returns ``-ln x`` (Feng & Doolittle
    1996; ``x`` clipped to ``[1e-3, 1]``), ``"deficit"`` returns ``1 - x``.
    """
    _check_choice(kind, TRANSFORMS, "distance transform")
    L = np.asarray(lengths, dtype=np.float64)
    e = rho * (L[:, None] + L[None, :]) / 2.0
    mm = (self_sc[:, None] + self_sc[None, :]) / 2.0
    x = (est - e) / np.maximum(mm - e, 1e-9)
    if kind == "fd":
        D = -np.log(np.clip(x, 1e-3, 1.0))
    else:
        D = np.maximum(1.0 - x, 0.0)
    D = (D + D.T) / 2.0
    np.fill_diagonal(D, 0.0)
    return D


def sample_triplets(D_prior, m: int, max_triplets: int, *, seed: int = 0):
    """Triplets so that pairs get ``m`` third sequences each, closest pairs first.

    Pairs are visited in order of increasing prior distance; a pair with fewer
    than ``m`` scored triplets gets new ones: half of the third sequences from
    the nearest neighbours of either member (prior distance), the rest
    uniformly at random. Stops at ``max_triplets``. Deterministic for a seed.

    Returns
    -------
    triplets, support
        ``(T, 3)`` sorted rows and the ``(n, n)`` count of triplets per pair.
    """
    D = np.asarray(D_prior, dtype=np.float64)
    n = D.shape[0]
    rng = np.random.default_rng(seed)
    iu, ju = np.triu_indices(n, 1)
    # ties broken at random but reproducibly
    order = np.lexsort((rng.random(iu.size), D[iu, ju]))
    near = np.argsort(D + np.diag(np.full(n, np.inf)), axis=1, kind="stable")[:, :max(m, 1) + 2]
    support = np.zeros((n, n), dtype=np.int32)
    chosen = set()
    out = []
    for p in order:
        if len(out) >= max_triplets:
            break
        i, j = int(iu[p]), int(ju[p])
        need = m - support[i, j]
        if need <= 0:
            continue
        n_near = (need + 1) // 2
        near_k = (int(k) for pair in zip(near[i], near[j]) for k in pair)
        added = tries = 0
        while added < need and tries < 20 * m + 2 * near.shape[1]:
            tries += 1
            k = next(near_k, None) if added < n_near else None
            if k is None:
                k = int(rng.integers(n))
            if k == i or k == j:
                continue
            a, b, c = sorted((i, j, k))
            key = (a * n + b) * n + c
            if key in chosen:
                continue
            chosen.add(key)
            out.append((a, b, c))
            support[a, b] += 1
            support[a, c] += 1
            support[b, c] += 1
            added += 1
            if len(out) >= max_triplets:
                break
    support = support + support.T
    trip = np.array(out, dtype=np.int64).reshape(-1, 3)
    return trip, support


#: On the CPU a sampled design of bound-pruned exact triplets is drawn up to
#: :data:`SWEEP_HEADROOM` times the triplets its budget buys at the table's rate, and
#: scored in its order, :data:`SWEEP_BLOCK` at a time (at most one per sequence), until the
#: cells swept and the pairwise cells of their bounds, at :data:`SWEPT_RATE` and :data:`BOUND_RATE` cells per
#: second per thread, reach the budget (:func:`scores_within`). A pruned triplet costs what
#: its band holds, which follows how related its sequences are and is known only once
#: swept; counting cells, not seconds, keeps the tree reproducible. The rates: a least-
#: squares fit of the seconds of 678 blocks of eleven tune sets' designs on the 2-core VM,
#: 2.2e7 and 1.3e8 (docs/tree.md, section 4).
SWEEP_HEADROOM = 8
SWEEP_BLOCK = 128
SWEPT_RATE = 2e7
BOUND_RATE = 1.3e8


def scores_within(seqs, trip, scoring, seconds: float, nthreads: int, *, progress=None,
                  work=None) -> np.ndarray:
    """Exact global affine scores of the first triplets of ``trip`` (bound-pruned, on the
    CPU), block by block (:data:`SWEEP_BLOCK` triplets, or one per sequence where there are
    fewer sequences), while the blocks scored so far and half the last one cost less
    than ``seconds`` at :data:`SWEPT_RATE` and :data:`BOUND_RATE` on ``nthreads`` threads
    (so that the last block ends about as often before the budget as after it); at least
    one block. The count depends on the triplets alone (each one's swept cells, each block's
    distinct pairs), not on how long the blocks took."""
    from ..triplet import pruned

    out = []
    spent = last = 0.0
    total = len(trip)
    step = max(1, min(SWEEP_BLOCK, len(seqs)))   # small inputs have small budgets
    for lo in range(0, total, step):
        if out and spent + last / 2 >= seconds:
            break
        block = trip[lo:lo + step]
        done = pruned.Work()
        out.append(pruned.score_cpu(seqs, block, scoring, np.empty(len(block), np.int64),
                                    nthreads, done))
        bounds = pruned.loss_cells(seqs.lengths, pruned.pair_plan(len(seqs), block)[0]).sum()
        last = (done.swept_cells / SWEPT_RATE + 2 * bounds / BOUND_RATE) / nthreads
        spent += last
        if work is not None:
            work.add(triplets=done.triplets, cube_cells=done.cube_cells,
                     swept_cells=done.swept_cells, pair_cells=done.pair_cells, full=done.full)
        if progress is not None:
            progress(min(lo + step, total), total)
    if progress is not None and out and lo + step < total:   # the rest is not scored
        progress(total, total)
    return np.concatenate(out) if out else np.zeros(0, np.int64)


def triplet_support(n: int, trip) -> np.ndarray:
    """``(n, n)`` count of the triplets holding each pair (symmetric)."""
    support = np.zeros((n, n), dtype=np.int32)
    trip = np.asarray(trip, dtype=np.int64).reshape(-1, 3)
    for a, b in ((0, 1), (0, 2), (1, 2)):
        np.add.at(support, (trip[:, a], trip[:, b]), 1)
    return support + support.T


def _calibrate(delta, supported, xprior, ell):
    """Fill ``delta`` of unsupported pairs with its trend over supported pairs.

    The triplet estimates of a pair sit below its pairwise score by an amount
    that grows with divergence; unsupported pairs get the median shift per
    residue of supported pairs with similar prior distance (10 quantile bins).
    """
    if supported.all() or not supported.any():
        return delta
    y = delta[supported] / ell[supported]
    x = xprior[supported]
    edges = np.unique(np.quantile(x, np.linspace(0, 1, 11)))
    if edges.size < 2:
        shift = np.full(np.count_nonzero(~supported), np.median(y))
    else:
        idx = np.clip(np.searchsorted(edges, x, side="right") - 1, 0, edges.size - 2)
        centres, meds = [], []
        for b in range(edges.size - 1):
            sel = idx == b
            if sel.any():
                centres.append(np.median(x[sel]))
                meds.append(np.median(y[sel]))
        shift = np.interp(xprior[~supported], centres, meds)
    out = delta.copy()
    out[~supported] = shift * ell[~supported]
    return out


#: Share of the time budget the prior of a sampled design may take: beyond it, the prior
#: scores only the pairs that fit and takes the others from k-mer distances. The prior
#: comes first because it moves the trees more than the triplets do where it is partial
#: (chosen on tune: eval/experiments/2026-11-29-partial-prior, 0.8 against 0.5).
PRIOR_SHARE = 0.8
#: Share of a partial prior's pairs drawn at random (the rest: nearest neighbours).
PRIOR_RANDOM = 0.25
#: Bins of k-mer distance in the fit that fills a partial prior.
PRIOR_BINS = 50
#: Damping of the per-sequence offsets of a partial prior's fill (similarity units).
PRIOR_DAMP = 0.1


def _pair_scores(seqs, pairs, band, scoring, threads, progress, device="cpu"):
    """Banded pairwise scores of ``pairs`` on ``device`` (``"cpu"`` or ``"gpu"``: the same
    scores); with ``progress``, in blocks after each of which ``progress(done, total,
    "pairwise prior")`` is called: the same scores."""
    if progress is None:
        return band_pair_scores(seqs, pairs, band=band, scoring=scoring, threads=threads,
                                device=device)
    total = len(pairs)
    step = max(PROGRESS_BLOCK, -(-total // PROGRESS_STEPS))
    out = []
    for lo in range(0, total, step):
        out.append(band_pair_scores(seqs, pairs[lo:lo + step], band=band, scoring=scoring,
                                    threads=threads, device=device))
        progress(min(lo + step, total), total, "pairwise prior")
    return np.concatenate(out) if out else np.zeros(0, np.int64)


def pairwise_prior(seqs: SequenceSet, scoring: Scoring, band: int, rho: float,
                   max_pairs: int, *, threads: int = 0, seed: int = 0, progress=None,
                   device: str = "cpu"):
    """The prior of a sampled design: ``(n, n)`` pairwise score estimates (diagonal: the
    self-scores) and the number of pairs scored for it.

    Up to ``max_pairs`` pairs, every pair's banded global score (half-width ``band``).
    Beyond, ``max_pairs`` pairs are scored (but at least ``n`` near pairs and 200 random
    ones): each sequence's nearest neighbours by k-mer distance
    (:func:`kmer_distances`) and a share :data:`PRIOR_RANDOM` of pairs at random. The
    other pairs get the similarity ``x = (s - e) / (m - e)`` of :func:`score_distances`
    (``rho`` the banded pairs' random rate) that the scored pairs have at the same
    k-mer distance: the median per bin of k-mer distance (:data:`PRIOR_BINS` bins, the
    random pairs' quantiles), made non-increasing by isotonic regression and
    interpolated, plus offsets ``c_i + c_j`` per sequence fitted to the scored pairs'
    residuals (least squares damped by :data:`PRIOR_DAMP`). Deterministic for a seed.
    ``progress``, when given, is called as ``progress(done, total, "pairwise prior")``
    while the pairs are scored (in blocks, with the same scores). ``device``: where the
    pairs are scored, ``"cpu"`` or ``"gpu"`` (the same scores).
    """
    n = len(seqs)
    iu, ju = np.triu_indices(n, 1)
    self_sc = self_scores(seqs, scoring)
    prior = np.zeros((n, n))
    np.fill_diagonal(prior, self_sc)
    if iu.size <= max_pairs:
        ps = _pair_scores(seqs, np.stack([iu, ju], 1), band, scoring, threads, progress,
                          device)
        prior[iu, ju] = prior[ju, iu] = ps
        return prior, int(iu.size)
    from scipy.optimize import isotonic_regression
    from scipy.sparse import csr_matrix
    from scipy.sparse.linalg import lsqr

    rng = np.random.default_rng([seed, 104729])
    Dk = kmer_distances(seqs, threads=threads).matrix
    n_rand = min(iu.size, max(int(PRIOR_RANDOM * max_pairs), min(200, iu.size)))
    n_near = max(n, max_pairs - n_rand)
    # each sequence's nearest neighbours, rank by rank (every sequence's nearest, then
    # every second nearest, ...), each pair once, until n_near pairs
    q = int(min(n - 1, -(-2 * n_near // n)))
    np.fill_diagonal(Dk, np.inf)   # no sequence is its own neighbour (pairs read: i < j)
    near = np.argpartition(Dk, q - 1, axis=1)[:, :q]
    near = np.take_along_axis(near, np.argsort(np.take_along_axis(Dk, near, 1), 1,
                                               kind="stable"), 1)
    rows = np.tile(np.arange(n), q)
    cols = near.T.ravel()
    a, b = np.minimum(rows, cols), np.maximum(rows, cols)
    # flat index of pair (a, b), a < b, in the order of np.triu_indices
    flat = a * n - a * (a + 1) // 2 + (b - a - 1)
    _, first = np.unique(flat, return_index=True)
    flat = flat[np.sort(first)[:n_near]]
    rand = rng.choice(iu.size, size=n_rand, replace=False)
    flat = np.union1d(flat, rand)
    ps = _pair_scores(seqs, np.stack([iu[flat], ju[flat]], 1), band, scoring, threads,
                      progress, device)
    L = seqs.lengths.astype(np.float64)
    e = rho * (L[iu] + L[ju]) / 2.0
    top = np.maximum((self_sc[iu] + self_sc[ju]) / 2.0 - e, 1e-9)
    x_scored = (ps - e[flat]) / top[flat]
    dk = Dk[iu, ju]
    del Dk
    # bins of k-mer distance: quantiles of the random pairs, which span every distance;
    # in each, the median similarity of the scored pairs, made non-increasing
    edges = np.unique(np.quantile(dk[rand], np.linspace(0.0, 1.0, PRIOR_BINS + 1)))
    dk_scored = dk[flat]
    idx = np.clip(np.searchsorted(edges, dk_scored, side="right") - 1, 0,
                  max(edges.size - 2, 0))
    bins = np.unique(idx)
    centres = np.array([np.median(dk_scored[idx == k]) for k in bins])
    meds = np.array([np.median(x_scored[idx == k]) for k in bins])
    counts = np.array([np.count_nonzero(idx == k) for k in bins], dtype=np.float64)
    meds = isotonic_regression(meds, weights=counts, increasing=False).x
    x = np.interp(dk, centres, meds)
    # per-sequence offsets: the scored pairs' residuals to the fit as c_i + c_j (an
    # offset per sequence lengthens or shortens its branch alone, which the tree absorbs)
    P = flat.size
    A = csr_matrix((np.ones(2 * P), (np.repeat(np.arange(P), 2),
                                     np.stack([iu[flat], ju[flat]], 1).ravel())),
                   shape=(P, n))
    c = lsqr(A, x_scored - x[flat], damp=PRIOR_DAMP)[0]
    x = x + c[iu] + c[ju]
    est = e + x * top
    est[flat] = ps
    prior[iu, ju] = prior[ju, iu] = est
    return prior, int(flat.size)


#: Share of the time budget the sampled triplets keep however long the prior took (the
#: rest of :data:`PRIOR_SHARE`, so that the two keep to the budget).
TRIPLET_SHARE = 1.0 - PRIOR_SHARE


def _budgeted_pairs(seqs, scoring, band, seconds, nthreads, seed, progress, device="cpu"):
    """:func:`pairwise_prior` on ``device`` (``"cpu"`` or ``"gpu"``) with as many pairs as
    ``seconds`` allow at the banded pairwise kernel's rate there
    (:data:`trimsa.triplet.plan.RATES`); returns the estimates,
    the pairs scored, the random rate ``rho`` of banded pairs and the seconds the pairs
    were costed at. The seconds are estimated from cells, not measured, so that the same
    input, options and threads give the same pairs."""
    rho = random_rate(seqs, triplet=False, band=band, scoring=scoring, seed=seed,
                      threads=nthreads)
    rate = _rate(device, "band-pair", nthreads)
    pair_cells = (seqs.lengths.mean() + 1.0) * (2 * band + 1)
    n = len(seqs)
    max_pairs = int(min(n * (n - 1) // 2, seconds * rate / pair_cells))
    est, pairs = pairwise_prior(seqs, scoring, band, rho, max_pairs, threads=nthreads,
                                seed=seed, progress=progress, device=device)
    return est, pairs, rho, pairs * pair_cells / rate


def triplet_seconds(time_budget: float, prior_seconds: float) -> float:
    """Seconds the sampled triplets get: what the prior left of ``time_budget``, but at
    least :data:`TRIPLET_SHARE` of it (the prior keeps to :data:`PRIOR_SHARE` of the
    budget, except for the least a partial prior scores: see :func:`pairwise_prior`)."""
    return max(TRIPLET_SHARE * time_budget, time_budget - prior_seconds)


def _rate(device: str, engine: str, nthreads: int) -> float:
    """Cells per second of ``engine`` on ``device`` with ``nthreads`` CPU threads."""
    if device == "gpu":
        return default_rate("gpu", 1, engine).cells_per_s
    return default_rate("cpu", nthreads, engine).cells_per_s


def engine_band(band, device: str, mode: str, scoring: Scoring):
    """``band`` with ``"auto"`` resolved: None (the exact engine) on a GPU, in the
    semiglobal and local modes and with affine gaps (whose global cubes are bound-pruned),
    :data:`~trimsa.triplet.DEFAULT_BAND` for global linear gaps on the CPU."""
    if band != "auto":
        return band
    return None if (device == "gpu" or mode != "global" or not scoring.linear) else DEFAULT_BAND


def _engine_kind(band, mode: str, scoring: Scoring) -> str:
    """The key of the engine's rate in :data:`trimsa.triplet.plan.RATES`."""
    if band is not None:
        return "band" if scoring.linear else "band-affine"
    if scoring.linear:
        return "exact"
    return "affine-pruned" if mode == "global" else "affine"


def affordable_triplets(seqs: SequenceSet, scoring: Scoring, time_budget: float, *,
                        mode: str = "global", device: str = "cpu", nthreads: int = 1) -> int:
    """How many triplets :func:`triplet_distances` scores within ``time_budget`` (its
    default engine on ``device``, resolved, with ``nthreads`` CPU threads): all ``C(n, 3)``
    when they fit, else those of the sampled design after its pairwise prior, estimated as
    it estimates them."""
    n = len(seqs)
    band = engine_band("auto", device, mode, scoring)
    rate = _rate(device, _engine_kind(band, mode, scoring), nthreads)
    per_triplet = _mean_triplet_cells(seqs.lengths, band)
    if n_all_triplets(n) * per_triplet <= time_budget * rate:
        return n_all_triplets(n)
    # the prior as _budgeted_pairs costs it
    pair_rate = _rate(device, "band-pair", nthreads)
    pair_cells = (seqs.lengths.mean() + 1.0) * (2 * (DEFAULT_BAND if band is None else band) + 1)
    pairs = min(n * (n - 1) // 2, PRIOR_SHARE * time_budget * pair_rate / pair_cells)
    return int(triplet_seconds(time_budget, pairs * pair_cells / pair_rate) * rate
               // per_triplet)


def triplet_distances(seqs, *, scoring: Scoring | None = None, mode: str = "global",
                      triplets: TripletChoice = "auto", m: int | None = None,
                      band: int | str | None = "auto",
                      time_budget: float = DEFAULT_TIME_BUDGET, transform: str = "deficit",
                      damp: float = DEFAULT_DAMP, device: str = "cpu", threads: int = 0,
                      seed: int = 0, scheduler=None, progress=None) -> Distances:
    """Distances from 3-way alignment scores (see the module's notes).

    Parameters
    ----------
    seqs
        A :class:`~trimsa.io.SequenceSet`, FASTA path, SeqRecords, pairs or strings.
    scoring, mode
        Scores and alignment mode of the triplets (see
        :func:`trimsa.triplet.score_triplets`): linear or natural affine gaps, on
        the exact engine and the banded kernels alike. ``scoring`` None takes
        ``trimsa run``'s (the ``"progressive"`` defaults of
        :data:`trimsa.scoring.DEFAULTS`: for DNA 1 / -1, gaps -3 / -1), so that
        ``trimsa tree --tree-distances triplet`` builds the tree ``run --tree-distances
        triplet`` builds.
    triplets
        ``"all"``: every ``C(n, 3)`` triplet, closed-form least squares.
        ``"sampled"``: each pair gets ``m`` third sequences within the budget,
        closest pairs first, sparse least squares around banded pairwise
        scores. ``"auto"``: all when their cost fits the budget, else sampled.
    m
        Third sequences per pair in sampled designs, ``1 <= m <= n - 2``;
        ``None`` picks the largest the budget allows (at least 2).
    band
        Half-width of the banded triplet kernel (not exact), ``None`` for
        the exact engine, ``"auto"`` for :func:`engine_band`'s choice: exact
        (bound-pruned cubes in global mode with affine gaps) except for global linear
        gaps on the CPU, which take the band :data:`~trimsa.triplet.DEFAULT_BAND`. The
        banded kernel computes global scores, on the CPU, with linear or affine gaps.
    time_budget
        Seconds allowed for the banded pairwise prior (sampled designs; at most
        :data:`PRIOR_SHARE` of them, see :func:`pairwise_prior`) and
        the triplet scoring, converted to cells with
        :data:`trimsa.triplet.plan.RATES` for the device in use (an estimate:
        the run may take longer on a loaded machine). The triplets get what
        the prior leaves by the same estimate (not by its measured time), and
        never less than :data:`TRIPLET_SHARE` of it.
    transform
        ``"deficit"`` or ``"fd"`` (see :func:`score_distances`).
    damp
        Damping of the sparse least squares towards the prior.
    device, threads
        ``"cpu"``, ``"gpu"`` or ``"auto"`` for the exact triplet scores; CPU
        threads (0 = all cores).
    seed
        Seed of the sampled design and of the shuffles. The same input, options,
        device and thread count give the same distances; a sampled design's size
        follows the budget at the device's rate (:data:`trimsa.triplet.plan.RATES`),
        so another device or thread count may score other triplets (``m`` fixes the
        third sequences per pair while the budget allows them).
    scheduler
        Score the triplets on Dask workers (a
        :func:`trimsa.triplet.distributed.connect` spec or client), each on
        ``device`` (with ``"auto"``, its GPU when it has one): the exact engine
        (``band`` ``"auto"`` or None), with the time budget converted at the
        rate of all the workers together. The distances are those of one
        process.
    progress
        Called as ``progress(done, total)`` while the triplets are scored and as
        ``progress(done, total, "pairwise prior")`` while a sampled design's prior pairs
        are (in blocks, with the same scores; the triplets not with a scheduler).
    """
    _check_choice(triplets, TRIPLET_CHOICES, "triplet choice")
    _check_choice(transform, TRANSFORMS, "distance transform")
    check_mode(mode)
    if not (time_budget > 0):
        raise OptionError(f"time budget must be positive, got {time_budget}")
    seqs = as_sequence_set(seqs)
    seqs.require(3, "a guide tree from triplets",
                  "pair-score or k-mer distances (--tree-distances pair-score or kmer, "
                  "distances='pair-score' or 'kmer') take 2")
    sc = scoring_for(seqs, scoring, "progressive")
    n = len(seqs)
    from ..triplet._checks import check_memory

    check_memory(TRIPLET_ARRAYS * 8.0 * n * n,
                 f"a guide tree from the triplets of {n} sequences (about {TRIPLET_ARRAYS} "
                 f"{n} x {n} arrays at once)")
    if m is not None and not (1 <= m <= n - 2):
        raise OptionError(f"m must be between 1 and n - 2 = {n - 2} for {n} sequences, got {m}")
    if int(seed) < 0:
        raise OptionError(f"seed must be >= 0, got {seed}")
    if scheduler is not None:
        from ..triplet.distributed import connect

        if band not in ("auto", None):
            raise OptionError("the banded kernel runs in this process; with a scheduler the "
                              "workers score with the exact engine (band None)")
        with connect(scheduler, device=device) as client:
            return _triplet_distances(seqs, sc, mode, triplets, m, None, time_budget,
                                      transform, damp, device, threads, seed, client)
    return _triplet_distances(seqs, sc, mode, triplets, m, band, time_budget, transform,
                              damp, device, threads, seed, None, progress)


def _triplet_distances(seqs, sc, mode, triplets, m, band, time_budget, transform, damp, device,
                       threads, seed, client, progress=None) -> Distances:
    """:func:`triplet_distances` after its checks; ``client``: the Dask workers, or None."""
    n = len(seqs)
    nthreads = _numba.set_threads(threads)
    lengths = seqs.lengths
    timings = {}
    if client is not None:   # the workers resolve the device, and score exactly
        from ..triplet.distributed import cluster_rate, describe_workers

        dev = device
        exact_rate = cluster_rate(client, device, "exact" if sc.linear else "affine")
        where = describe_workers(client, device)
    else:
        dev = resolve_device(device)
        where = dev
    # engine and budget
    band = engine_band(band, dev, mode, sc)
    if band is not None:
        try:
            band = int(band)
        except (TypeError, ValueError):
            raise OptionError(f"band must be an integer >= 1, 'auto' or None, got {band!r}") \
                from None
        if band < 1:
            raise OptionError(f"band must be >= 1, got {band}")
        # a band as wide as the longest sequence holds every cell: wider ones are the same
        band = min(band, max(1, int(lengths.max())))
        if mode != "global":
            raise OptionError("the banded kernel computes global scores only; use band=None")
        if dev == "gpu":
            raise OptionError("the banded kernel runs on the CPU only; use band=None (the "
                              "exact engine) with a GPU")
    engine = "exact" if band is None else f"band{band}"
    rate = exact_rate if client is not None else _rate(dev, _engine_kind(band, mode, sc),
                                                       nthreads)
    budget_cells = time_budget * rate
    per_triplet = _mean_triplet_cells(lengths, band)
    if triplets == "auto":
        triplets = "all" if n_all_triplets(n) * per_triplet <= budget_cells else "sampled"

    t0 = time.perf_counter()
    # unrelated sequences' score per residue, from banded pairs: under the additive model a
    # triplet's is the same, and shuffled triplets would cost full cubes (nothing prunes)
    rho = random_rate(seqs, triplet=False, band=DEFAULT_BAND if band is None else band,
                      scoring=sc, seed=seed, threads=threads)
    timings["baseline"] = time.perf_counter() - t0
    self_sc = self_scores(seqs, sc)
    mm = 0
    prior_pairs = 0
    from ..triplet.pruned import Work

    work = Work()   # the cells the exact engine sweeps in this process
    if triplets == "all":
        prior = None
        if n < UNDERDETERMINED:   # exact global pairwise scores fill in the rest
            t0 = time.perf_counter()
            iu, ju = np.triu_indices(n, 1)
            ps = band_pair_scores(seqs, np.stack([iu, ju], 1), band=int(lengths.max()),
                                  scoring=sc, threads=threads)
            prior = np.zeros((n, n))
            prior[iu, ju] = prior[ju, iu] = ps
            prior_pairs = iu.size
            timings["prior"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        est = pairwise_from_triplets(seqs, None, mode=mode, scoring=sc, band=band, device=dev,
                                     threads=threads, scheduler=client, prior=prior,
                                     progress=progress, work=work)
        timings["triplets"] = time.perf_counter() - t0
        n_trip = n_all_triplets(n)
        supported, min_support, mm = n * (n - 1) // 2, n - 2, n - 2
    else:
        # prior: banded global pairwise scores of all pairs, or of the pairs the budget
        # allows with the rest filled in from k-mer distances (see pairwise_prior)
        t0 = time.perf_counter()
        iu, ju = np.triu_indices(n, 1)
        prior, prior_pairs, rho2, prior_seconds = _budgeted_pairs(
            seqs, sc, DEFAULT_BAND if band is None else band, PRIOR_SHARE * time_budget,
            nthreads, seed, progress, "cpu" if client is not None else dev)
        ps = prior[iu, ju]
        D_prior = score_distances(prior, self_sc, lengths, rho2, kind=transform)
        timings["prior"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        budget_cells = triplet_seconds(time_budget, prior_seconds) * rate
        max_trip = int(max(1, budget_cells // per_triplet))
        pairs = n * (n - 1) // 2
        mm = m if m is not None else int(max(2, min(n - 2, (2.4 * max_trip) // pairs)))
        by_cells = client is None and dev == "cpu" and _engine_kind(band, mode, sc) == \
            "affine-pruned"
        trip, support = sample_triplets(D_prior, mm,
                                        SWEEP_HEADROOM * max_trip if by_cells else max_trip,
                                        seed=seed)
        timings["design"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        if by_cells:   # the design's first triplets, as many as their cells allow
            S = scores_within(seqs, trip, sc, budget_cells / rate, nthreads,
                              progress=progress, work=work)
            trip = trip[:S.size]
            support = triplet_support(n, trip)
        else:
            S = _score(seqs, trip, band=band, scoring=sc, mode=mode, device=dev,
                       threads=threads, scheduler=client, progress=progress, work=work)
        timings["triplets"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        est = ls_triplets(n, trip, S, prior=prior, damp=damp)
        sup = support[iu, ju] > 0
        ell = (lengths[iu] + lengths[ju]) / 2.0
        delta = _calibrate(est[iu, ju] - ps, sup, D_prior[iu, ju], ell)
        est[iu, ju] = ps + delta
        est[ju, iu] = est[iu, ju]
        np.fill_diagonal(est, self_sc)
        timings["solve"] = time.perf_counter() - t0
        n_trip = trip.shape[0]
        supported = int(sup.sum())
        min_support = int(support[iu, ju][sup].min()) if supported else 0
    t0 = time.perf_counter()
    D = score_distances(est, self_sc, lengths, rho, kind=transform)
    timings["distances"] = time.perf_counter() - t0
    # cells of the scored triplets: the exact engine's |A| |B| |C|, the banded kernel's
    # (|A| + 1) (2w + 1)^2 with A the longest of the three
    if band is None:
        L = [int(x) for x in lengths]
        if triplets == "all":   # the third elementary symmetric sum, from power sums
            p1, p2, p3 = sum(L), sum(x * x for x in L), sum(x ** 3 for x in L)
            cells = (p1 ** 3 - 3 * p1 * p2 + 2 * p3) // 6
        else:
            cells = int(triplet_cells(lengths, trip).sum())
    else:
        if triplets == "all":   # the i-th shortest is the longest of C(i, 2) triplets
            Ls = np.sort(lengths.astype(np.int64))
            i = np.arange(n, dtype=np.int64)
            longest = int(np.sum(i * (i - 1) // 2 * (Ls + 1)))
        else:
            longest = int(np.sum(lengths[trip].max(axis=1) + 1))
        cells = longest * (2 * band + 1) ** 2
    info = dict(estimates=est, triplets=triplets, engine=engine, device=where,
                n_triplets=int(n_trip), pairs_supported=int(supported),
                min_support=int(min_support), m=int(mm),
                pairwise_prior=triplets == "all" and n < UNDERDETERMINED, cells=cells,
                prior_pairs=prior_pairs,
                swept_cells=work.swept_cells if work.triplets else None,
                swept_share=work.swept_cells / work.cube_cells if work.cube_cells else None,
                gaps=(f"{sc.gap_extend}" if sc.linear else f"{sc.gap_open} / {sc.gap_extend}"))
    return Distances(seqs.names, D, "triplet", info, timings)


def pair_score_distances(seqs, *, scoring: Scoring | None = None, band: int = DEFAULT_BAND,
                         time_budget: float = DEFAULT_TIME_BUDGET,
                         transform: str = "deficit", device: str = "cpu", threads: int = 0,
                         seed: int = 0, progress=None) -> Distances:
    """Distances from banded global pairwise alignment scores (see the module's notes).

    The pairs' scores are those of a sampled triplet design's prior
    (:func:`pairwise_prior`), with the whole time budget: every pair's banded score
    when they fit, otherwise the pairs that fit (each sequence's nearest neighbours by
    k-mer distance, and some at random) and, for the others, the similarity that scored
    pairs have at the same k-mer distance. The score-to-distance transform is the
    triplet source's (:func:`score_distances`), with the random rate of shuffled pairs.

    Parameters
    ----------
    seqs
        A :class:`~trimsa.io.SequenceSet`, FASTA path, SeqRecords, pairs or strings
        (at least 2 sequences).
    scoring
        Scores and gaps (linear or natural affine); None takes ``trimsa run``'s (the
        ``"progressive"`` defaults of :data:`trimsa.scoring.DEFAULTS`).
    band
        Half-width of the band around each pair's diagonal, ``>= 1``; a band as wide
        as the longer sequence gives the exact global score.
    time_budget
        Seconds for the pairs' scores, converted to cells at the banded pairwise
        kernel's rate (:data:`trimsa.triplet.plan.RATES`, which scales with the
        threads; an estimate, not a measurement, so that the same input, options and
        thread count give the same distances).
    transform
        ``"deficit"`` or ``"fd"`` (see :func:`score_distances`).
    device, threads
        Where the pairs are scored: ``"cpu"``, ``"gpu"`` (the same scores, bit for bit)
        or ``"auto"`` (the GPU when one is visible, said on stderr); CPU threads (0 = all
        cores). The budget's rate is the device's, so a partial set of pairs depends on
        the device (and on the threads on the CPU).
    seed
        Seed of the random pairs (a partial set of pairs) and of the shuffles.
    progress
        Called as ``progress(done, total, "pairwise scores")`` while pairs are scored.
    """
    _check_choice(transform, TRANSFORMS, "distance transform")
    if not (time_budget > 0):
        raise OptionError(f"time budget must be positive, got {time_budget}")
    check_device(device)
    if isinstance(band, bool) or not isinstance(band, (int, np.integer)) or band < 1:
        raise OptionError(f"band must be an integer >= 1, got {band!r}")
    if int(seed) < 0:
        raise OptionError(f"seed must be >= 0, got {seed}")
    seqs = as_sequence_set(seqs)
    seqs.require(2, "a guide tree from pairwise scores")
    sc = scoring_for(seqs, scoring, "progressive")
    n = len(seqs)
    from ..triplet._checks import check_memory

    check_memory(PAIR_SCORE_ARRAYS * 8.0 * n * n,
                 f"a guide tree from the pairwise scores of {n} sequences (about "
                 f"{PAIR_SCORE_ARRAYS} {n} x {n} arrays at once)")
    lengths = seqs.lengths
    band = int(min(band, max(1, int(lengths.max()))))
    dev = resolve_device(device)
    nthreads = _numba.set_threads(threads)
    report = None if progress is None else (
        lambda done, total, part=None: progress(done, total, "pairwise scores"))
    t0 = time.perf_counter()
    est, pairs, rho, _ = _budgeted_pairs(seqs, sc, band, time_budget, nthreads, seed, report,
                                         dev)
    t1 = time.perf_counter()
    self_sc = self_scores(seqs, sc)
    D = score_distances(est, self_sc, lengths, rho, kind=transform)
    timings = {"pairs": t1 - t0, "distances": time.perf_counter() - t1}
    info = dict(estimates=est, band=band, device=dev, pairs=n * (n - 1) // 2,
                prior_pairs=pairs, cells=None,
                gaps=(f"{sc.gap_extend}" if sc.linear else f"{sc.gap_open} / {sc.gap_extend}"))
    if pairs == info["pairs"]:
        info["cells"] = pair_score_cells(lengths, band)
    return Distances(seqs.names, D, "pair-score", info, timings)


def pair_score_cells(lengths, band: int = DEFAULT_BAND) -> int:
    """Cells of the banded scores of all pairs of sequences of ``lengths``: the kernel's
    (longer + 1) (2 ``band`` + 1) per pair (a band no wider than the longest sequence,
    as :func:`pair_score_distances` clips it), in closed form: the i-th shortest
    sequence is the longer of i pairs."""
    Ls = np.sort(np.asarray(lengths, np.int64))
    if Ls.size < 2:
        return 0
    band = int(min(band, max(1, int(Ls[-1]))))
    return int(np.sum(np.arange(Ls.size, dtype=np.int64) * (Ls + 1))) * (2 * band + 1)


#: The pair-score source's peak memory in ``n x n`` float64 arrays (its estimates, the
#: k-mer distances of a partial set of pairs, the distances and their temporaries; 6.0
#: with all pairs and 6.7 with a partial set measured with ``tracemalloc`` for 1,500
#: sequences: eval/experiments/2026-11-29-pair-score-tree/memory.log).
PAIR_SCORE_ARRAYS = 8

#: Distance sources by name (see the module's notes).
SOURCES = {"kmer": kmer_distances, "pair-score": pair_score_distances,
           "triplet": triplet_distances}
