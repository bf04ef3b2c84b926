"""A pairwise library for consistency-aware profile merges.

Every pair of the library is aligned once (global, affine gaps, the aligner's
own scores) and, by default, given the match posteriors of a pair HMM
(:mod:`trimsa.progressive.pair_hmm`) in a band around that alignment. While
the guide tree is walked, a merge of clusters A and B adds to the score of
pairing column ``i`` of A with column ``j`` of B the weighted
support the library gives it: directly (how probably ``s`` and ``t`` pair ``x``
with ``y``) and through every third sequence ``u`` among the witnesses (``x~z``
in the ``s,u`` pair and ``z~y`` in the ``u,t`` one) - T-Coffee's library
extension or ProbCons' consistency transformation, which is where each triplet
``(s, u, t)`` votes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._numba import in_threads
from . import _cpu
from .pair_hmm import FITTED


@dataclass
class Library:
    """Pairwise alignments indexed for the merges.

    The pairs are listed per sequence ``s`` (both directions, sorted):
    ``nbr[nbr_ptr[s]:nbr_ptr[s + 1]]`` are the sequences aligned with ``s``,
    ``nbr_map`` where each map from ``s`` starts in ``maps`` and ``probs``
    (``len(s)`` rows: the residues of the other sequence aligned with the
    residue, most probable first, -1 in unused slots, and their probabilities)
    ``nbr_ident`` the alignment's identity and ``nbr_trust`` the weight of its
    votes (its identity when it votes with its residue pairs, 1 when with
    posteriors, which carry their own confidence).
    """

    offsets: np.ndarray  # sequence offsets (n + 1)
    nbr_ptr: np.ndarray  # int64 (n + 1)
    nbr: np.ndarray  # int64 (2 * pairs)
    nbr_map: np.ndarray  # int64 (2 * pairs)
    nbr_ident: np.ndarray  # float64 (2 * pairs)
    nbr_trust: np.ndarray  # float64 (2 * pairs)
    maps: np.ndarray  # int32 (residues, slots)
    probs: np.ndarray  # float32 (residues, slots)
    pos: np.ndarray  # int64: every residue's current column in its cluster
    weight: float  # lambda: factor on the support added to the profile scores
    witnesses: np.ndarray  # third sequences that vote (int64)
    is_witness: np.ndarray  # int64 0/1 per sequence
    n_posterior: int = 0  # pairs that vote with posteriors, not with their alignment

    @property
    def n(self) -> int:
        return self.offsets.size - 1

    @property
    def n_pairs(self) -> int:
        return self.nbr.size // 2

    def _slot(self, s: int, t: int) -> int:
        lo, hi = self.nbr_ptr[s], self.nbr_ptr[s + 1]
        k = lo + int(np.searchsorted(self.nbr[lo:hi], t))
        if k < hi and self.nbr[k] == t:
            return k
        raise KeyError(f"the library holds no alignment of sequences {s} and {t}")

    def map(self, s: int, t: int) -> np.ndarray:
        """For each residue of ``s``, the residue of ``t`` most probably aligned to it, or -1."""
        k = self._slot(s, t)
        o = self.nbr_map[k]
        return self.maps[o:o + self.offsets[s + 1] - self.offsets[s], 0]

    def partners(self, s: int, t: int) -> tuple[np.ndarray, np.ndarray]:
        """For each residue of ``s``, the residues of ``t`` aligned to it (``(len(s), slots)``,
        -1 in unused slots) and their probabilities."""
        k = self._slot(s, t)
        o = self.nbr_map[k]
        e = o + self.offsets[s + 1] - self.offsets[s]
        return self.maps[o:e], self.probs[o:e]

    def identity(self, s: int, t: int) -> float:
        """The share of identical residues among the aligned pairs of ``s`` and ``t``."""
        return float(self.nbr_ident[self._slot(s, t)])

    def identities(self) -> np.ndarray:
        """``(n, n)`` identities of all pairs (NaN where the library holds no alignment)."""
        out = np.full((self.n, self.n), np.nan)
        rows = np.repeat(np.arange(self.n), np.diff(self.nbr_ptr))
        out[rows, self.nbr] = self.nbr_ident
        return out

    def scores(self, la, lb, mem_a, mem_b, w, threads: int = 1):
        """The library's support of each pair of columns of two clusters (``(la, lb)``;
        :func:`trimsa.progressive._cpu.consistency_scores`), its rows (A's columns) split
        into :func:`score_parts` bands filled on ``threads`` threads; each sequence's
        votes are listed once (:func:`trimsa.progressive._cpu.fill_entries`) for all the
        bands. Every cell gets its votes in the same order however the rows are split:
        the result does not depend on ``threads``."""
        mem_a = np.asarray(mem_a, np.int64)
        mem_b = np.sort(np.asarray(mem_b, np.int64))
        C = np.zeros((la, lb), np.float32)
        parts = score_parts(mem_a.size, mem_b.size, la)
        edges = np.linspace(0, la, parts + 1).round().astype(np.int64)
        if self.separable():
            return self._separable_scores(C, mem_a, mem_b, w, edges, threads)
        # each sequence's votes, listed once for every band of rows (on the threads where
        # the merge is split into bands: a small merge is not worth a pool)
        counts = np.zeros(mem_a.size + 1, np.int64)
        idx = np.arange(mem_a.size)
        list_threads = threads if parts > 1 else 1
        in_threads(lambda i: _cpu.entry_counts(i, mem_a, mem_b, self.nbr_ptr, self.nbr,
                                               self.is_witness, counts[1:]), idx, list_threads)
        ptr = np.cumsum(counts)
        e_o1, e_o2, e_t = (np.empty(ptr[-1], np.int64) for _ in range(3))
        e_w = np.empty(ptr[-1], np.float32)
        z_part = np.zeros(mem_a.size)
        in_threads(lambda i: _cpu.fill_entries(
            i, mem_a, mem_b, self.nbr_ptr, self.nbr, self.nbr_map, self.nbr_trust, w,
            self.is_witness, ptr, e_o1, e_o2, e_t, e_w, z_part), idx, list_threads)

        def part(idx):
            for i in idx:
                _cpu.consistency_scores(mem_a, self.pos, self.offsets, self.maps, self.probs,
                                        ptr, e_o1, e_o2, e_t, e_w, C, edges[i], edges[i + 1])

        in_threads(part, np.arange(parts), threads)
        # the normaliser, rounded once: the same however A is split
        return _normalised(C, math.fsum(z_part))

    def separable(self) -> bool:
        """Whether the library holds every pair of sequences and weights all their votes
        alike (posterior votes), so that :meth:`scores` can sum the votes through each
        witness over each cluster once (:func:`trimsa.progressive._cpu.separable_scores`)."""
        n = self.n
        return (self.nbr.size == n * (n - 1) and self.nbr_trust.size > 0
                and bool(np.all(self.nbr_trust == self.nbr_trust[0])))

    def _separable_scores(self, C, mem_a, mem_b, w, edges, threads):
        """:meth:`scores` of a :meth:`separable` library."""
        cls_a = self.is_witness[mem_a]
        cls_b = self.is_witness[mem_b]
        wit = self.witnesses
        tau = float(self.nbr_trust[0])
        # tau / count of a pair of classes (1: a witness); a count below 1 is a pair of
        # classes no pair has (two witnesses of one)
        factor = np.array([[tau / max(1, 1 + wit.size - ca - cb) for cb in (0, 1)]
                           for ca in (0, 1)])
        sides = [None] * wit.size
        lb = C.shape[1]

        lengths = np.diff(self.offsets)
        raw = int(lengths[wit].max(initial=0)) * mem_b.size * self.maps.shape[1]

        def side(idx):
            stamp = np.full(2 * lb, -1, np.int64)
            slot = np.empty(2 * lb, np.int64)
            m = raw if idx.size else 0   # (in_threads first calls with no items)
            scratch = np.empty(m, np.int64), np.empty(m, np.int64), np.empty(m)
            for i in idx:
                sides[i] = _cpu.witness_side(mem_b, cls_b, wit[i], self.pos, self.offsets,
                                             self.nbr_ptr, self.nbr, self.nbr_map, self.maps,
                                             self.probs, w, stamp, slot, *scratch)

        in_threads(side, np.arange(wit.size), threads if edges.size > 2 else 1)  # as the bands
        zoff = np.zeros(wit.size + 1, np.int64)
        ptrs, keys, vals = [np.zeros(0, np.int64)], [np.zeros(0, np.int64)], [np.zeros(0)]
        entries = 0
        for i, (ptr, k, v) in enumerate(sides):
            zoff[i + 1] = zoff[i] + ptr.size
            ptrs.append(ptr + entries)
            keys.append(k)
            vals.append(v)
            entries += k.size
        side_ptr, side_keys, side_vals = (np.concatenate(x) for x in (ptrs, keys, vals))

        def part(idx):
            for i in idx:
                _cpu.separable_scores(mem_a, cls_a, mem_b, cls_b, self.pos, self.offsets,
                                      self.nbr_ptr, self.nbr, self.nbr_map, self.maps, self.probs,
                                      w, wit, zoff, side_ptr, side_keys, side_vals, factor, C,
                                      edges[i], edges[i + 1])

        in_threads(part, np.arange(edges.size - 1), threads)
        # every pair of A x B has votes
        return _normalised(C, float(np.asarray(w)[mem_a].sum() * np.asarray(w)[mem_b].sum()))

    def best_triplet(self, lengths, threads: int = 1) -> tuple[np.ndarray, float]:
        """``(moves, support)`` of an alignment of the library's three sequences with the
        most support: the sum, over the columns, of the support (:meth:`scores`, witness
        paths included) of each pair of residues the column holds; gaps score nothing
        (ProbCons' maximum expected accuracy, over three sequences at once). Exact, in
        memory quadratic in the lengths (:func:`support_alignment`). ``moves`` are bit
        sets per column (bit ``d``: sequence ``d`` has a residue)."""
        if self.n != 3:
            raise ValueError(f"best_triplet needs a library of three sequences, not {self.n}")
        one = np.ones(3)
        C = {(s, t): self.scores(lengths[s], lengths[t], [s], [t], one, threads)
             for s, t in ((0, 1), (0, 2), (1, 2))}
        return support_alignment(C[0, 1], C[0, 2], C[1, 2])

    def moved(self, members, m):
        _cpu.update_positions(self.pos, self.offsets, members, m)

    def set_witnesses(self, witnesses) -> None:
        """The third sequences whose alignments vote from now on."""
        self.witnesses = np.asarray(witnesses, np.int64)
        self.is_witness = np.zeros(self.n, np.int64)
        self.is_witness[self.witnesses] = 1


def _normalised(C, z: float):
    """``C`` divided in place by the weights ``z`` of the pairs that have votes (if any)."""
    if z > 0:
        C *= np.float32(1.0 / z)
    return C


#: Most bands of rows the support of one merge is split into, the fewest pairs of
#: sequences (``|A| * |B|``) worth splitting, and the fewest rows per band.
SCORE_PARTS = 16
SCORE_PART_PAIRS = 64
SCORE_PART_ROWS = 32


def score_parts(na: int, nb: int, la: int) -> int:
    """Bands of rows one merge's support is split into (a function of the sizes only)."""
    if na * nb < SCORE_PART_PAIRS:
        return 1
    return int(max(1, min(SCORE_PARTS, la // SCORE_PART_ROWS)))


#: Bytes per residue and slot of a library's maps (``int32`` partner, ``float32`` probability).
SLOT_BYTES = 8


def library_bytes(lengths, slots: int = 1) -> float:
    """Memory of the library's residue maps (both directions of every pair)."""
    L = np.asarray(lengths, float)
    return SLOT_BYTES * slots * L.sum() * (L.size - 1)


def library_cells(lengths) -> float:
    """DP cells of all pairwise alignments (to decide whether a library is affordable)."""
    L = np.asarray(lengths, float)
    return float((L.sum() ** 2 - (L ** 2).sum()) / 2)


def pick_witnesses(n: int, order=None, most: int | None = None) -> np.ndarray:
    """Up to ``most`` third sequences, evenly spaced along ``order`` (e.g. the guide tree's leaves)."""
    order = np.arange(n) if order is None else np.asarray(order, np.int64)
    if most is None or most >= n:
        return np.sort(order)
    if most <= 0:
        return np.zeros(0, np.int64)
    idx = np.unique(np.linspace(0, n - 1, most).round().astype(np.int64))
    return np.sort(order[idx])


#: Pairs aligned between two calls of ``build_library``'s ``progress``.
PROGRESS_PAIRS = 4096


def all_pairs(n: int) -> np.ndarray:
    """Every pair ``(s, t)``, ``s < t``, of ``n`` sequences."""
    return np.ascontiguousarray(np.stack(np.triu_indices(n, 1), axis=1).astype(np.int64))


def pairs_cost(lengths, pairs, slots: int = 1) -> tuple[float, float]:
    """DP cells and bytes of residue maps of the library of ``pairs``."""
    L = np.asarray(lengths, float)
    pairs = np.asarray(pairs, np.int64).reshape(-1, 2)
    return (float((L[pairs[:, 0]] * L[pairs[:, 1]]).sum()),
            SLOT_BYTES * slots * float((L[pairs[:, 0]] + L[pairs[:, 1]]).sum()))


#: Partners kept per residue by a library of posteriors, and the least probability kept.
POSTERIOR_SLOTS = 4
POSTERIOR_FLOOR = 0.01
#: Columns either side of a pair's alignment path within which its posteriors are computed
#: (:func:`trimsa.progressive._cpu.path_band`; -1: the whole DP table).
POSTERIOR_BAND = 64


def build_library(codes, table, gap_open, gap_extend, term, *, pairs=None, weight=1.0,
                  witnesses=None, posterior: bool = False, hmm=None, slots: int | None = None,
                  threads: int = 1, progress=None, device: str = "cpu", gpus=None,
                  scheduler=None) -> Library:
    """Align ``pairs`` of ``codes`` (compact code arrays; default: all pairs) and index them.

    ``table`` is the substitution table over the compact codes; ``gap_open``
    and ``gap_extend`` the gap scores (<= 0) and ``term`` the end-gap factor
    of the profile aligner.

    ``witnesses``: the third sequences whose alignments vote (default: all;
    an empty array keeps only the direct pairwise support; see
    :meth:`Library.set_witnesses`). ``posterior``: each residue keeps its
    :data:`POSTERIOR_SLOTS` most probable partners under the pair HMM ``hmm`` (a
    :class:`~trimsa.progressive.pair_hmm.PairHmm` over the codes of ``table``; default
    the three-state one fitted to each pair's alignment), in the band of
    :data:`POSTERIOR_BAND` columns either side of its path
    (:func:`trimsa.progressive._cpu.pair_maps`), instead of the one it is
    aligned with (a pair whose posteriors are not finite keeps its alignment's;
    :attr:`Library.n_posterior` counts the others). ``slots``: how many partners
    each residue keeps with ``posterior`` (default :data:`POSTERIOR_SLOTS`; the
    most probable are kept, so fewer slots keep a prefix of more); without it, 1.
    ``progress(done, total)`` is called after every :data:`PROGRESS_PAIRS` pairs (on
    the GPU: after every batch; on Dask workers: after every part). ``device``:
    ``"cpu"`` (numba, ``threads`` threads) or ``"gpu"``
    (:func:`trimsa.progressive._gpu.pair_maps` on the GPUs ``gpus``, default every
    visible one). ``scheduler`` (a :func:`trimsa.triplet.distributed.connect`
    spec or client): the pairs are aligned on its Dask workers
    (:func:`align_pairs_distributed`), each on its ``device`` (there ``"auto"``
    too: the worker's GPU when it has one). The library is the same, bit for
    bit, wherever it is built.
    """
    n = len(codes)
    lengths = np.array([c.size for c in codes], np.int64)
    offsets = np.zeros(n + 1, np.int64)
    offsets[1:] = np.cumsum(lengths)
    flat = np.concatenate(codes).astype(np.int64) if n else np.zeros(0, np.int64)
    if pairs is None:
        pairs = all_pairs(n)
    pairs = np.asarray(pairs, np.int64).reshape(-1, 2)
    pairs = np.unique(np.sort(pairs, axis=1), axis=0)
    if pairs.size and (pairs[:, 0] == pairs[:, 1]).any():
        raise ValueError("a library pair joins a sequence to itself")
    pairs = np.ascontiguousarray(pairs)
    slots = library_slots(posterior, slots)
    tab = np.ascontiguousarray(table, np.float32)
    hmm = FITTED if hmm is None else hmm
    if hmm.odds.size and hmm.odds.shape != tab.shape:
        raise ValueError(f"the pair HMM's odds are over {hmm.odds.shape[0]} codes, the "
                         f"table over {tab.shape[0]}")
    args = (tab, np.float32(gap_open), np.float32(gap_extend), np.float32(term), bool(posterior),
            slots, hmm)
    if scheduler is not None:
        if gpus is not None:
            raise ValueError("gpus cannot be combined with a scheduler (each Dask worker "
                             "uses its own GPU)")
        aligned = align_pairs_distributed(flat, offsets, pairs, *args, device=device,
                                          progress=progress, scheduler=scheduler)
    else:
        aligned = align_pairs(flat, offsets, pairs, *args, threads=threads, progress=progress,
                              device=device, gpus=gpus)
    library = _index(offsets, pairs, *aligned[:-1], weight, witnesses)
    library.n_posterior = int(aligned[-1].sum())
    return library


def pair_layout(lengths, pairs) -> tuple[np.ndarray, np.ndarray]:
    """Where each pair's two maps start in the library's rows (``(off_st, off_ts)``): the
    pairs one after the other, each with its first sequence's residues, then its second's."""
    sizes = lengths[pairs[:, 0]] + lengths[pairs[:, 1]]
    off_st = np.zeros(len(pairs), np.int64)
    off_st[1:] = np.cumsum(sizes)[:-1]
    return off_st, off_st + lengths[pairs[:, 0]]


def align_pairs(flat, offsets, pairs, tab, g, e, tm, posterior, slots, hmm=FITTED, *,
                threads=1, progress=None, device="cpu", gpus=None) -> tuple:
    """Align ``pairs`` (sorted, ``s < t``) of the sequences ``flat[offsets[i]:offsets[i+1]]``
    on this process's ``device`` and return the library's arrays in
    :func:`pair_layout`: ``off_st, off_ts, ident, trust, maps, probs, has_post``
    (``slots`` partners per residue; posteriors of the pair HMM ``hmm``)."""
    P = len(pairs)
    h_odds = np.ascontiguousarray(hmm.odds, np.float64)
    h_gaps = np.ascontiguousarray(hmm.gaps, np.float64)
    # the table to fit each pair's HMM with; None (a given HMM): numba compiles no fitting
    fit = tab if posterior and h_odds.shape[0] == 0 else None
    arrays = _allocate(np.diff(offsets), pairs, slots)
    off_st, off_ts, ident, trust, maps, probs, has_post = arrays
    if device == "gpu":
        from . import _gpu

        _gpu.pair_maps(flat, offsets, pairs, tab, g, e, tm, off_st, off_ts, maps, probs, ident,
                       trust, has_post, posterior, h_odds, h_gaps, POSTERIOR_FLOOR,
                       POSTERIOR_BAND, threads, progress, gpus)
    elif device == "cpu":
        if gpus is not None:
            raise ValueError("gpus applies to device 'gpu'")
        for lo in range(0, P, PROGRESS_PAIRS):
            block = np.arange(lo, min(lo + PROGRESS_PAIRS, P))
            in_threads(lambda idx: _cpu.pair_maps(flat, offsets, pairs, idx, tab, g, e, tm,
                                                  off_st, off_ts, maps, probs, ident, trust,
                                                  has_post, posterior, h_odds, h_gaps, fit,
                                                  POSTERIOR_FLOOR, POSTERIOR_BAND),
                       block, threads)
            if progress is not None:
                progress(int(block[-1]) + 1, P)
    else:
        raise ValueError(f"device must be 'cpu' or 'gpu', got {device!r}")
    return arrays


def library_slots(posterior: bool, slots: int | None = None) -> int:
    """Partners kept per residue: ``slots`` (default :data:`POSTERIOR_SLOTS`) with
    posteriors, 1 without."""
    if slots is None:
        return POSTERIOR_SLOTS if posterior else 1
    if not isinstance(slots, (int, np.integer)) or slots < 1:
        raise ValueError(f"slots must be a positive integer, got {slots!r}")
    if not posterior and slots != 1:
        raise ValueError("a library without posteriors keeps 1 partner per residue")
    return int(slots)


def _allocate(lengths, pairs, slots: int) -> tuple:
    """The library's arrays for ``pairs``, unfilled (see :func:`align_pairs`)."""
    P = len(pairs)
    off_st, off_ts = pair_layout(lengths, pairs)
    rows = int((lengths[pairs[:, 0]] + lengths[pairs[:, 1]]).sum())
    return (off_st, off_ts, np.zeros(P, np.float64), np.zeros(P, np.float64),
            np.full((rows, slots), -1, np.int32), np.zeros((rows, slots), np.float32),
            np.zeros(P, np.uint8))


#: Parts per Dask worker of a distributed library (cut by cells, largest first).
PARTS_PER_WORKER = 4


def _pairs_task(payload, pairs, tab, g, e, tm, posterior, slots, hmm, device):
    """The Dask task of :func:`align_pairs_distributed`: one part's arrays, its pairs laid
    out as if they were the whole library (``ident, trust, maps, probs, has_post``)."""
    from ..triplet.backends import resolve_device
    from ..triplet.distributed import worker_threads

    dev = resolve_device(device, announce=False)
    _, _, *arrays = align_pairs(payload.codes, payload.offsets, pairs, tab, g, e, tm,
                                posterior, slots, hmm, threads=worker_threads(), device=dev)
    return tuple(arrays)


def align_pairs_distributed(flat, offsets, pairs, tab, g, e, tm, posterior, slots, hmm=FITTED,
                            *, device="auto",
                            progress=None, scheduler="local:2",
                            parts_per_worker: int = PARTS_PER_WORKER) -> tuple:
    """:func:`align_pairs` on the Dask workers of ``scheduler``: the pairs are cut into
    parts of about equal cells (:func:`trimsa.triplet.plan.dynamic`), largest first, and
    each part is aligned on a worker's ``device`` and written back in place. On a local
    cluster of a GPU machine (``device`` not ``"cpu"``) each worker has one GPU."""
    import uuid

    from ..triplet import distributed as tdist
    from ..triplet import plan

    lengths = np.diff(offsets)
    P = len(pairs)
    sizes = lengths[pairs[:, 0]] + lengths[pairs[:, 1]]
    arrays = _allocate(lengths, pairs, slots)
    off_st, off_ts, ident, trust, maps, probs, has_post = arrays
    written = np.zeros(P, np.int8)
    if P == 0:
        return arrays
    costs = (lengths[pairs[:, 0]] * lengths[pairs[:, 1]]).astype(np.float64)
    payload = tdist.Payload(uuid.uuid4().hex, np.ascontiguousarray(flat, np.int64),
                            np.ascontiguousarray(offsets, np.int64), None)
    done = [0]
    with tdist.connect(scheduler, device=device) as client:
        W = len(client.scheduler_info()["workers"])
        parts = [p for p in plan.dynamic(costs, min(P, W * parts_per_worker)) if p.size]
        order = sorted(range(len(parts)), key=lambda p: -costs[parts[p]].sum())

        def store(p, arrays):
            idx = parts[p]
            p_ident, p_trust, p_maps, p_probs, p_post = arrays
            n_rows = sizes[idx]
            local = np.cumsum(n_rows) - n_rows
            at = (np.arange(int(n_rows.sum())) - np.repeat(local, n_rows)
                  + np.repeat(off_st[idx], n_rows))
            maps[at] = p_maps
            probs[at] = p_probs
            ident[idx], trust[idx], has_post[idx] = p_ident, p_trust, p_post
            written[idx] += 1
            done[0] += idx.size
            if progress is not None:
                progress(done[0], P)

        tdist.run_parts(client, payload, lambda p: pairs[parts[p]], order, _pairs_task,
                        (tab, g, e, tm, posterior, slots, hmm, device), store, in_flight=W)
    if not (written == 1).all():  # pragma: no cover - would be a bug in the partition
        raise AssertionError("internal error: a library pair was written %d times"
                             % int(written[written != 1][0]))
    return arrays


def _index(offsets, pairs, off_st, off_ts, ident, trust, maps, probs, weight,
           witnesses) -> Library:
    n = offsets.size - 1
    src = np.concatenate([pairs[:, 0], pairs[:, 1]])
    dst = np.concatenate([pairs[:, 1], pairs[:, 0]])
    order = np.lexsort((dst, src))
    nbr_ptr = np.zeros(n + 1, np.int64)
    nbr_ptr[1:] = np.cumsum(np.bincount(src, minlength=n))
    lengths = np.diff(offsets)
    pos = np.concatenate([np.arange(x) for x in lengths]).astype(np.int64) if n else \
        np.zeros(0, np.int64)
    library = Library(offsets, nbr_ptr, np.ascontiguousarray(dst[order]),
                      np.ascontiguousarray(np.concatenate([off_st, off_ts])[order]),
                      np.ascontiguousarray(np.concatenate([ident, ident])[order]),
                      np.ascontiguousarray(np.concatenate([trust, trust])[order]), maps, probs,
                      pos,
                      float(weight), np.zeros(0, np.int64), np.zeros(n, np.int64))
    library.set_witnesses(pick_witnesses(n) if witnesses is None else witnesses)
    return library


def tree_pairs(tree, per_merge: int, seed: int = 0) -> np.ndarray:
    """Pairs for a library along a binary guide tree: at each merge, up to ``per_merge``
    pairs joining a sequence of one side to one of the other (all of them where there
    are no more; otherwise drawn at random, without repeats, with a fixed ``seed``).

    Every merge then has direct support, and pairs chosen at different merges join
    into paths that vote through their shared sequence.
    """
    n = tree.n
    order = np.asarray(tree.leaves(), np.int64)
    # each node's leaves are a contiguous run of the leaf order
    lo = np.zeros(len(tree.length), np.int64)
    hi = np.zeros(len(tree.length), np.int64)
    lo[order] = np.arange(n)
    hi[order] = np.arange(1, n + 1)
    rng = np.random.default_rng(seed)
    out = []
    for v in tree.postorder():
        a, b = tree.children[v - n]
        lo[v], hi[v] = min(lo[a], lo[b]), max(hi[a], hi[b])
        A, B = order[lo[a]:hi[a]], order[lo[b]:hi[b]]
        total = A.size * B.size
        if total <= per_merge:
            flat = np.arange(total)
        else:
            flat = rng.choice(total, per_merge, replace=False)
        out.append(np.stack([A[flat // B.size], B[flat % B.size]], axis=1))
    if not out:
        return np.zeros((0, 2), np.int64)
    pairs = np.sort(np.concatenate(out), axis=1)
    return np.unique(pairs, axis=0)


#: Largest cube (cells) of the support DP of three sequences traced back in full (one
#: byte of pointer per cell); larger ones are split (:func:`support_alignment`).
SUPPORT_CUBE = 1 << 26


def support_alignment(Cab, Cac, Cbc, cube: int = SUPPORT_CUBE) -> tuple[np.ndarray, float]:
    """``(moves, support)`` of an alignment of three sequences with the most support.

    ``Cab`` (``la x lb``), ``Cac`` and ``Cbc`` give the support of each pair of residues
    of two of the sequences; a column scores the sum over its pairs of residues, gaps
    nothing. Only cells that can lie on an optimal path are filled (Carrillo and
    Lipman's bound: the best pairwise alignments through a cell's three projections
    must reach the support of a known alignment, :func:`_cpu.support_guess`). Cubes of
    at most ``cube`` cells are traced back in full (:func:`_cpu.support_moves`); larger
    ones, with the longest sequence first, are cut in the middle layer ``mid`` of the
    first sequence at the cell ``(mid, j, k)`` of the most support of the prefixes'
    forward sweep plus the suffixes' reversed sweep (:func:`_cpu.support_last`; the
    first such cell in ``(j, k)`` order), which lies on an optimal path, and both
    halves are solved the same way (Hirschberg's divide and conquer in three
    dimensions). Ties keep the lowest move, so the alignment depends only on the inputs.
    """
    mats = {(0, 1): np.asarray(Cab, np.float64), (0, 2): np.asarray(Cac, np.float64),
            (1, 2): np.asarray(Cbc, np.float64)}
    lengths = (mats[0, 1].shape[0], mats[0, 1].shape[1], mats[0, 2].shape[1])
    if mats[0, 2].shape != (lengths[0], lengths[2]) or mats[1, 2].shape != lengths[1:]:
        raise ValueError(f"support matrices of shapes {mats[0, 1].shape}, {mats[0, 2].shape}, "
                         f"{mats[1, 2].shape} do not fit three sequences")
    order = sorted(range(3), key=lambda d: -lengths[d])

    def pair(s, t):
        return mats[s, t] if s < t else mats[t, s].T

    C = [np.ascontiguousarray(pair(order[x], order[y])) for x, y in ((0, 1), (0, 2), (1, 2))]
    B = [_cpu.pair_support_bound(c) for c in C]
    guess = _cpu.support_guess(*C)
    low = guess - 1e-9 * max(1.0, abs(guess))   # sums in other orders may round lower
    moves, total = _split(C, B, low, cube)
    out = np.zeros_like(moves)
    for d, src in enumerate(order):
        out |= ((moves >> d) & 1) << src
    return out.astype(np.uint8), total


def _split(C, B, low, cube):
    """:func:`support_alignment` of the box whose support matrices are ``C`` and
    pairwise bounds (at its lattice points) ``B``."""
    la, lb = C[0].shape
    lc = C[1].shape[1]
    if la <= 1 or (la + 1) * (lb + 1) * (lc + 1) <= cube:
        return _cpu.support_moves(*C, *B, low)
    mid = la // 2

    def flip(x):
        return np.ascontiguousarray(x[::-1, ::-1])

    c = np.ascontiguousarray
    F = _cpu.support_last(c(C[0][:mid]), c(C[1][:mid]), C[2],
                          c(B[0][:mid + 1]), c(B[1][:mid + 1]), B[2], low)
    R = _cpu.support_last(flip(C[0][mid:]), flip(C[1][mid:]), flip(C[2]),
                          flip(B[0][mid:]), flip(B[1][mid:]), flip(B[2]), low)[::-1, ::-1]
    total = F + R
    j, k = np.unravel_index(int(np.argmax(total)), total.shape)
    left, _ = _split([c(C[0][:mid, :j]), c(C[1][:mid, :k]), c(C[2][:j, :k])],
                     [c(B[0][:mid + 1, :j + 1]), c(B[1][:mid + 1, :k + 1]),
                      c(B[2][:j + 1, :k + 1])], low, cube)
    right, _ = _split([c(C[0][mid:, j:]), c(C[1][mid:, k:]), c(C[2][j:, k:])],
                      [c(B[0][mid:, j:]), c(B[1][mid:, k:]), c(B[2][j:, k:])], low, cube)
    return np.concatenate([left, right]), float(total[j, k])
