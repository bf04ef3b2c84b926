"""Exact 3-way alignment: scores of triplet batches and optimal alignments.

Modes (``H`` is the ``(|A|+1) x (|B|+1) x (|C|+1)`` cube of best prefix
scores; a column scores the sum of its three pairs):

``global``
    ``H[0,0,0] = 0``; the faces follow the same recurrence with the missing
    predecessors left out (so ``H[i,0,0] = 2 i gap``). The score is
    ``H[|A|,|B|,|C|]``.
``semiglobal``
    ``H = 0`` on the three faces ``i = 0``, ``j = 0``, ``k = 0``: residues
    before the point where the alignment starts are free. The score is the
    maximum of ``H`` over the three far faces ``i = |A|``, ``j = |B|``,
    ``k = |C|``: residues after it are free too.
``local``
    As semiglobal, and every cell is floored at 0; the score is the maximum
    over all cells (0 when nothing scores positive).

In a semiglobal or local alignment the unscored residues before and after
the aligned core are written as flanks, one residue per column against two
gaps (first ``a``'s, then ``b``'s, then ``c``'s), so that they claim no
homology.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from .. import _numba
from ..errors import OptionError, TooFewSequencesError
from ..io import SequenceSet, api_record, as_sequence_set, encode_records
from ..scoring import Mode, Scoring, check_mode
from . import backends
from ._checks import (
    BATCH_TRIPLETS,
    all_triplets,
    check_overflow,
    check_plane_memory,
    check_triplets,
    iter_all_triplets,
    scoring_for,
)
from .backends import Device, check_precision, resolve_device
from .pruned import Pruning, Work, check_pruning

__all__ = ["TripletAlignment", "align_triplet", "align_triplets", "all_triplets",
           "iter_all_triplets", "require_three", "resolve_device", "score_triplets"]

#: Largest cube (cells) traced back in full; larger ones use divide and conquer.
CUBE_CELLS = 1 << 22
#: Triplets per block of the lazily enumerated set of all triplets on GPUs (each
#: block ends with every device waiting for the slowest one, and a block of 2^24
#: triplets is 200 MB of indices); the CPU takes ``_checks.BATCH_TRIPLETS``.
GPU_BATCH_TRIPLETS = 1 << 24


@dataclass(frozen=True)
class TripletAlignment:
    """An optimal alignment of three sequences.

    Attributes
    ----------
    rows
        The three aligned rows (input characters and ``-``), of equal length.
    score
        Its score under the mode and scoring used.
    mode
        ``"global"``, ``"semiglobal"`` or ``"local"``.
    core
        ``((i0, j0, k0), (i1, j1, k1))``: the residues ``a[i0:i1]``,
        ``b[j0:j1]``, ``c[k0:k1]`` form the scored part (all of them for
        global alignments).
    names
        Names of the three sequences, when known.
    """

    rows: tuple
    score: int
    mode: str = "global"
    core: tuple = ((0, 0, 0), (0, 0, 0))
    names: tuple = ("a", "b", "c")

    def __str__(self) -> str:
        return "\n".join(self.rows)

    def to_fasta(self) -> str:
        return "".join(f">{n}\n{r}\n" for n, r in zip(self.names, self.rows))

    def to_biopython(self):
        """The alignment as a :class:`Bio.Align.MultipleSeqAlignment`."""
        from Bio.Align import MultipleSeqAlignment
        from Bio.Seq import Seq
        from Bio.SeqRecord import SeqRecord

        return MultipleSeqAlignment(
            [SeqRecord(Seq(r), id=n, description="") for n, r in zip(self.names, self.rows)]
        )


def score_triplets(seqs, triplets=None, *, mode: Mode = "global", scoring: Scoring | None = None,
                   device: Device = "cpu", threads: int = 0,
                   precision: Literal["auto", "int32", "int16"] = "auto", gpus=None,
                   scheduler=None, partition: str = "dynamic", pruning: Pruning = "auto",
                   work: Work | None = None) -> np.ndarray:
    """Exact 3-way alignment scores of many triplets.

    Parameters
    ----------
    seqs
        A :class:`~trimsa.io.SequenceSet`, a FASTA path, SeqRecords,
        ``(name, sequence)`` pairs or strings.
    triplets
        ``(T, 3)`` integer indices into ``seqs``; ``None`` scores all
        ``C(n, 3)`` triplets ``i < j < k`` in lexicographic order
        (:func:`all_triplets`).
    mode
        ``"global"``, ``"semiglobal"`` or ``"local"``.
    scoring
        Defaults to the triplet stage's :meth:`Scoring.for_alphabet` of the
        sequences' alphabet. Linear gaps, or natural affine gaps (``gap_open`` and
        ``gap_extend``: docs/engine.md).
    device
        ``"cpu"``, ``"gpu"`` or ``"auto"`` (GPU when CuPy sees one).
    threads
        CPU threads (0 = all cores).
    precision
        GPU arithmetic: ``"auto"`` (packed 16-bit wherever a bound derived from
        the lengths and scores proves it exact, 32-bit elsewhere; with affine
        gaps only for batches of at least as many such triplets as the kernel's
        resident warps, see docs/engine.md), ``"int32"`` or ``"int16"`` (still
        32-bit for triplets that could overflow). Results are identical in every
        case. The CPU always computes in 32 bits, so any value but ``"auto"`` is
        an error there.
    gpus
        With a GPU device: the device numbers to use (``None`` = every
        visible GPU, one host thread each; see docs/scaling.md).
    scheduler
        ``None`` (this process), ``"local:N"`` (a local Dask cluster of
        ``N`` workers), a Dask scheduler address ``"tcp://HOST:PORT"`` or a
        ``distributed.Client``; see
        :func:`trimsa.triplet.distributed.score_triplets_distributed`.
    partition
        How triplets are split over GPUs or workers: ``"dynamic"`` (balanced
        by DP cells), ``"blocked"`` or ``"interleaved"``
        (:mod:`trimsa.triplet.plan`).
    pruning
        ``"auto"``: global triplets with affine gaps are scored in the part of
        their cube that a bound from their three pairwise alignments leaves
        (:mod:`trimsa.triplet.pruned`; the same scores, usually a few hundredths
        of the cells or fewer); ``"off"``: every cube in full.
    work
        A :class:`~trimsa.triplet.pruned.Work` that receives the triplets, their
        cube cells and the cells swept (on this process's devices; not from Dask
        workers).

    Returns
    -------
    numpy.ndarray
        ``int64`` scores, one per triplet, in the order given.

    Examples
    --------
    >>> score_triplets(["ACGT", "ACGT", "ACGT"]).tolist()
    [12]
    """
    seqs = as_sequence_set(seqs, scoring.alphabet if isinstance(scoring, Scoring) else None)
    m = check_mode(mode)
    check_pruning(pruning)
    sc = scoring_for(seqs, scoring)
    if triplets is None:
        seqs.require(3, "triplet scoring")
    else:
        trip = check_triplets(triplets, len(seqs))
    check_overflow(seqs, sc)
    if scheduler is not None:
        if gpus is not None:
            raise OptionError("gpus cannot be combined with a scheduler "
                              "(each Dask worker uses its own GPU)")
        if precision != "auto":
            raise OptionError("precision cannot be chosen with a scheduler "
                              "(each Dask worker takes its own)")
        if pruning != "auto":
            raise OptionError("pruning cannot be chosen with a scheduler "
                              "(each Dask worker prunes where the bound holds)")
        from .distributed import score_triplets_distributed

        return score_triplets_distributed(seqs, triplets, mode=mode, scoring=sc,
                                          scheduler=scheduler, partition=partition,
                                          device=device, threads=threads)
    from .plan import check_scheme

    check_scheme(partition)
    dev = resolve_device(device)
    check_precision(precision, dev)
    if gpus is not None and dev != "gpu":
        raise OptionError("gpus needs device='gpu' (or 'auto' on a machine with a GPU)")
    step = GPU_BATCH_TRIPLETS if dev == "gpu" else BATCH_TRIPLETS
    if triplets is None:
        n = len(seqs)
        total = n * (n - 1) * (n - 2) // 6
        blocks = iter_all_triplets(n, step)
    else:
        total = trip.shape[0]
        blocks = (trip[lo:lo + step] for lo in range(0, total, step))
    out = np.empty(total, dtype=np.int64)
    pos = 0
    for part in blocks:
        backends.score(seqs, part, m, sc, dev, out[pos:pos + part.shape[0]], threads=threads,
                       precision=precision, gpus=gpus, partition=partition, pruning=pruning,
                       work=work)
        pos += part.shape[0]
    return out


# -- tracebacks ----------------------------------------------------------------

def _global_moves(a, b, c, sub, gap) -> np.ndarray:
    """Moves of an optimal global alignment: full cube when small, else divide and conquer.

    The divide step splits the longest sequence at its middle ``m``: the best
    ``(j, k)`` of ``F[m, j, k] + R[m, j, k]`` (forward sweep of the prefixes
    and of the reversed suffixes) is a cell of an optimal path; the two halves
    are solved independently. Memory stays quadratic in the lengths.
    """
    from . import _cpu

    la, lb, lc = len(a), len(b), len(c)
    if (la + 1) * (lb + 1) * (lc + 1) <= CUBE_CELLS or max(la, lb, lc) <= 1:
        return _cpu.align_cube(a, b, c, sub, gap, 0)[2]
    # split along the longest sequence; the score is symmetric in the three
    order = np.argsort([-la, -lb, -lc], kind="stable")
    seqs3 = (a, b, c)
    x, y, z = (seqs3[o] for o in order)
    lx, lz = len(x), len(z)
    mid = lx // 2
    fwd = _cpu.last_plane(x[:mid], y, z, sub, gap)
    rev = _cpu.last_plane(x[mid:][::-1].copy(), y[::-1].copy(), z[::-1].copy(), sub, gap)
    total = fwd.astype(np.int64) + rev[::-1, ::-1]
    flat = int(np.argmax(total))
    j, k = divmod(flat, lz + 1)
    left = _global_moves(x[:mid], y[:j], z[:k], sub, gap)
    right = _global_moves(x[mid:], y[j:], z[k:], sub, gap)
    moves = np.concatenate([left, right])
    # map the bits of (x, y, z) back to (a, b, c)
    out = np.zeros_like(moves)
    for src, dst in enumerate(order):
        out |= (((moves >> src) & 1) << int(dst)).astype(np.uint8)
    return out


def _rows_from_moves(strs, core, moves) -> tuple:
    """Build the three rows: flanks before, the core from ``moves``, flanks after
    (:func:`trimsa.triplet._cpu.alignment_rows`)."""
    from . import _cpu

    texts = [np.frombuffer(s.encode("latin-1"), dtype=np.uint8) for s in strs]
    out = _cpu.alignment_rows(*texts, np.asarray(core[0], dtype=np.int64),
                              np.asarray(core[1], dtype=np.int64),
                              np.asarray(moves, dtype=np.uint8), np.uint8(ord("-")))
    return tuple(row.tobytes().decode("latin-1") for row in out)


def _align_codes(ca, cb, cc, m: int, sc: Scoring):
    """(score, core box, moves) of one triplet of code arrays, in quadratic memory.

    Global: divide and conquer over the whole cube. Semiglobal and local: the
    core's end and start come from a forward and a reversed plane sweep when no
    column on a face can score above 0 (the usual case: then running along a
    face never pays); otherwise from a slower sweep that carries each cell's
    start, and a core that starts on a face must leave it with its first column
    (cells on the faces are fixed at 0), so each such first column is tried.
    The rest is a global alignment of the remaining box.
    """
    if not sc.linear:
        return _align_codes_affine(ca, cb, cc, m, sc)
    from . import _cpu

    sub = sc.table
    gap = np.int32(sc.gap)
    if m == 0:
        box = (0, 0, 0, len(ca), len(cb), len(cc))
        moves = _global_moves(ca, cb, cc, sub, gap)
        return _moves_score(ca, cb, cc, moves, sc), box, moves
    faces_nonpositive = int(sc.table.max()) + 2 * sc.gap <= 0
    if faces_nonpositive:
        score, end, start = _cpu.end_and_start(ca, cb, cc, sub, gap, m)
    else:
        score, end, start = _cpu.origin_sweep(ca, cb, cc, sub, gap, m)
    s0 = [int(v) for v in start]
    e0 = [int(v) for v in end]
    box = (*s0, *e0)
    seqs3 = (ca, cb, cc)
    if s0 == e0:
        return int(score), box, np.zeros(0, dtype=np.uint8)
    # with no positive face column, the box from the start is free of constraints
    zero = [] if faces_nonpositive else [d for d in range(3) if s0[d] == 0]
    first = []
    if zero:
        best = None
        for mv in _MOVE_ORDER:
            bits = [(mv >> d) & 1 for d in range(3)]
            if any(not bits[d] for d in zero) or any(bits[d] and s0[d] >= e0[d] for d in range(3)):
                continue
            nxt = [s0[d] + bits[d] for d in range(3)]
            col = _column_score([seqs3[d][s0[d]] if bits[d] else -1 for d in range(3)], sc)
            rest = _cpu.global_score(*(seqs3[d][nxt[d]:e0[d]] for d in range(3)), sub, gap)
            if best is None or col + rest > best[0]:
                best = (col + rest, mv, nxt)
        first = [best[1]]
        s1 = best[2]
    else:
        s1 = s0
    core = [seqs3[d][s1[d]:e0[d]] for d in range(3)]
    moves = np.concatenate([np.array(first, dtype=np.uint8), _global_moves(*core, sub, gap)])
    got = _moves_score(*(seqs3[d][s0[d]:e0[d]] for d in range(3)), moves, sc)
    if got != score:
        raise AssertionError("internal error: traceback does not reach the optimal score")
    return int(score), box, moves


def _align_codes_affine(ca, cb, cc, m: int, sc: Scoring, wavefront: bool = False):
    """:func:`_align_codes` for natural affine gaps (:func:`trimsa.triplet._affine.align`;
    ``wavefront``: the divide and conquer's sweeps on all threads).

    The returned core is rescored from its rows (:meth:`Scoring.sum_of_pairs`)
    and must give the optimum the sweep found.
    """
    from . import _affine

    score, box, moves = _affine.align(ca, cb, cc, sc.table, sc.gap_open, sc.gap_extend, m,
                                      wavefront)
    seqs3 = (ca, cb, cc)
    got = _core_score(seqs3, box, moves, sc)
    if got != score:
        raise AssertionError("internal error: traceback does not reach the optimal score")
    return got, box, moves


def _core_score(seqs3, box, moves, sc: Scoring) -> int:
    """Natural SP score of the core ``box`` aligned by ``moves``."""
    rows = np.full((3, len(moves)), -1, dtype=np.int64)
    for q in range(3):
        has = ((moves >> q) & 1).astype(bool)
        rows[q, has] = seqs3[q][box[q]:box[3 + q]]
    return sc.sum_of_pairs(rows)


_MOVE_ORDER = (7, 3, 5, 6, 1, 2, 4)


def _column_score(codes, sc: Scoring) -> int:
    x, y, z = codes
    return sc.pair(x, y) + sc.pair(x, z) + sc.pair(y, z)


def _moves_score(a, b, c, moves, sc: Scoring) -> int:
    """Score of the core given by ``moves`` (an independent check of the traceback)."""
    pos = [0, 0, 0]
    seqs3 = (a, b, c)
    total = 0
    for m in moves.tolist():
        col = []
        for q in range(3):
            if m >> q & 1:
                col.append(int(seqs3[q][pos[q]]))
                pos[q] += 1
            else:
                col.append(-1)
        total += _column_score(col, sc)
    return total


def align_triplet(a, b, c, *, mode: Mode = "global", scoring: Scoring | None = None,
                  alphabet=None) -> TripletAlignment:
    """An optimal alignment of three sequences and its score.

    ``a``, ``b`` and ``c`` are strings, Biopython ``Seq``/``SeqRecord``
    objects or ``(name, sequence)`` pairs. Small cubes are traced back in full;
    larger ones by divide and conquer in quadratic memory (three 1,000-residue
    sequences need a few tens of MB). ``scoring`` defaults to the alignment
    stage's (:data:`~trimsa.scoring.DEFAULTS`; DNA: match 3, mismatch -2, transversion
    -3, natural affine gaps open -10, extend -2).

    Examples
    --------
    >>> aln = align_triplet("ACGT", "AGT", "ACGT")
    >>> print(aln)
    ACGT
    A-GT
    ACGT
    >>> aln.score   # three matched columns (3 x 3 each) and C/-/C (3 - 12 - 12)
    6
    """
    records = [api_record(item, i + 1, "abc"[i]) for i, item in enumerate((a, b, c))]
    if len({r[0] for r in records}) < 3:
        records = [(f"{r[0]}_{i + 1}", r[1], r[2]) for i, r in enumerate(records)]
    if alphabet is None and isinstance(scoring, Scoring):
        alphabet = scoring.alphabet
    seqs = encode_records(records, alphabet, "<triplet>")
    return align_triplets(seqs, [[0, 1, 2]], mode=mode, scoring=scoring)[0]


def align_triplets(seqs, triplets, *, mode: Mode = "global", scoring: Scoring | None = None,
                   threads: int = 0, device: Device = "cpu", bands=None,
                   pruning: Pruning = "auto", work: Work | None = None) -> list:
    """Optimal alignments of many triplets (a list of :class:`TripletAlignment`).

    Triplets whose cube fits :data:`CUBE_CELLS` (affine gaps:
    ``_affine.CUBE_CELLS``) are aligned in parallel through full cubes; the
    others one at a time by divide and conquer. ``scoring`` defaults to the
    alignment stage's (:data:`~trimsa.scoring.DEFAULTS`), not the triplet scores'.

    ``device``: ``"cpu"``, ``"gpu"`` or ``"auto"``. On a GPU, affine
    triplets whose cube fits are aligned there in batches, and larger global
    ones by the same divide and conquer as on the CPU with its sweeps and cubes
    on the GPU, all with the same alignments as on the CPU (semiglobal and local
    ones: the two sweeps that find the end and the start, then the divide and
    conquer of the core between them). GPU tracebacks take affine gaps only
    (``gap_open < 0``); ``"gpu"`` with a linear scoring is an error.

    ``bands``: one band per triplet (see :func:`~trimsa.triplet._checks.check_bands`:
    for each layer ``i`` of the triplet's first sequence, the ranges ``jlo..jhi`` of
    the second and ``klo..khi`` of the third kept in it, e.g. the columns within
    ``w`` of pairwise alignments of the first sequence with the other two). Each
    triplet then gets the best global alignment *among those whose path stays in
    its band* (not exact where the optimum leaves the band; memory and time are
    the band's cells), linear or affine gaps, global mode only; on the GPU the same
    alignments as on the CPU (affine gaps; triplets beyond the kernel's score
    bound stay on the CPU).

    ``pruning``: ``"auto"`` aligns global affine triplets (without ``bands``) in the
    part of the cube a bound from their pairwise alignments leaves, with the full
    cube's alignment (:mod:`trimsa.triplet.pruned`); ``"off"`` sweeps every cube.
    ``work`` (a :class:`~trimsa.triplet.pruned.Work`) receives the cells swept.
    """
    seqs = as_sequence_set(seqs, scoring.alphabet if isinstance(scoring, Scoring) else None)
    m = check_mode(mode)
    check_pruning(pruning)
    sc = scoring_for(seqs, scoring, "alignment")
    trip = check_triplets(triplets, len(seqs))
    check_overflow(seqs, sc)
    nthreads = _numba.set_threads(threads)
    if bands is not None:
        if m != 0:
            raise OptionError(f"banded alignments are global; mode {mode!r} takes no bands")
        if sc.linear and device == "gpu":
            raise OptionError("GPU tracebacks take affine gaps (gap_open and gap_extend); "
                              "linear-gap tracebacks run on the CPU")
        dev = "cpu" if sc.linear else resolve_device(device, announce=False)
        scores, moves, move_off = align_banded(seqs, trip, bands, sc, nthreads, dev)
        return [_make(seqs, trip[t], int(scores[t]), (0, 0, 0, *seqs.lengths[trip[t]]),
                      moves[move_off[t]:move_off[t + 1]], mode)
                for t in range(trip.shape[0])]
    from . import _cpu

    if sc.linear and device == "gpu":
        raise OptionError("GPU tracebacks take affine gaps (gap_open and gap_extend); "
                          "linear-gap tracebacks run on the CPU")
    if not sc.linear:
        dev = resolve_device(device, announce=False)
        return _align_affine(seqs, trip, m, sc, mode, nthreads, dev, pruning, work)
    # one at a time beyond the full cube
    check_plane_memory(seqs, trip, sc, 1, "aligning the largest triplet", tracebacks=True,
                       mode=m)
    lens = seqs.lengths
    L = lens[trip].astype(np.int64) if trip.size else np.zeros((0, 3), np.int64)
    cells = np.prod(L + 1, axis=1) if trip.size else np.zeros(0, np.int64)
    small = np.flatnonzero(cells <= CUBE_CELLS)
    results = [None] * trip.shape[0]
    if small.size == 1:   # one cube: no parallel batch (whose first call compiles 3 s more)
        t = int(small[0])
        ca, cb, cc = (seqs.code(int(x)) for x in trip[t])
        score, box, mv = _cpu.align_cube(ca, cb, cc, sc.table, np.int32(sc.gap), m)
        results[t] = _make(seqs, trip[t], int(score), box, mv, mode)
    elif small.size:
        # keep the cubes of the parallel chunks within a few CUBE_CELLS at once
        for lo in range(0, small.size, 4096):
            part = small[lo:lo + 4096]
            pt = trip[part]
            span = L[part].sum(axis=1)
            move_off = np.zeros(part.size + 1, dtype=np.int64)
            move_off[1:] = np.cumsum(span)
            moves = np.zeros(int(move_off[-1]), dtype=np.uint8)
            scores = np.empty(part.size, dtype=np.int64)
            boxes = np.empty((part.size, 6), dtype=np.int64)
            nchunks = max(1, min(part.size, 4 * nthreads))
            _cpu.align_batch_cube(seqs.codes, seqs.offsets, pt, sc.table, np.int32(sc.gap), m,
                                  scores, boxes, moves, move_off, nchunks)
            for q, t in enumerate(part):
                mv = moves[move_off[q]:move_off[q + 1]]
                mv = mv[mv != 0]
                results[t] = _make(seqs, trip[t], int(scores[q]), boxes[q], mv, mode)
    for t in np.flatnonzero(cells > CUBE_CELLS):
        ca, cb, cc = (seqs.code(int(x)) for x in trip[t])
        score, box, mv = _align_codes(ca, cb, cc, m, sc)
        results[t] = _make(seqs, trip[t], score, box, mv, mode)
    return results


def _align_affine(seqs: SequenceSet, trip, m: int, sc: Scoring, mode: str, nthreads: int,
                  device: str = "cpu", pruning: str = "auto", work: Work | None = None) -> list:
    """Affine tracebacks of ``trip``: global ones in the bands of the pruned path where it
    applies (:mod:`trimsa.triplet.pruned`; on ``device``), the rest (and any whose band
    is too large to trace) through full cubes (:func:`_align_full`)."""
    from . import pruned

    if not (pruned.applies(m, sc, pruning) and trip.shape[0]):
        if work is not None:
            cube = pruned.cube_cells(seqs.lengths, trip)
            work.add(triplets=trip.shape[0], cube_cells=cube.sum(), swept_cells=cube.sum(),
                     full=trip.shape[0])
        return _align_full(seqs, trip, m, sc, mode, nthreads, device)
    if device == "gpu":
        from . import _gpu_pruned

        scores, moves, counts = _gpu_pruned.align_triplets(seqs, trip, sc, nthreads, work)
    else:
        scores, moves, counts = pruned.align_cpu(seqs, trip, sc, nthreads, work)
    done = np.flatnonzero(counts >= 0)
    move_off = np.zeros(done.size + 1, dtype=np.int64)
    move_off[1:] = np.cumsum(counts[done])
    _rescored(seqs, trip[done], sc, scores[done],
              np.concatenate([moves[t] for t in done]) if done.size else np.zeros(0, np.uint8),
              move_off)
    results = [None] * trip.shape[0]
    for t in done.tolist():
        results[t] = _make(seqs, trip[t], int(scores[t]), (0, 0, 0, *seqs.lengths[trip[t]]),
                           moves[t], mode)
    rest = np.flatnonzero(counts < 0)
    if rest.size:
        for t, aln in zip(rest.tolist(), _align_full(seqs, trip[rest], m, sc, mode, nthreads,
                                                      device)):
            results[t] = aln
    return results


def _align_full(seqs: SequenceSet, trip, m: int, sc: Scoring, mode: str, nthreads: int,
                device: str = "cpu") -> list:
    """Affine tracebacks of ``trip`` through full cubes: with ``device="gpu"``, full cubes and the divide
    and conquer of larger ones on the GPU (for semiglobal and local ones, that of the
    core between the end and the start that two sweeps find, on the GPU too:
    :func:`_cores`); the rest on ``nthreads`` CPU threads (the kernels release the GIL).
    Every alignment is rescored from its rows and must give the optimum."""
    from . import _affine

    results = [None] * trip.shape[0]
    todo = np.arange(trip.shape[0])
    on_gpu = None
    if device == "gpu" and trip.shape[0]:
        from . import _gpu_affine

        lens = seqs.lengths[trip].astype(np.int64)
        ok = _gpu_affine.traceable(lens, sc)
        fits = (np.prod(lens + 1, axis=1) <= _affine.CUBE_CELLS) & ok
        on_gpu = np.flatnonzero(fits)
        big = np.flatnonzero(~fits & ok)
        todo = np.flatnonzero(~ok)
    # the planes of the triplets left to the CPU, before anything runs
    check_plane_memory(seqs, trip[todo], sc, nthreads, "aligning the largest triplet",
                       tracebacks=True, mode=m)
    if on_gpu is not None:
        scores, boxes, moves = _gpu_affine.align_triplets(seqs, trip[on_gpu], m, sc)
        if big.size:
            cores, forbid, big_scores, big_boxes = _cores(seqs, trip[big], m, sc, nthreads,
                                                          device="gpu")
            got = _gpu_affine.align_global(cores, sc, forbid=forbid)
            on_gpu = np.concatenate([on_gpu, big])
            if m == 0:
                big_scores = [v for _, v in got]
            scores = np.concatenate([scores, big_scores]).astype(np.int64)
            boxes = np.concatenate([boxes, big_boxes])
            moves = list(moves) + [mv for mv, _ in got]
        move_off = np.zeros(len(moves) + 1, dtype=np.int64)
        move_off[1:] = np.cumsum([len(x) for x in moves])
        got = np.empty(len(moves), dtype=np.int64)
        _affine.rescore_batch(seqs.codes, seqs.offsets, trip[on_gpu].astype(np.int64), boxes,
                              np.concatenate(moves) if moves else np.zeros(0, np.uint8),
                              move_off, sc.table, np.int64(sc.gap_open), np.int64(sc.gap_extend),
                              got)
        if not np.array_equal(got, scores):
            raise AssertionError("internal error: GPU traceback does not reach the optimal score")
        for q, t in enumerate(on_gpu.tolist()):
            results[t] = _make(seqs, trip[t], int(scores[q]), boxes[q], moves[q], mode)

    # one triplet: its sweeps on all threads (in_threads runs it in this thread);
    # several: one thread each
    wavefront = todo.size == 1 and nthreads > 1

    def run(chunk):
        for t in chunk.tolist():
            ca, cb, cc = (seqs.code(int(x)) for x in trip[t])
            score, box, mv = _align_codes_affine(ca, cb, cc, m, sc, wavefront)
            results[t] = _make(seqs, trip[t], score, box, mv, mode)

    _numba.in_threads(run, todo, nthreads)
    return results


def _cores(seqs: SequenceSet, trip, m: int, sc: Scoring, nthreads: int, device: str = "cpu"):
    """The global problems of ``trip``'s alignments in mode ``m``: ``(cores, forbid,
    scores, boxes)``, each core the three code arrays between the start and the end
    of an optimal alignment and the faces its path may not touch after its start
    (global: the whole sequences, none; semiglobal and local: from
    :func:`_affine.end_and_start` on ``nthreads`` CPU threads, or on the GPU with
    ``device="gpu"`` (:func:`_gpu_affine.end_and_start`, the same cells), as
    :func:`_affine.align` does), with the optimum and the box ``(start, end)``."""
    from . import _affine

    n = trip.shape[0]
    codes = [tuple(seqs.code(int(x)) for x in t) for t in trip]
    scores = np.zeros(n, np.int64)
    boxes = np.zeros((n, 6), np.int64)
    forbid = np.zeros(n, np.int64)
    cores = [None] * n
    found = [None] * n
    if m != 0 and device == "gpu" and n:
        from . import _gpu_affine

        found = _gpu_affine.end_and_start(codes, sc, m)

    def run(chunk):
        for q in chunk.tolist():
            a, b, c = codes[q]
            if m == 0:
                cores[q] = (a, b, c)
                boxes[q] = (0, 0, 0, len(a), len(b), len(c))
                continue
            if found[q] is None:
                found[q] = _affine.end_and_start(a, b, c, sc.table, np.int32(sc.gap_open),
                                                 np.int32(sc.gap_extend), m)
            scores[q], end, start = found[q]
            cores[q], forbid[q] = _affine.core_of((a, b, c), start, end)
            boxes[q] = (*start, *end)

    _numba.in_threads(run, np.arange(n), nthreads)
    return cores, forbid, scores, boxes


def align_banded(seqs: SequenceSet, trip, bands, sc: Scoring, nthreads: int,
                 device: str = "cpu"):
    """The banded alignments of ``align_triplets(..., bands=bands)`` as arrays:
    ``(scores, moves, move_off)``, triplet ``t``'s moves (bit 0: a residue of its first
    sequence, bit 1 of its second, bit 2 of its third) in
    ``moves[move_off[t]:move_off[t + 1]]``, on ``device`` (``"cpu"`` or ``"gpu"``: affine
    gaps within the kernel's score bound; the other triplets on the CPU). ``trip`` is
    checked (:func:`check_triplets`); every alignment is rescored and must give its
    score. The GPU takes affine gaps only."""
    from ._checks import check_bands

    trip = check_triplets(trip, len(seqs))
    check_overflow(seqs, sc)
    rows, band_off = check_bands(bands, trip, seqs.lengths)
    if device == "gpu":
        return _rescored(seqs, trip, sc, *_banded_gpu(seqs, trip, rows, band_off, sc,
                                                      nthreads))
    return _rescored(seqs, trip, sc, *_banded_cpu(seqs, trip, rows, band_off, sc, nthreads))


def _banded_cpu(seqs, trip, rows, band_off, sc, nthreads):
    """:func:`align_banded` on the CPU, bands stacked (``_checks.check_bands``), before
    the rescoring: ``(scores, moves, move_off)``."""
    from . import _affine
    from ._checks import BAND_WORD_BYTES, band_cells, check_memory

    T = trip.shape[0]
    scores = np.empty(T, dtype=np.int64)
    counts = np.empty(T, dtype=np.int64)
    span = seqs.lengths[trip].astype(np.int64).sum(axis=1) if T else np.zeros(0, np.int64)
    move_off = np.zeros(T + 1, dtype=np.int64)
    move_off[1:] = np.cumsum(span)
    moves = np.zeros(int(move_off[-1]), dtype=np.uint8)
    if T == 0:
        return scores, moves, move_off
    cells = band_cells(rows, band_off)
    at_once = min(T, max(1, nthreads))
    check_memory(float(np.sort(cells)[-at_once:].sum()) * BAND_WORD_BYTES,
                 f"{seqs.source}: banded alignments ({int(cells.max())} cells in the largest "
                 f"band, {at_once} at once)")
    trip64 = np.ascontiguousarray(trip, dtype=np.int64)
    _affine.align_band_batch(seqs.codes, seqs.offsets, trip64, rows, band_off, sc.table,
                             np.int32(sc.gap_open), np.int32(sc.gap_extend), scores, moves,
                             move_off, counts, max(1, min(T, 4 * nthreads)))
    if (counts < 0).any():
        raise AssertionError("internal error: a banded traceback left its band")
    owner = np.repeat(np.arange(T), span)
    moves = moves[np.arange(moves.size) - move_off[owner] < counts[owner]]
    move_off[1:] = np.cumsum(counts)
    return scores, moves, move_off


def _take_bands(rows, band_off, idx):
    """The stacked bands of triplets ``idx`` (``(rows, offsets)``, as ``check_bands``)."""
    sizes = np.diff(band_off)[idx]
    offsets = np.zeros(idx.size + 1, np.int64)
    offsets[1:] = np.cumsum(sizes)
    at = np.repeat(band_off[idx] - offsets[:-1], sizes) + np.arange(int(offsets[-1]))
    return np.ascontiguousarray(rows[at]), offsets


def _banded_gpu(seqs, trip, rows, band_off, sc, nthreads):
    """:func:`align_banded` on the GPU: the triplets within the kernel's score bound
    there, the others on the CPU; ``(scores, moves, move_off)`` in input order."""
    from . import _gpu_affine

    T = trip.shape[0]
    lens = seqs.lengths[trip].astype(np.int64)
    on = _gpu_affine.traceable(lens, sc) if T else np.zeros(0, bool)
    scores = np.empty(T, dtype=np.int64)
    per = [np.zeros(0, np.uint8)] * T
    for idx, gpu in ((np.flatnonzero(on), True), (np.flatnonzero(~on), False)):
        if not idx.size:
            continue
        r, o = _take_bands(rows, band_off, idx)
        got, mv, off = (_gpu_affine.align_banded(seqs, trip[idx], r, o, sc) if gpu
                        else _banded_cpu(seqs, trip[idx], r, o, sc, nthreads))
        scores[idx] = got
        for q, t in enumerate(idx.tolist()):
            per[t] = mv[off[q]:off[q + 1]]
    move_off = np.zeros(T + 1, dtype=np.int64)
    move_off[1:] = np.cumsum([p.size for p in per])
    moves = np.concatenate(per) if T else np.zeros(0, np.uint8)
    return scores, moves, move_off


def _rescored(seqs, trip, sc: Scoring, scores, moves, move_off):
    """``(scores, moves, move_off)`` once every alignment's sum of pairs is checked to be
    its score."""
    from . import _affine

    T = trip.shape[0]
    got = np.empty(T, dtype=np.int64)
    boxes = np.zeros((T, 6), dtype=np.int64)
    boxes[:, 3:] = seqs.lengths[trip]
    _affine.rescore_batch(seqs.codes, seqs.offsets, np.ascontiguousarray(trip, np.int64), boxes,
                          moves, move_off, sc.table, np.int64(sc.gap_open),
                          np.int64(sc.gap_extend), got)
    if not np.array_equal(got, scores):
        raise AssertionError("internal error: a banded alignment does not reach its score")
    return scores, moves, move_off


def _make(seqs: SequenceSet, tri, score, box, moves, mode) -> TripletAlignment:
    idx = [int(x) for x in tri]
    strs = tuple(seqs.sequences[i] for i in idx)
    core = (tuple(int(v) for v in box[:3]), tuple(int(v) for v in box[3:]))
    rows = _rows_from_moves(strs, core, moves)
    return TripletAlignment(rows=rows, score=int(score), mode=mode, core=core,
                            names=tuple(seqs.names[i] for i in idx))


def require_three(seqs: SequenceSet) -> None:
    if len(seqs) != 3:
        raise TooFewSequencesError(
            f"{seqs.source}: align3 needs exactly 3 sequences, found {len(seqs)}"
        )
