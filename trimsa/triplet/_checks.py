"""Argument checks and triplet enumeration shared by the triplet API and its backends."""

from __future__ import annotations

import numpy as np

from ..errors import OptionError, ResourceError
from ..io import SequenceSet
from ..scoring import Scoring

#: Triplets scored per call of the CPU kernel (bounds the output and index memory).
BATCH_TRIPLETS = 1 << 20


def all_triplets(n: int) -> np.ndarray:
    """All ``C(n, 3)`` triplets ``i < j < k`` in lexicographic order, ``int32 (T, 3)``.

    Examples
    --------
    >>> all_triplets(4).tolist()
    [[0, 1, 2], [0, 1, 3], [0, 2, 3], [1, 2, 3]]
    """
    blocks = list(iter_all_triplets(n))
    if not blocks:
        return np.zeros((0, 3), dtype=np.int32)
    return np.concatenate(blocks)


def iter_all_triplets(n: int, batch: int = BATCH_TRIPLETS):
    """:func:`all_triplets` in blocks of about ``batch`` rows (memory stays bounded)."""
    pending = []
    size = 0
    for i in range(max(0, n - 2)):
        jj, kk = np.triu_indices(n - i - 1, 1)
        block = np.empty((jj.size, 3), dtype=np.int32)
        block[:, 0] = i
        block[:, 1] = jj + i + 1
        block[:, 2] = kk + i + 1
        pending.append(block)
        size += jj.size
        if size >= batch:
            yield np.concatenate(pending)
            pending, size = [], 0
    if pending:
        yield np.concatenate(pending)


def check_triplets(triplets, n: int) -> np.ndarray:
    """``triplets`` as ``int32 (T, 3)`` indices into ``n`` sequences, or an error naming the bad row."""
    try:
        trip = np.asarray(triplets)
    except ValueError:   # ragged rows
        raise OptionError("triplets must have shape (T, 3): every row three indices") from None
    if trip.size == 0:
        return np.zeros((0, 3), dtype=np.int32)
    if trip.ndim != 2 or trip.shape[1] != 3:
        raise OptionError(f"triplets must have shape (T, 3), got {trip.shape}")
    if not np.issubdtype(trip.dtype, np.integer):
        raise OptionError("triplet indices must be integers")
    if trip.min() < 0 or trip.max() >= n:
        bad = int(np.flatnonzero((trip < 0).any(1) | (trip >= n).any(1))[0])
        raise OptionError(
            f"triplet {bad} {tuple(int(x) for x in trip[bad])} has an index outside 0..{n - 1}"
        )
    return np.ascontiguousarray(trip, dtype=np.int32)


def scoring_for(seqs: SequenceSet, scoring: Scoring | None, stage: str = "triplet") -> Scoring:
    """The engine's scoring for ``seqs``: the defaults of ``stage`` (``"triplet"`` for
    scores, ``"alignment"`` for alignments), or ``scoring`` once checked.

    The exact engine takes linear and natural affine gaps alike.
    """
    if scoring is None:
        return Scoring.for_alphabet(seqs.alphabet, stage)
    if not isinstance(scoring, Scoring):
        raise OptionError(f"scoring must be a trimsa Scoring (e.g. Scoring.dna(...)) or None, "
                          f"got {scoring!r}")
    if scoring.alphabet != seqs.alphabet:
        raise OptionError(
            f"scoring is for the {scoring.alphabet.name} alphabet but the sequences "
            f"were read as {seqs.alphabet.name}"
        )
    return scoring


def check_overflow(seqs: SequenceSet, scoring: Scoring) -> None:
    """An error when the scores of the longest triplet could leave 32 bits."""
    # |H| <= 3 * max|score| * (la + lb + lc); int32 holds it while this stays < 2^29
    longest = int(np.sort(seqs.lengths)[-3:].sum()) if len(seqs) else 0
    if 3 * scoring.max_abs() * longest >= (1 << 29):
        raise OptionError("sequences too long for these scores (32-bit overflow); use smaller scores")


def available_memory() -> int | None:
    """Bytes of memory the system can give without swapping (``MemAvailable``), or None."""
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def _size(nbytes: float) -> str:
    for unit, scale in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20)):
        if nbytes >= scale:
            return f"{nbytes / scale:.1f} {unit}"
    return f"{nbytes / 2**10:.1f} KiB"


def check_memory(nbytes: float, what: str) -> None:
    """A :class:`ResourceError` before allocating when ``nbytes`` exceed the available memory."""
    avail = available_memory()
    if avail is not None and nbytes > avail:
        raise ResourceError(f"{what} needs {_size(nbytes)} of memory, more than the "
                            f"{_size(avail)} available")


#: Bytes per cell of the (j, k) planes a sweep keeps: linear, affine.
PLANE_BYTES = {True: 2 * 4, False: 2 * 13 * 4}
#: Bytes per row (i, j) of a wavefront sweep: its best score and column.
ROW_BYTES = 16


