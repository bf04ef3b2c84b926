"""CuPy launchers of the affine kernels (``trimsa/kernels/triplet_affine.cu``).

:func:`score_triplets` fills the same scores as ``_affine.score_batch``, bit
for bit. One warp scores one triplet at a time in 32-bit arithmetic, or two
triplets at once in packed 16 bits where :func:`packed_bound` proves that exact;
each warp owns two face buffers in global memory (:func:`warp_bytes`), so the
number of warps launched is bounded by the memory share of the batch. A batch
of fewer triplets than resident warps is cut into strips of ``TJ`` rows, one
warp each, the strips of a triplet waiting on each other (:data:`SPLIT`).

:func:`align_triplets` returns the same alignments as ``_affine.align_cube``:
the score kernel, compiled with ``TRACE``, also writes one 8-byte pointer word
per cell of every cube (``_affine.pointer_word``), and one thread per triplet
follows them back. Batches are cut so that their cubes fit the memory share.
"""

from __future__ import annotations

import numpy as np

from ..errors import OptionError

KERNEL = "triplet_affine.cu"
#: Rows of the (j, k) plane per lane (the kernel's TJ).
TJ = 4
WARPS_PER_BLOCK = 4
#: Words per (i, k) of the row buffer and per (i, row) of the column buffer.
FACE_WORDS = 6
#: fraction of the device's free memory one batch may take for its face buffers
MEM_FRACTION = 0.6
#: Largest alphabet the kernel's shared table holds.
MAX_CODES = 32

_FUNCTIONS: dict = {}
#: A null pointer argument (the score kernel without TRACE reads no pointer buffers).
_NULL = np.uint64(0)


#: The score kernel's instantiations: score only, pointer words, banded pointer words,
#: banded scores, and for subproblems of the divide and conquer last-layer states and pointer words;
#: all but the banded ones also for split triplets (one warp per strip of rows).
_NAMES = {"score": f"affine_score<{TJ}, false, false, false, false, I32>",
          "trace": f"affine_score<{TJ}, true, false, false, false, I32>",
          "band": f"affine_score<{TJ}, true, true, false, false, I32>",
          "band_score": f"affine_score<{TJ}, false, true, false, false, I32>",
          "states": f"affine_score<{TJ}, false, false, true, false, I32>",
          "subtrace": f"affine_score<{TJ}, true, false, true, false, I32>",
          "score_split": f"affine_score<{TJ}, false, false, false, true, I32>",
          "states_split": f"affine_score<{TJ}, false, false, true, true, I32>",
          "trace_split": f"affine_score<{TJ}, true, false, false, true, I32>",
          "subtrace_split": f"affine_score<{TJ}, true, false, true, true, I32>",
          "score16": f"affine_score<{TJ}, false, false, false, false, S16x2>"}


#: Everything the module is compiled with (one compilation, one on-disk cache entry).
_MODULE_NAMES = tuple(_NAMES.values()) + ("affine_trace", "affine_trace_band", "affine_join")


#: Threads per block of ``affine_join`` (the kernel's JOIN_THREADS).
JOIN_THREADS = 256


def _module(dev: int | None = None):
    """The compiled kernel module for device ``dev`` (default: the current one)."""
    import cupy

    from .. import kernels

    return kernels.module(KERNEL, _MODULE_NAMES,
                          device=cupy.cuda.Device().id if dev is None else dev)