def check_plane_memory(seqs: SequenceSet, trip: np.ndarray, scoring: Scoring, workers: int,
                       what: str, tracebacks: bool = False, mode: int = 0) -> None:
    """Check the sweeps' planes of ``trip`` before any is allocated.

    A score sweep keeps two planes over the two longer sequences of a triplet
    (the longest runs along them). A traceback by divide and conquer keeps about
    four, over the two shorter ones: the last layers of a split's two sweeps and
    the planes of the one running. An affine triplet aligned alone on several
    threads (``_affine.sweep_wavefront``) adds a third plane to each sweep and
    the best cell of each of its rows. Semiglobal and local tracebacks (``mode``
    1 and 2) first sweep the whole cube over the second and third sequences in
    the order given. ``workers`` triplets run at once (one, the wavefront).
    """
    if trip.size == 0:
        return
    given = seqs.lengths[trip].astype(np.float64) + 2
    L = np.sort(given, axis=1)
    unit = PLANE_BYTES[scoring.linear]   # bytes of two planes per cell
    wavefront = tracebacks and not scoring.linear and trip.shape[0] == 1 and workers > 1
    at_once = 1 if wavefront else max(1, min(workers, trip.shape[0]))
    if not tracebacks:
        need = L[:, 1] * L[:, 2] * unit
    else:
        need = L[:, 0] * L[:, 1] * 2 * unit
        # the wavefront: a third plane; rows of half the longest by the middle one
        if wavefront:
            need = need + L[:, 0] * L[:, 1] * unit / 2 + L[:, 2] / 2 * L[:, 1] * ROW_BYTES
        if mode != 0:
            ends = given[:, 1] * given[:, 2] * unit
            if wavefront:
                ends = ends * 1.5 + (given[:, 0] - 1) * (given[:, 1] - 1) * ROW_BYTES
            need = np.maximum(need, ends)
    t = int(np.argmax(need))
    lens = ", ".join(str(int(x)) for x in seqs.lengths[trip[t]])
    check_memory(float(need[t]) * at_once,
                 f"{seqs.source}: {what} (lengths {lens}"
                 + (f", {at_once} at once)" if at_once > 1 else ")"))


#: Bytes per cell of a banded traceback: its pointer word.
BAND_WORD_BYTES = 8


def check_bands(bands, trip: np.ndarray, lengths) -> tuple[np.ndarray, np.ndarray]:
    """The bands of ``trip`` stacked for the kernels: ``(rows, offsets)``, triplet ``t``'s
    band in ``rows[offsets[t]:offsets[t + 1]]`` (columns ``jlo, jhi, klo, khi``), or an
    error naming the first bad triplet and layer.

    A band of triplet ``(a, b, c)`` has one row per layer ``i = 0..len(a)``: the cells
    ``jlo..jhi`` of ``b`` and ``klo..khi`` of ``c`` kept in that layer. Both bounds of
    each range never decrease with ``i``, the first layer starts at 0, the last ends at
    ``len(b)`` and ``len(c)``, and each range starts at most one past the previous
    layer's end (so that some path stays in the band).
    """
    if len(bands) != trip.shape[0]:
        raise OptionError(f"bands: {len(bands)} given for {trip.shape[0]} triplets")
    parts = []
    for t, band in enumerate(bands):
        arr = np.asarray(band)
        la, lb, lc = (int(x) for x in lengths[trip[t]])
        where = f"the band of triplet {t} {tuple(int(x) for x in trip[t])}"
        if arr.shape != (la + 1, 4) or not np.issubdtype(arr.dtype, np.integer):
            raise OptionError(f"{where} must be integers of shape ({la + 1}, 4) (one row "
                              f"jlo, jhi, klo, khi per layer of its first sequence), "
                              f"got {arr.dtype} {arr.shape}")
        arr = arr.astype(np.int64)
        for q, (name, top) in enumerate((("j", lb), ("k", lc))):
            lo, hi = arr[:, 2 * q], arr[:, 2 * q + 1]
            bad = np.flatnonzero((lo < 0) | (hi > top) | (lo > hi))
            if bad.size:
                i = int(bad[0])
                raise OptionError(f"{where}: layer {i} keeps {name} {lo[i]}..{hi[i]}, not a "
                                  f"range within 0..{top}")
            if lo[0] != 0 or hi[-1] != top:
                raise OptionError(f"{where} must start at {name} = 0 and end at {name} = {top}")
            bad = np.flatnonzero((np.diff(lo) < 0) | (np.diff(hi) < 0) | (lo[1:] > hi[:-1] + 1))
            if bad.size:
                i = int(bad[0]) + 1
                raise OptionError(f"{where}: layer {i} keeps {name} {lo[i]}..{hi[i]} after "
                                  f"{lo[i - 1]}..{hi[i - 1]}; ranges must not move back or "
                                  f"skip past the previous one's end")
        parts.append(arr)
    offsets = np.zeros(len(parts) + 1, dtype=np.int64)
    offsets[1:] = np.cumsum([p.shape[0] for p in parts])
    rows = np.concatenate(parts) if parts else np.zeros((0, 4), np.int64)
    return np.ascontiguousarray(rows), offsets


def band_cells(rows: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Cells of each band stacked by :func:`check_bands`."""
    per = (rows[:, 1] - rows[:, 0] + 1) * (rows[:, 3] - rows[:, 2] + 1)
    return np.add.reduceat(per, offsets[:-1]) if per.size else np.zeros(0, np.int64)