def _function(kind: str = "score"):
    """``(kernel, resident warps, trace kernel)`` of the score kernel's instantiation
    ``kind`` (:data:`_NAMES`) and of the traceback that follows its pointer words."""
    import cupy

    dev = cupy.cuda.Device().id
    key = (dev, TJ, kind)
    if key not in _FUNCTIONS:
        mod = _module(dev)
        fn = mod.get_function(_NAMES[kind])
        regs = max(1, int(fn.num_regs))
        threads = 32 * WARPS_PER_BLOCK
        per_sm = max(1, min(65536 // (regs * threads), 2048 // threads))
        sms = cupy.cuda.runtime.getDeviceProperties(dev)["multiProcessorCount"]
        trace = mod.get_function("affine_trace_band" if kind == "band" else "affine_trace")
        _FUNCTIONS[key] = (fn, per_sm * sms * WARPS_PER_BLOCK, trace)
    return _FUNCTIONS[key]


#: Whether score sweeps, state sweeps and the pointer words of full-cube tracebacks cut
#: their triplets into strips of ``TJ`` rows, one warp each (the kernel's split
#: triplets): ``"auto"`` when a launch has fewer triplets than resident warps and the
#: strips' row buffers fit the memory share, ``"always"`` where they fit, ``"never"``.
#: The scores, states and alignments are the same either way. Banded tracebacks keep
#: one warp per triplet.
SPLIT = "auto"


def strips(lb) -> np.ndarray:
    """Strips of ``TJ`` rows of triplets whose second sequence has length ``lb``."""
    return np.asarray(lb, dtype=np.int64) // TJ + 1


def _launch(fn, resident_warps, n, d_codes, d_off, d_trip, d_sub, K, sc, mode, jwords, kwords,
            lens, trace=(_NULL, _NULL, _NULL), band=(_NULL, _NULL, _NULL),
            sub=(_NULL, _NULL, _NULL), split_fn=None, packed=None):
    """Launch score kernel ``fn`` on ``n`` items with lengths ``lens`` (``(n, 3)``, the
    kernel's order), with its face buffers; ``trace``: pointer words, their offsets and
    the end cells; ``band``: rows, their first row per item, layer offsets; ``sub``:
    init/forbid per item, the states' buffer and its offsets; ``packed``: ``(gap_open,
    gap_extend, sentinel)`` of the packed 16-bit instantiation, which takes the items two
    at a time (``n`` even) with these gaps instead of ``sc``'s. Returns the scores.

    A warp takes one item at a time, or, where ``split_fn`` (the same instantiation
    for split triplets) is given and :data:`SPLIT` lets it, one strip: as many warps as
    are resident, at most one per work unit."""
    import cupy

    go, ge, neg = (sc.gap_open, sc.gap_extend, 0) if packed is None else packed
    units = n if packed is None else n // 2
    split = (_NULL, _NULL, _NULL, _NULL, _NULL)   # unit_off, unit_order, prog, parts
    per_strip = strips(np.asarray(lens)[:, 1])
    if split_fn is not None and (SPLIT == "always" or (
            SPLIT == "auto" and n < resident_warps and per_strip.max() > 1)):
        unit_off = np.zeros(n + 1, dtype=np.int64)
        unit_off[1:] = np.cumsum(per_strip)
        warps = min(resident_warps, int(unit_off[-1]))
        # two row-buffer slots per item instead of one per warp, and 16 bytes per unit
        need = 4 * (2 * n * jwords + warps * kwords) + 16 * int(unit_off[-1])
        if unit_off[-1] < 2 ** 31 and need <= _free_bytes() * MEM_FRACTION:
            units = int(unit_off[-1])
            # dealt round the triplets: strip 0 of each, then strip 1, ...
            strip = np.arange(units) - np.repeat(unit_off[:-1], per_strip)
            order = np.argsort(strip, kind="stable").astype(np.int32)
            split = (cupy.asarray(unit_off), cupy.asarray(order),
                     cupy.zeros(units, dtype=np.int32), cupy.empty(units, dtype=np.int32),
                     cupy.empty(units, dtype=np.int64))
            fn = split_fn
    warps = min(resident_warps, units)
    blocks = max(1, -(-warps // WARPS_PER_BLOCK))
    nwarps = blocks * WARPS_PER_BLOCK
    slots = 2 * n if split[0] is not _NULL else nwarps
    d_j = cupy.empty(slots * jwords, dtype=np.int32)
    d_k = cupy.empty(nwarps * kwords, dtype=np.int32)
    d_out = cupy.empty(n, dtype=np.int64)
    d_next = cupy.zeros(1, dtype=np.int32)
    fn((blocks,), (32 * WARPS_PER_BLOCK,),
       (d_codes, d_off, d_trip, np.int32(n), d_sub, np.int32(K), np.int32(go),
        np.int32(ge), np.int32(mode), np.int32(neg), d_j, np.int64(jwords), d_k, np.int64(kwords),
        d_out, d_next, *trace, *band, *sub, np.int32(units), *split))
    return d_out


def _batches(need, per_warp, resident_warps, budget, too_large):
    """``(lo, hi)`` ranges of items taken in order while their ``need`` (bytes) and the
    face buffers of their warps fit ``budget``; an item that alone does not is
    ``too_large(i)`` (a :class:`MemoryError`)."""
    lo = 0
    T = len(need)
    while lo < T:
        hi = lo
        used = 0
        while hi < T:
            if used + need[hi] + min(resident_warps, hi - lo + 1) * per_warp > budget:
                break
            used += need[hi]
            hi += 1
        if hi == lo:
            raise too_large(lo)
        yield lo, hi
        lo = hi


def order(lengths, trip):
    """Triplets renamed for the kernel: A the middle length, B the shortest, C the longest.

    The score does not depend on the order; C runs along the lanes (fewest idle
    lanes), A along the layers.
    """
    lens = lengths[trip]
    o = np.argsort(lens, axis=1, kind="stable")[:, [1, 0, 2]]
    return np.take_along_axis(trip, o, axis=1), np.take_along_axis(lens, o, axis=1)


def jface_words(la: int, lc: int) -> int:
    """Words of one warp's row buffer: per chunk of 32 columns, per wavefront step, per lane."""
    return (lc // 32 + 1) * (la + 32) * FACE_WORDS * 32


def warp_bytes(la: int, lc: int) -> int:
    """Face buffer bytes of one warp for layers ``la`` and columns ``lc``."""
    return 4 * (jface_words(la, lc) + FACE_WORDS * (la + 1) * (TJ + 1))


def packed_bound(lens, scoring, mode: int) -> tuple[np.ndarray, int]:
    """``(ok, sentinel)``: which triplets (lengths ``lens``, ``(T, 3)``) the packed
    16-bit sweep scores exactly in ``mode``, and the sentinel it starts from.

    Global mode is swept on the shifted scores ``sub - 2 ge`` with extension 0 (the
    score less ``2 ge (la + lb + lc)``, the same for every alignment), the others on
    the scores as they are. With ``m+`` / ``m-`` the largest / smallest swept
    substitution (clamped at 0), ``e`` the swept extension of a column (``2 ge``, or
    0), ``o`` the gap open and ``d = min(3 m-, m- + e, e)`` the most a column's
    addition lowers a value (docs/engine.md, "Packed 16 bits"):

    * every path gains at most ``U = m+ (min(la, lb) + min(la, lc) + min(lb, lc))``;
    * a value that stems from the sentinel ``N`` lies in ``[N + 3 o + 3 d, N + 3 m+]``
      (none is carried along a face with a negative addition: global mode's is 0,
      the others start every face cell afresh), and every other value is at least
      ``B + 3 o + 2 d``, where ``B`` bounds the best score of every cell from below:
      ``6 o`` (global), ``2 o + 2 ge min(la, lb, lc)`` (semiglobal), 0 (local);
    * ``N = -2^15 - 3 o - 4 d``, so that one more addition to any of them stays in 16
      bits, and a triplet is admitted when ``N + 3 m+ + U`` is below its lowest
      possible score (``6 o``, 0, 0), so that nothing stemming from the sentinel
      reaches it, and ``B + 3 o + 3 d >= -2^15``.
    """
    lens = np.sort(np.asarray(lens, dtype=np.int64).reshape(-1, 3), axis=1)
    go, ge = int(scoring.gap_open), int(scoring.gap_extend)
    table = np.asarray(scoring.table, dtype=np.int64)
    sub, ext = (table - 2 * ge, 0) if mode == 0 else (table, 2 * ge)
    hi, lo = max(int(sub.max()), 0), min(int(sub.min()), 0)
    drop = min(3 * lo, lo + ext, ext)
    neg = -(1 << 15) - 3 * go - 4 * drop
    gain = hi * (2 * lens[:, 0] + lens[:, 1])
    floor = {0: np.full(len(lens), 6 * go), 1: 2 * go + 2 * ge * lens[:, 0],
             2: np.zeros(len(lens), dtype=np.int64)}[mode]
    ok = ((neg + 3 * hi + gain < (6 * go if mode == 0 else 0))
          & (floor + 3 * go + 3 * drop >= -(1 << 15)))
    return ok, neg


def _sweep(d_codes, d_off, tri, lens, mode, scoring, mem_fraction, neg=None, band=None):
    """Scores of the triplets ``tri`` (kernel order, lengths ``lens``) by the 32-bit score
    kernel, or with the sentinel ``neg`` of :func:`packed_bound` by the packed one (``tri``
    of even length, every triplet admitted by the bound), or, with ``band`` (``(rows,
    first row per triplet)`` on the device, as :func:`align_banded` takes them; global
    mode, rows in the given order), the best global score within each triplet's band."""
    import cupy

    kind = "score" if neg is None else "score16"
    if band is not None:
        if neg is not None or mode != 0:
            raise ValueError("banded sweeps are global and 32-bit")
        kind = "band_score"
    fn, resident_warps, _ = _function(kind)
    la = int(lens[:, 0].max())
    lc = int(lens[:, 2].max())
    per_warp = warp_bytes(la, lc)
    pool = cupy.get_default_memory_pool()
    free = int(cupy.cuda.runtime.memGetInfo()[0] + pool.free_bytes())
    budget_warps = int(free * mem_fraction) // per_warp
    if budget_warps < 1:
        raise MemoryError(f"the affine GPU kernel needs {per_warp} bytes of face buffers for "
                          f"lengths {la} x {lc}, more than {mem_fraction:.0%} of the free "
                          f"{free} bytes")
    # whole blocks within the memory's share (at least one)
    warps = max(1, min(resident_warps, budget_warps) // WARPS_PER_BLOCK) * WARPS_PER_BLOCK
    table = np.ascontiguousarray(scoring.table, dtype=np.int32)
    K = table.shape[0]
    packed = split_fn = None
    if neg is not None:
        ge = scoring.gap_extend
        if mode == 0:
            table = table - np.int32(2 * ge)
            ge = 0
        packed = (scoring.gap_open, ge, neg)
    elif band is None:
        split_fn = _function("score_split")[0]
    d_out = _launch(fn, warps, len(tri), d_codes, d_off, cupy.asarray(tri), cupy.asarray(table),
                    K, scoring, mode, jface_words(la, lc), (la + 1) * (TJ + 1) * FACE_WORDS, lens,
                    band=(_NULL, _NULL, _NULL) if band is None else (band[0], band[1], _NULL),
                    split_fn=split_fn, packed=packed)
    res = cupy.asnumpy(d_out)
    if neg is not None and mode == 0:
        res += 2 * scoring.gap_extend * lens.sum(axis=1)
    return res


def score_triplets(seqs, trip, mode: int, scoring, *, out, precision: str = "auto",
                   mem_fraction: float = MEM_FRACTION):
    """Scores of ``trip`` (``int32 (T, 3)``) on the current device and stream into ``out``.

    ``precision``: ``"int16"`` sweeps every triplet :func:`packed_bound` admits in packed
    16 bits, two per warp; ``"auto"`` does so when there are at least as many of them
    as the packed kernel has resident warps, so that their pairs fill at least half of
    them (fewer would leave the GPU idle where the 32-bit kernel splits triplets into
    strips); ``"int32"`` never. The rest are swept in
    32 bits. The scores are the same in every case."""
    import cupy

    T = trip.shape[0]
    if T == 0:
        return out
    K = scoring.table.shape[0]
    if K > MAX_CODES:
        raise OptionError(f"the affine GPU kernel holds alphabets of up to {MAX_CODES} codes, "
                          f"got {K}")
    tri, lens = order(seqs.lengths, np.asarray(trip))
    cells = np.prod(lens.astype(np.int64) + 1, axis=1)
    perm = np.argsort(-cells, kind="stable")   # largest first: the last warps end together
    tri = np.ascontiguousarray(tri[perm], dtype=np.int32)
    lens = lens[perm]
    packed = np.zeros(T, dtype=bool)
    if precision != "int32":
        ok, neg = packed_bound(lens, scoring, mode)
        if precision == "int16" or int(ok.sum()) >= _function("score16")[1]:
            packed = ok
    d_codes = cupy.asarray(seqs.codes)
    d_off = cupy.asarray(seqs.offsets.astype(np.int64))
    res = np.empty(T, dtype=np.int64)
    both = np.flatnonzero(packed)
    if len(both):
        # neighbours in size order share a warp; an odd one out is paired with itself
        pad = np.append(both, both[-1:]) if len(both) % 2 else both
        res[both] = _sweep(d_codes, d_off, tri[pad], lens[pad], mode, scoring, mem_fraction,
                           neg)[:len(both)]
    one = np.flatnonzero(~packed)
    if len(one):
        res[one] = _sweep(d_codes, d_off, tri[one], lens[one], mode, scoring, mem_fraction)
    out[perm] = res
    return out


#: Most bytes one traceback batch takes (cubes of 160^3 take 47 MB each, so
#: filling the resident warps of an H100 would need about 100 GB).
TRACE_BATCH_BYTES = 32 << 30
#: Largest score magnitude a traced triplet may reach (the kernel's 32-bit keys
#: hold 16 x score; see triplet_affine.cu).
TRACE_BOUND = 1 << 24


def trace_words(lens) -> np.ndarray:
    """Pointer words of each triplet's cube (``lens`` ``(T, 3)``): by chunk of 32
    columns, row and wavefront step (``la + 32`` of them), 32 lanes."""
    lens = np.asarray(lens, dtype=np.int64)
    return (lens[:, 2] // 32 + 1) * (lens[:, 1] + 1) * (lens[:, 0] + 32) * 32


def traceable(lens, scoring) -> np.ndarray:
    """Which triplets (``lens`` ``(T, 3)``) the GPU traceback takes: a bound on
    their scores, columns x 3 pairs x the largest cost of a pair, stays within
    :data:`TRACE_BOUND`."""
    worst = int(np.abs(scoring.table).max()) + abs(int(scoring.gap_open)) + \
        abs(int(scoring.gap_extend))
    return np.asarray(lens, dtype=np.int64).sum(axis=1) * 3 * worst < TRACE_BOUND


def _free_bytes() -> int:
    import cupy

    pool = cupy.get_default_memory_pool()
    return int(cupy.cuda.runtime.memGetInfo()[0] + pool.free_bytes())


def _check_alphabet(scoring):
    K = scoring.table.shape[0]
    if K > MAX_CODES:
        raise OptionError(f"the affine GPU kernel holds alphabets of up to {MAX_CODES} codes, "
                          f"got {K}")
    return K


def align_triplets(seqs, trip, mode: int, scoring, *, mem_fraction: float = MEM_FRACTION):
    """Optimal alignments of ``trip`` (``(T, 3)``, rows in the order they are aligned).

    Returns ``(scores, boxes, moves)``: ``int64 (T,)``, ``int64 (T, 6)`` (start
    and end cell of the core) and a list of ``uint8`` move arrays, equal to
    ``_affine.align_cube`` with a fresh start and no bonus. Each cube takes
    :func:`trace_words` 8-byte words of device memory; a triplet whose cube
    and buffers do not fit ``mem_fraction`` of the free memory is a
    :class:`MemoryError`, one outside :func:`traceable` an :class:`OptionError`.
    """
    import cupy

    T = trip.shape[0]
    K = _check_alphabet(scoring)
    scores = np.empty(T, dtype=np.int64)
    boxes = np.empty((T, 6), dtype=np.int64)
    moves = [None] * T
    if T == 0:
        return scores, boxes, moves
    fn, resident_warps, trace_fn = _function("trace")
    split_fn = _function("trace_split")[0]
    trip = np.ascontiguousarray(trip, dtype=np.int32)
    lens = seqs.lengths[trip].astype(np.int64)
    if not traceable(lens, scoring).all():
        raise OptionError("a triplet's scores could exceed the GPU traceback's bound "
                          f"({TRACE_BOUND}); align it on the CPU")
    cells = trace_words(lens)
    per_warp = warp_bytes(int(lens[:, 0].max()), int(lens[:, 2].max()))
    order_ = np.argsort(-cells, kind="stable")
    free = _free_bytes()
    budget = min(int(free * mem_fraction), TRACE_BATCH_BYTES)
    d_codes = cupy.asarray(seqs.codes)
    d_off = cupy.asarray(seqs.offsets.astype(np.int64))
    d_sub = cupy.asarray(np.ascontiguousarray(scoring.table, dtype=np.int32))
    la_max = int(lens[:, 0].max())
    lc_max = int(lens[:, 2].max())
    jwords = jface_words(la_max, lc_max)
    kwords = (la_max + 1) * (TJ + 1) * FACE_WORDS

    def too_large(q):
        t = int(order_[q])
        return MemoryError(
            f"an affine GPU traceback of lengths {tuple(int(x) for x in lens[t])} needs "
            f"{8 * int(cells[t]) + per_warp} bytes of device memory, more than "
            f"{budget} bytes ({mem_fraction:.0%} of the free {free} bytes, at most "
            f"{TRACE_BATCH_BYTES})")

    # the largest cubes first; a batch takes cubes while they and the buffers fit
    need = [8 * int(cells[t]) + 64 * 3 + 4 * 3 for t in order_]
    for lo, hi in _batches(need, per_warp, resident_warps, budget, too_large):
        part = order_[lo:hi]
        _trace_batch(fn, resident_warps, trace_fn, trip[part], lens[part], cells[part],
                     mode, K, scoring, d_codes, d_off, d_sub, jwords, kwords,
                     part, scores, boxes, moves, split_fn=split_fn)
        # hand the batch's cubes back, so that the next one finds them free
        cupy.get_default_memory_pool().free_all_blocks()
    return scores, boxes, moves


def _trace_batch(fn, resident_warps, trace_fn, tri, lens, cells, mode, K, scoring,
                 d_codes, d_off, d_sub, jwords, kwords, where_to, scores, boxes, moves,
                 sub=None, split_fn=None):
    """Trace one batch; ``sub``: ``(sub_if, ends)`` for subproblems of the divide and
    conquer (global): their init/forbid (``(n, 2)``), and ``ends(corners)``, which gives
    from the far corners' states (``(n, 13)``) the end state to trace from of each and
    the state it must start in (``(n, 2)``); ``split_fn``: as :func:`_launch`'s."""
    import cupy

    n = tri.shape[0]
    ptr_off = np.zeros(n + 1, dtype=np.int64)
    ptr_off[1:] = np.cumsum(cells)   # pointer words per cube (trace_words)
    span = lens.sum(axis=1)
    move_off = np.zeros(n + 1, dtype=np.int64)
    move_off[1:] = np.cumsum(span)
    d_ptr = cupy.empty(int(ptr_off[-1]), dtype=np.uint64)
    d_ptr_off = cupy.asarray(ptr_off)
    d_where = cupy.empty(n, dtype=np.int64)
    subs = (_NULL, _NULL, _NULL)
    if sub is not None:
        d_corner = cupy.empty(13 * n, dtype=np.int32)
        subs = (cupy.asarray(np.ascontiguousarray(sub[0], np.int32)), d_corner,
                cupy.asarray(13 * np.arange(n, dtype=np.int64)))
    d_out = _launch(fn, resident_warps, n, d_codes, d_off, cupy.asarray(tri), d_sub, K,
                    scoring, mode, jwords, kwords, lens, trace=(d_ptr, d_ptr_off, d_where),
                    sub=subs, split_fn=split_fn)
    state_in = _NULL
    if sub is not None:
        state_in = cupy.asarray(np.ascontiguousarray(
            sub[1](cupy.asnumpy(d_corner).reshape(n, 13)), np.int32))
    d_dims = cupy.asarray(np.ascontiguousarray(lens, dtype=np.int32))
    d_moves = cupy.empty(max(1, int(move_off[-1])), dtype=np.uint8)
    d_res = cupy.empty(4 * n, dtype=np.int32)
    threads = 128
    trace_fn((-(-n // threads),), (threads,),
             (d_ptr, d_ptr_off, d_dims, d_where, np.int32(n), np.int32(mode), d_moves,
              cupy.asarray(move_off), d_res, state_in))
    del d_ptr   # the next batch reuses this memory from the pool
    res = cupy.asnumpy(d_res).reshape(n, 4)
    where = cupy.asnumpy(d_where)
    mv = cupy.asnumpy(d_moves)
    out = cupy.asnumpy(d_out)
    nb = lens[:, 1] + 1
    nc = lens[:, 2] + 1
    end = np.stack([where // (nb * nc), (where // nc) % nb, where % nc], axis=1)
    for q, t in enumerate(where_to.tolist()):
        count = int(res[q, 0])
        if count < 0:
            raise AssertionError("internal error: affine GPU traceback left the cube")
        scores[t] = out[q]
        boxes[t, :3] = res[q, 1:]
        boxes[t, 3:] = end[q]
        moves[t] = mv[move_off[q]:move_off[q] + count][::-1].copy()


def align_banded(seqs, trip, rows, band_off, sc, *, mem_fraction: float = MEM_FRACTION):
    """Banded global alignments of ``trip`` (rows in the given order; bands stacked as
    ``_checks.check_bands`` returns them), equal to ``_affine.align_band``'s.

    Returns ``(scores, moves, move_off)`` as ``api.align_banded``. Each triplet takes 8
    bytes per band cell; batches take triplets while their words and the warps' face
    buffers fit ``mem_fraction`` of the free memory (a triplet that alone does not is a
    :class:`MemoryError`); one outside :func:`traceable` is an :class:`OptionError`.
    """
    import cupy

    T = trip.shape[0]
    K = _check_alphabet(sc)
    trip = np.ascontiguousarray(trip, dtype=np.int32)
    lens = seqs.lengths[trip].astype(np.int64)
    if not traceable(lens, sc).all():
        raise OptionError("a triplet's scores could exceed the GPU traceback's bound "
                          f"({TRACE_BOUND}); align it on the CPU")
    per_layer = (rows[:, 1] - rows[:, 0] + 1) * (rows[:, 3] - rows[:, 2] + 1)
    ends = np.cumsum(per_layer)
    cells = ends[band_off[1:] - 1] - np.concatenate(([0], ends[band_off[1:-1] - 1]))
    # each layer's first word within its triplet's block
    lay_off = ends - per_layer - np.repeat(ends[band_off[:-1]] - per_layer[band_off[:-1]],
                                           np.diff(band_off))
    scores = np.empty(T, dtype=np.int64)
    counts = np.empty(T, dtype=np.int64)
    parts = []
    fn, resident_warps, trace_fn = _function("band")
    per_warp = warp_bytes(int(lens[:, 0].max()), int(lens[:, 2].max())) if T else 0
    free = _free_bytes()
    budget = min(int(free * mem_fraction), TRACE_BATCH_BYTES)
    d_codes = cupy.asarray(seqs.codes)
    d_off = cupy.asarray(seqs.offsets.astype(np.int64))
    d_sub = cupy.asarray(np.ascontiguousarray(sc.table, dtype=np.int32))
    d_rows = cupy.asarray(np.ascontiguousarray(rows, dtype=np.int32))
    d_lay = cupy.asarray(lay_off.astype(np.int64))
    jwords = jface_words(int(lens[:, 0].max()), int(lens[:, 2].max())) if T else 0
    kwords = (int(lens[:, 0].max()) + 1) * (TJ + 1) * FACE_WORDS if T else 0

    def too_large(q):
        return MemoryError(
            f"a banded affine GPU traceback of lengths {tuple(int(x) for x in lens[q])} "
            f"needs {8 * int(cells[q]) + per_warp} bytes of device memory, more than "
            f"{budget} bytes ({mem_fraction:.0%} of the free {free} bytes)")

    for lo, hi in _batches([8 * int(c) + 64 for c in cells], per_warp, resident_warps, budget,
                           too_large):
        n = hi - lo
        ptr_off = np.zeros(n + 1, dtype=np.int64)
        ptr_off[1:] = np.cumsum(cells[lo:hi])
        span = lens[lo:hi].sum(axis=1)
        move_off = np.zeros(n + 1, dtype=np.int64)
        move_off[1:] = np.cumsum(span)
        d_ptr = cupy.empty(max(1, int(ptr_off[-1])), dtype=np.uint64)
        d_ptr_off = cupy.asarray(ptr_off)
        d_boff = cupy.asarray(band_off[lo:hi].astype(np.int64))
        d_out = _launch(fn, resident_warps, n, d_codes, d_off, cupy.asarray(trip[lo:hi]), d_sub,
                        K, sc, 0, jwords, kwords, lens[lo:hi],
                        trace=(d_ptr, d_ptr_off, cupy.empty(n, dtype=np.int64)),
                        band=(d_rows, d_boff, d_lay))
        d_moves = cupy.empty(max(1, int(move_off[-1])), dtype=np.uint8)
        d_res = cupy.empty(4 * n, dtype=np.int32)
        threads = 128
        trace_fn((-(-n // threads),), (threads,),
                 (d_ptr, d_ptr_off, cupy.asarray(np.ascontiguousarray(lens[lo:hi], np.int32)),
                  d_rows, d_boff, d_lay, np.int32(n), d_moves, cupy.asarray(move_off), d_res))
        del d_ptr
        res = cupy.asnumpy(d_res).reshape(n, 4)
        mv = cupy.asnumpy(d_moves)
        scores[lo:hi] = cupy.asnumpy(d_out)
        counts[lo:hi] = res[:, 0]
        if (res[:, 0] < 0).any():
            raise AssertionError("internal error: a banded GPU traceback left its band")
        for q in range(n):
            # the kernel writes the moves last first
            parts.append(mv[move_off[q]:move_off[q] + res[q, 0]][::-1])
        cupy.get_default_memory_pool().free_all_blocks()
    moves = np.concatenate(parts) if parts else np.zeros(0, np.uint8)
    move_off = np.zeros(T + 1, dtype=np.int64)
    move_off[1:] = np.cumsum(counts)
    return scores, moves, move_off


def _pack(parts):
    """Code arrays ``parts`` (three per item) as one device array, their offsets and the
    items' index triples ``(3 q, 3 q + 1, 3 q + 2)``."""
    import cupy

    lengths = np.array([p.size for p in parts], dtype=np.int64)
    offsets = np.zeros(lengths.size + 1, dtype=np.int64)
    offsets[1:] = np.cumsum(lengths)
    flat = np.concatenate(parts).astype(np.uint8) if parts else np.zeros(0, np.uint8)
    n = len(parts) // 3
    trip = np.arange(3 * n, dtype=np.int32).reshape(n, 3)
    return (cupy.asarray(flat if flat.size else np.zeros(1, np.uint8)), cupy.asarray(offsets),
            trip, lengths[trip])


def _sweep_states(sweeps, sc, mem_fraction, use, group: int = 1):
    """``_affine.last_states`` of every sweep ``(x, y, z, init, forbid)`` (global) on the
    GPU, in batches that fit the memory share and hold whole groups of ``group``
    consecutive sweeps, each handed to ``use(lo, hi, d_last, last_off, plens)`` before
    its memory is freed: the states of sweep ``lo + q`` (``(len(y) + 1, len(z) + 1,
    13)`` int32) are ``d_last[last_off[q]:last_off[q + 1]]`` on the device, bit for bit
    the CPU's."""
    import cupy

    K = _check_alphabet(sc)
    fn, resident_warps, _ = _function("states")
    split_fn = _function("states_split")[0]
    d_sub = cupy.asarray(np.ascontiguousarray(sc.table, dtype=np.int32))
    lens = np.array([[len(w[0]), len(w[1]), len(w[2])] for w in sweeps], dtype=np.int64)
    size = (lens[:, 1] + 1) * (lens[:, 2] + 1) * 13
    per_warp = warp_bytes(int(lens[:, 0].max()), int(lens[:, 2].max()))
    budget = int(_free_bytes() * mem_fraction)
    need = (4 * size + 64).reshape(-1, group).sum(axis=1)

    def too_large(q):
        q *= group
        return MemoryError(f"an affine GPU sweep of lengths {tuple(int(x) for x in lens[q])} "
                           f"needs {int(need[q // group]) + group * per_warp} bytes of device "
                           f"memory, more than {budget} bytes")

    for glo, ghi in _batches([int(x) for x in need], group * per_warp, resident_warps, budget,
                             too_large):
        lo, hi = glo * group, ghi * group
        part = sweeps[lo:hi]
        d_codes, d_off, trip, plens = _pack([a for w in part for a in w[:3]])
        last_off = np.zeros(hi - lo + 1, dtype=np.int64)
        last_off[1:] = np.cumsum(size[lo:hi])
        d_last = cupy.empty(max(1, int(last_off[-1])), dtype=np.int32)
        sub_if = np.array([[w[3], w[4]] for w in part], dtype=np.int32)
        la, lc = int(plens[:, 0].max()), int(plens[:, 2].max())
        _launch(fn, resident_warps, hi - lo, d_codes, d_off, cupy.asarray(trip), d_sub, K, sc, 0,
                jface_words(la, lc), (la + 1) * (TJ + 1) * FACE_WORDS, plens,
                sub=(cupy.asarray(sub_if), d_last, cupy.asarray(last_off)),
                split_fn=split_fn)
        use(lo, hi, d_last, last_off, plens)
        del d_last
        cupy.get_default_memory_pool().free_all_blocks()


def _splits(splits, sc, mem_fraction):
    """The ``"split"`` requests of ``_affine.global_steps`` (``(forward sweep, reversed
    sweep)``) on the GPU: both sweeps' last layers by the states kernel and their join
    (:func:`_joins`) on the device, so that only the answers come back:
    ``(value, j, k, s, r)`` each, bit for bit ``_affine.best_join`` of the CPU's
    ``_affine.last_states``."""
    out = []

    def join(lo, hi, d_last, last_off, plens):
        out.extend(_joins(d_last, last_off, plens[0::2, 1:], int(sc.gap_open)))

    _sweep_states([w for pair in splits for w in pair], sc, mem_fraction, join, group=2)
    return out


def _joins(d_last, last_off, dims, gap_open: int) -> list:
    """``_affine.best_join(F, R, bonus_table(gap_open))`` of ``n`` pairs of last layers on
    the device (``affine_join``): pair ``p`` is ``F`` = item ``2 p`` and ``R`` = item
    ``2 p + 1`` of ``d_last`` (int32, items at ``last_off``), both ``(lb + 1, lc + 1, 13)``
    with ``dims[p] = (lb, lc)``. ``[(value, j, k, s, r)]``, ties as the CPU's."""
    import cupy

    from . import _affine

    dims = np.ascontiguousarray(dims, dtype=np.int32)
    n = dims.shape[0]
    if n == 0:
        return []
    d_res = cupy.empty(2 * n, dtype=np.int64)
    _module().get_function("affine_join")(
        (min(n, 4096),), (JOIN_THREADS,),
        (d_last, cupy.asarray(np.asarray(last_off, dtype=np.int64)), cupy.asarray(dims),
         cupy.asarray(_affine.bonus_table(gap_open).astype(np.int32)), np.int32(n), d_res))
    out = []
    for (value, idx), (lb, lc) in zip(cupy.asnumpy(d_res).reshape(n, 2).tolist(),
                                       dims.tolist()):
        if idx < 0:   # no state of F above NEG / 2: the CPU's lowest value and zeros
            out.append((int(value), 0, 0, 0, 0))
            continue
        cell = idx // (_affine.NS * _affine.NS)
        out.append((int(value), cell // (lc + 1), cell % (lc + 1),
                    idx // _affine.NS % _affine.NS, idx % _affine.NS))
    return out


def _traced_cubes(cubes, sc, mem_fraction):
    """The ``"cube"`` requests of ``_affine.global_steps`` (``(a, b, c, s_in, forbid,
    r_out)``) on the GPU: ``(value, moves, final state)`` each, as ``align_cube``."""
    import cupy

    from . import _affine

    K = _check_alphabet(sc)
    fn, resident_warps, trace_fn = _function("subtrace")
    split_fn = _function("subtrace_split")[0]
    d_sub = cupy.asarray(np.ascontiguousarray(sc.table, dtype=np.int32))
    lens = np.array([[len(c[0]), len(c[1]), len(c[2])] for c in cubes], dtype=np.int64)
    cells = trace_words(lens)
    per_warp = warp_bytes(int(lens[:, 0].max()), int(lens[:, 2].max()))
    free = _free_bytes()
    budget = min(int(free * mem_fraction), TRACE_BATCH_BYTES)
    out = [None] * len(cubes)

    def too_large(q):
        return MemoryError(f"an affine GPU traceback of lengths "
                           f"{tuple(int(x) for x in lens[q])} needs "
                           f"{8 * int(cells[q]) + per_warp} bytes of device memory, more "
                           f"than {budget} bytes")

    o = int(sc.gap_open)
    for lo, hi in _batches([8 * int(c) + 256 for c in cells], per_warp, resident_warps,
                           budget, too_large):
        part = cubes[lo:hi]
        n = hi - lo
        d_codes, d_off, trip, plens = _pack([a for c in part for a in c[:3]])
        la, lc = int(plens[:, 0].max()), int(plens[:, 2].max())
        values = np.empty(n, dtype=np.int64)
        finals = np.empty(n, dtype=np.int64)

        def ends(corners):
            st = np.empty((n, 2), dtype=np.int32)
            for q, c in enumerate(part):
                values[q], finals[q] = _affine.cube_answer(corners[q], o, c[5])
                st[q] = (finals[q], c[3])
            return st

        scores = np.empty(n, dtype=np.int64)
        boxes = np.empty((n, 6), dtype=np.int64)
        moves = [None] * n
        _trace_batch(fn, resident_warps, trace_fn, trip, plens, cells[lo:hi], 0, K, sc, d_codes,
                     d_off, d_sub, jface_words(la, lc), (la + 1) * (TJ + 1) * FACE_WORDS,
                     np.arange(n), scores, boxes, moves,
                     sub=(np.array([[c[3], c[4]] for c in part]), ends), split_fn=split_fn)
        for q in range(n):
            out[lo + q] = (int(values[q]), moves[q], int(finals[q]))
        cupy.get_default_memory_pool().free_all_blocks()
    return out


def _best_cells(items, sc, mode: int, mem_fraction):
    """Score sweeps of ``items`` (``(a, b, c)``, no empty sequence) on the GPU, with the
    kernel's packed subproblem ``mode`` (see ``triplet_affine.cu``): the best score read
    and its cell ``(i, j, k)`` (the first in ``(i, j, k)`` order on ties) each."""
    import cupy

    from . import _affine

    K = _check_alphabet(sc)
    fn, resident_warps, _ = _function("states")
    split_fn = _function("states_split")[0]
    d_sub = cupy.asarray(np.ascontiguousarray(sc.table, dtype=np.int32))
    lens = np.array([[len(w[0]), len(w[1]), len(w[2])] for w in items], dtype=np.int64)
    per_warp = warp_bytes(int(lens[:, 0].max()), int(lens[:, 2].max()))
    budget = int(_free_bytes() * mem_fraction)

    def too_large(q):
        return MemoryError(f"an affine GPU sweep of lengths {tuple(int(x) for x in lens[q])} "
                           f"needs {per_warp} bytes of device memory, more than {budget} bytes")

    scores = np.empty(len(items), dtype=np.int64)
    cells = np.empty((len(items), 3), dtype=np.int64)
    for lo, hi in _batches([64] * len(items), per_warp, resident_warps, budget, too_large):
        n = hi - lo
        d_codes, d_off, trip, plens = _pack([x for w in items[lo:hi] for x in w])
        sub_if = np.tile(np.array([_affine.FRESH, 0], dtype=np.int32), (n, 1))
        d_where = cupy.empty(n, dtype=np.int64)
        la, lc = int(plens[:, 0].max()), int(plens[:, 2].max())
        d_out = _launch(fn, resident_warps, n, d_codes, d_off, cupy.asarray(trip), d_sub, K, sc,
                        mode, jface_words(la, lc), (la + 1) * (TJ + 1) * FACE_WORDS, plens,
                        trace=(_NULL, _NULL, d_where),
                        sub=(cupy.asarray(sub_if), _NULL, _NULL), split_fn=split_fn)
        scores[lo:hi] = cupy.asnumpy(d_out)
        where = cupy.asnumpy(d_where)
        jk = (plens[:, 1] + 1) * (plens[:, 2] + 1)
        cells[lo:hi, 0] = where // jk
        cells[lo:hi, 1] = where % jk // (plens[:, 2] + 1)
        cells[lo:hi, 2] = where % (plens[:, 2] + 1)
        cupy.get_default_memory_pool().free_all_blocks()
    return scores, cells


def end_and_start(triplets, sc, m: int, *, mem_fraction: float = MEM_FRACTION) -> list:
    """``_affine.end_and_start`` of ``triplets`` (``(a, b, c)`` code arrays) in mode ``m``
    (1 semiglobal, 2 local) on the GPU: ``[(score, end, start)]``, the CPU's cells. The
    forward sweep reads the best score of the mode and its cell; the reversed sweep of
    the prefixes up to it starts at its origin and closes the far faces (the forward
    cube's near faces, where the CPU's reversed sweep ends every path). Sweeps with an
    empty sequence are done on the CPU."""
    from . import _affine

    o, e = np.int32(sc.gap_open), np.int32(sc.gap_extend)
    out = [None] * len(triplets)

    def cpu(q):
        a, b, c = triplets[q]
        score, end, start = _affine.end_and_start(a, b, c, sc.table, o, e, m)
        out[q] = (int(score), tuple(int(v) for v in end), tuple(int(v) for v in start))

    fwd = [q for q, w in enumerate(triplets) if min(len(x) for x in w) > 0]
    for q in set(range(len(triplets))) - set(fwd):
        cpu(q)
    if not fwd:
        return out
    scores, ends = _best_cells([triplets[q] for q in fwd], sc, m | m << 2, mem_fraction)
    rev, rev_items = [], []
    for q, score, end in zip(fwd, scores, ends):
        if min(end) == 0:
            cpu(q)
            continue
        rev.append((q, int(score), tuple(int(v) for v in end)))
        rev_items.append(tuple(x[:end[d]][::-1].copy() for d, x in enumerate(triplets[q])))
    if rev:
        _, back = _best_cells(rev_items, sc, 0 | m << 2 | 16, mem_fraction)
        for (q, score, end), cell in zip(rev, back):
            out[q] = (score, end, tuple(end[d] - int(cell[d]) for d in range(3)))
    return out


def align_global(triplets, sc, *, forbid=None, mem_fraction: float = MEM_FRACTION) -> list:
    """Optimal global alignments of ``triplets`` (``(a, b, c)`` code arrays, any size)
    by the divide and conquer of ``_affine.global_steps``, its splits (both sweeps and
    their join) and its cubes on the GPU, all the triplets' requests of a round in one
    batch: ``[(moves, score)]``, bit for bit ``_affine.global_moves`` (with each
    triplet's ``forbid``, the faces its path may not touch after its start: the cores of
    semiglobal and local alignments; default none). Splits or cubes with an empty
    sequence are done on the CPU (the kernels take sequences of one residue or more)."""
    from . import _affine

    o, e = int(sc.gap_open), int(sc.gap_extend)
    forbid = [0] * len(triplets) if forbid is None else [int(f) for f in forbid]
    gens = [_affine.global_steps(a, b, c, o, e, _affine.FRESH, _affine.FRESH, f)
            for (a, b, c), f in zip(triplets, forbid)]
    pending = {q: next(g) for q, g in enumerate(gens)}
    done = [None] * len(gens)

    def empty(w):
        return min(len(w[0]), len(w[1]), len(w[2])) == 0

    while pending:
        answers = {}
        cubes = [(q, r[1]) for q, r in pending.items() if r[0] == "cube"]
        splits = [(q, r[1]) for q, r in pending.items() if r[0] == "split"]
        for q, a in cubes:
            if empty(a):
                answers[q] = _affine.cpu_answer("cube", a, sc.table, o, e)
        gpu_cubes = [(q, a) for q, a in cubes if not empty(a)]
        if gpu_cubes:
            got = _traced_cubes([a for _, a in gpu_cubes], sc, mem_fraction)
            answers.update(zip([q for q, _ in gpu_cubes], got))
        for q, pair in splits:
            if empty(pair[0]) or empty(pair[1]):
                answers[q] = _affine.cpu_answer("split", pair, sc.table, o, e)
        gpu_splits = [(q, pair) for q, pair in splits if q not in answers]
        if gpu_splits:
            got = _splits([pair for _, pair in gpu_splits], sc, mem_fraction)
            answers.update(zip([q for q, _ in gpu_splits], got))
        for q, ans in answers.items():
            try:
                pending[q] = gens[q].send(ans)
            except StopIteration as stop:
                done[q] = stop.value
                del pending[q]
    return [(moves, value) for moves, _, value in done]
