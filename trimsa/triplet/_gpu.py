"""CuPy launcher for the CUDA triplet kernels (``trimsa/kernels/triplet_score.cu``).

:func:`score_triplets` fills the same scores as ``_cpu.score_batch``, bit for
bit. The planning (naming of the sequences, 16-bit bound, group shapes,
pairing, launch sizes) is in :mod:`trimsa.triplet._gpu_plan`; this module only
moves data and launches. CuPy is imported here and in
:func:`trimsa.kernels.module`, nowhere else.
"""

from __future__ import annotations

import numpy as np

from ..errors import BackendUnavailableError, OptionError
from . import _gpu_plan as plan

_INSTALL = ("install CuPy for your CUDA version (pip install 'trimsa[gpu]', or "
            "cupy-cuda12x / cupy-cuda13x) on a machine with an NVIDIA GPU, or use --device cpu")
_BLOCK = 128
_KERNEL = "triplet_score.cu"
#: fraction of the device's free memory one batch may take for its face buffers
MEM_FRACTION = 0.6
#: launches whose items sweep at most this many layers use the staged region setup
#: (the kernel's ``STG``)
STAGE_LAYERS = 96
#: alphabets (letters that occur, plus the padding code) of at most this many
#: letters use the A-residue profile in shared memory (the kernel's ``PRF``) in the
#: launches where it measured faster (see ``_prepare``); 32-bit launches of the
#: configurations in ``_gpu_plan.TALL`` then take its 16 x 8 tiles (B x C scores
#: from the profile)
PROFILE_LETTERS = 8
#: zero bytes after the longest sequence's worth of slack at the end of the
#: device copy of the residue codes (see ``_Device``)
CODE_TAIL = 256
#: seconds between two polls of a batch's completion (see :meth:`Batch.wait`)
POLL_S = 2e-4


class ScratchBudgetError(MemoryError):
    """The face buffers of one block of thread groups exceed the batch's memory share.

    Raised while planning, before anything is launched.
    """


def _probe():
    """``(name, None)`` of the current GPU, or ``(None, reason)``."""
    try:
        import cupy
    except Exception as exc:  # ImportError, or a broken CUDA install
        return None, f"CuPy is not importable ({type(exc).__name__}: {exc})"
    try:
        if cupy.cuda.runtime.getDeviceCount() < 1:
            return None, "CuPy sees no CUDA device"
        dev = cupy.cuda.Device()
        name = cupy.cuda.runtime.getDeviceProperties(dev.id)["name"]
        return (name.decode() if isinstance(name, bytes) else str(name)), None
    except Exception as exc:
        return None, f"CuPy sees no usable CUDA device ({type(exc).__name__}: {exc})"


def available():
    """Name of the GPU the kernels would run on, or ``None`` (no CuPy or no device)."""
    return _probe()[0]


def require():
    """Raise :class:`BackendUnavailableError` unless a GPU can run the kernels."""
    name, why = _probe()
    if name is None:
        raise BackendUnavailableError(f"GPU backend unavailable: {why}; {_INSTALL}")
    return name


_FUNCTIONS: dict = {}


def _function(config: tuple, bits: int, mode: int, stage: bool = False, kp: int = 0,
              imad: bool = False):
    """``(kernel, resident blocks per device)`` of one instantiation on the current device.

    ``stage``: the kernel with the staged region setup (groups of more than one
    thread; it takes :func:`~trimsa.triplet._gpu_plan.stage_words` words of
    dynamic shared memory per thread). ``kp`` > 0: the kernel with the
    A-residue profile for ``kp`` letters (:func:`~trimsa.triplet._gpu_plan.profile_bytes`).
    ``imad``: 16-bit kernels add with 32-bit IMADs (``S16x2N``; only for tables that
    :func:`~trimsa.triplet._gpu_plan.imad_ok` accepts).

    Memoized per device: looking the kernel up and reading the device's
    attributes cost milliseconds, which add up over many small batches.
    """
    import cupy

    dev = cupy.cuda.Device().id
    minb = plan.MIN_BLOCKS.get((config, bits), 1)
    stage = bool(stage) and plan.stage_words(config) > 0
    kp = int(kp) if plan.profile_bytes(config, bits, 1) else 0
    imad = bool(imad) and bits == 16
    key = (config, bits, mode, dev, minb, stage, kp, imad)
    hit = _FUNCTIONS.get(key)
    if hit is None:
        from ..kernels import module

        tj, tk, p, q = config
        arith = ("S16x2N" if imad else "S16x2") if bits == 16 else "I32"
        expr = (f"triplet_score<{arith}, {tj}, {tk}, {p}, {q}, {mode}, {'true' if stage else 'false'}, "
                f"{'true' if kp else 'false'}>")
        fn = module(_KERNEL, (expr,), (f"-DTRIMSA_MIN_BLOCKS={minb}",), dev).get_function(expr)
        attrs = cupy.cuda.Device(dev).attributes
        smem = (4 * _BLOCK * plan.stage_words(config) if stage else 0) + plan.profile_bytes(config, bits, kp)
        if smem:
            fn.max_dynamic_shared_size_bytes = smem
        regs = -(-max(int(fn.num_regs), 1) // 8) * 8
        per_sm = max(1, min(65536 // (regs * _BLOCK), 2048 // _BLOCK,
                            # the driver keeps 1 KiB of shared memory per block
                            attrs["MaxSharedMemoryPerMultiprocessor"]
                            // (int(fn.shared_size_bytes) + smem + 1024)))
        hit = _FUNCTIONS[key] = (_Kernel(fn, smem), attrs["MultiProcessorCount"] * per_sm)
    return hit


class _Kernel:
    """A compiled kernel and the dynamic shared memory each launch of it takes."""

    def __init__(self, fn, smem):
        self.fn, self.smem = fn, smem
        self.num_regs, self.local_size_bytes = fn.num_regs, fn.local_size_bytes

    def __call__(self, grid, block, args):
        self.fn(grid, block, args, shared_mem=self.smem)


def _free_bytes() -> int:
    """Free memory of the current device, counting the blocks CuPy's pool holds unused.

    The pool gives its cached blocks back to the driver and retries when an
    allocation fails, so they are as good as free.
    """
    import cupy

    return int(cupy.cuda.runtime.memGetInfo()[0] + cupy.get_default_memory_pool().free_bytes())


class _Device:
    """Per-call device copies of the sequences and the tables."""

    def __init__(self, seqs, scoring, mode):
        import cupy

        # The kernel reads a tile's residues without a bounds check and then
        # replaces those past the sequence's end by the padding code; a tile
        # starts inside its padded plane, so the reads end less than the
        # longest sequence plus one region (at most 64) past the sequence.
        offsets = np.ascontiguousarray(seqs.offsets, dtype=np.int64)
        longest = int(np.diff(offsets).max()) if offsets.size > 1 else 0
        # only the letters that occur (the A-residue profile's size depends on them)
        used, table = plan.compact_alphabet(np.asarray(seqs.codes[:offsets[-1]]), np.asarray(scoring.table))
        codes = np.zeros(offsets[-1] + longest + CODE_TAIL, dtype=np.uint8)
        codes[:offsets[-1]] = used
        self.codes = cupy.asarray(codes)
        self.offsets = cupy.asarray(offsets)
        tabs = plan.extended_tables(table, scoring.gap, mode)
        if tabs.shape[1] > 32:
            raise OptionError("the GPU kernels handle alphabets of at most 31 letters")
        self.kp = tabs.shape[1]
        self.imad = plan.imad_ok(tabs, scoring.gap, mode)
        self.tabs = cupy.asarray(tabs.ravel())


def score_triplets(seqs, trip, mode, scoring, out=None, precision="auto", stats=None,
                   split="auto", mem_fraction=MEM_FRACTION):
    """Scores of triplets ``trip`` (``(T, 3)`` indices into ``seqs``) on the GPU.

    Parameters
    ----------
    seqs
        :class:`~trimsa.io.SequenceSet`.
    trip
        ``int (T, 3)`` triplet rows.
    mode
        0 global, 1 semiglobal, 2 local (see ``_cpu`` for the exact rules).
    scoring
        :class:`~trimsa.scoring.Scoring` with linear gaps (checked by the API).
    out
        ``int64 (T,)`` array to fill (a new one when ``None``).
    precision
        ``"auto"`` (default): packed 16-bit where the bound
        of :func:`~trimsa.triplet._gpu_plan.fits` proves it exact, 32-bit
        elsewhere; ``"int16"`` the same (16-bit is never used where it could
        overflow); ``"int32"``: 32-bit only.
    stats
        Optional dict that receives per-launch details (for benchmarks).
    split
        ``"auto"``: a batch of few triplets wider than one region sweeps each
        triplet's region columns in parallel (one thread group each, linked by
        flags), and so does the partial last wave of a launch of long
        triplets (:func:`_without_tail`); ``"never"``: always one group per
        triplet.
    mem_fraction
        Share of the device's free memory the batch's buffers may take.

    Returns
    -------
    numpy.ndarray
        ``out``.
    """
    trip = np.ascontiguousarray(trip, dtype=np.int64).reshape(-1, 3)
    if out is None:
        out = np.empty(trip.shape[0], dtype=np.int64)
    if trip.shape[0] == 0:
        return out
    batch = Batch(seqs, trip, mode, scoring, precision, split, mem_fraction)
    batch.run()
    batch.wait()
    out[:] = batch.result()
    if stats is not None:
        stats.setdefault("launches", []).extend(batch.info)
    return out


class Batch:
    """A planned batch on the device: :meth:`run` launches it, :meth:`result` reads it.

    Kept separate from :func:`score_triplets` so that benchmarks can time the
    kernels alone (re-running :meth:`run` recomputes the same scores).

    The launches of a batch run one after another on one stream, so they
    share one buffer (``arena``) for their face buffers, split-mode k-faces
    and flags, sized for the largest of them.
    """

    def __init__(self, seqs, trip, mode, scoring, precision="auto", split="auto",
                 mem_fraction=MEM_FRACTION):
        require()
        import cupy

        # the padding cells of a region are harmless because gaps never score positively
        if scoring.gap > 0:
            raise OptionError(f"gap scores must be <= 0, got {scoring.gap}")
        if precision not in plan.PRECISIONS:
            raise OptionError(
                f"GPU precision must be one of {', '.join(plan.PRECISIONS)}, got {precision!r}")
        trip = np.ascontiguousarray(trip, dtype=np.int64).reshape(-1, 3)
        self.T = T = trip.shape[0]
        self.mode = mode
        lengths = np.asarray(seqs.offsets[1:] - seqs.offsets[:-1], dtype=np.int64)
        # the kernel's residue offsets are 32-bit, and reads reach past the end (_Device)
        if int(seqs.offsets[-1]) + int(lengths.max(initial=0)) + CODE_TAIL >= 2**31:
            raise OptionError("the GPU kernels take at most 2^31 residues in one sequence set")
        m = plan.bound(np.asarray(scoring.table), scoring.gap, mode)
        idx, lens, launches, self.trivial = plan.plan_batch(lengths, trip, mode, m, precision)
        self.lens = lens
        longest = int(lens.sum(axis=1).max(initial=0)) + 3
        # the swept values (H' in global mode) and the scores themselves fit 32 bits
        if not (plan.fits(longest, 0, 0, m, plan.INT32_MAX)
                and plan.fits(longest, 0, 0, plan.column_bound(np.asarray(scoring.table), scoring.gap),
                              plan.INT32_MAX)):
            raise OptionError("sequences too long for these scores (32-bit overflow); use smaller scores")
        dev = _Device(seqs, scoring, mode)
        self.res = cupy.empty(T, dtype=cupy.int32)
        budget = int(_free_bytes() * mem_fraction) // 4   # words
        calls = []
        for whole in launches:
            for ln in _without_tail(whole, lens, mode, split, dev.kp):
                calls.append(_prepare(ln, dev, idx, lens, mode, m, scoring.gap, self.res, split,
                                      budget))
        self.arena = cupy.empty(max([c.words for c in calls] + [1]), dtype=cupy.uint32)
        self.calls = [c.bind(self.arena) for c in calls]
        self.info = [c.info for c in calls]

    def run(self):
        """Launch every kernel of the batch (asynchronously, on the current stream)."""
        self.res.fill(0 if self.mode else np.iinfo(np.int32).min)
        for fn, grid, args, zero in self.calls:
            for a in zero:   # the item counter, and the split mode's flags
                a.fill(0)
            fn(grid, (_BLOCK,), args)
        return self

    def wait(self):
        """Wait until the launched kernels are done, sleeping between polls.

        A blocking synchronisation may hold the GIL for the whole run of the
        kernels (it depends on the CuPy build); polling an event with
        ``time.sleep`` in between never does.
        """
        import time

        import cupy

        ev = cupy.cuda.Event(block=False, disable_timing=True)
        ev.record()
        while not ev.done:
            time.sleep(POLL_S)
        return self

    def result(self) -> np.ndarray:
        host = self.res.get().astype(np.int64)
        if self.mode == 0 and (host[~self.trivial] == np.iinfo(np.int32).min).any():
            raise RuntimeError("GPU kernel left a triplet unscored (internal error)")
        host[self.trivial] = 0
        return host


def _split_plan(ln, lens, mode, resident_groups):
    """Column jobs of a launch whose few, wide planes should be swept column-parallel.

    Returns ``None`` (stream as usual) or ``(colmap, kface words, flag count,
    jface words per group, layers, row width)`` for :data:`plan.SPLIT`. A
    column job waits on the one to its left, so every job must be resident at
    once: the launch is split only when all of them fit.
    """
    tj, tk, p, q = plan.SPLIT
    items = ln.items
    if items.shape[0] * 8 > resident_groups:
        return None
    nl, nj, nk = plan.split_regions(items, lens, mode)
    if nk.max() < 2 or nk.sum() > resident_groups:
        return None
    kw2 = p * tj + 1
    rows_out = []
    koff = foff = 0
    for x in range(items.shape[0]):
        for kr in range(int(nk[x])):
            rows_out.append((x, kr, koff, foff))
        koff += int(nk[x] * nj[x] * nl[x] * kw2)
        foff += int(nk[x] * nj[x] * p)
    if koff >= 2**31:
        return None
    nlmax = int(nl.max())
    # a column job's j-face rows span its own region column only; its k-faces
    # go through the shared buffer, so it needs no k-face rows of its own
    kwidth = q * tk + 1
    words = 2 * nlmax * kwidth
    return np.array(rows_out, dtype=np.int32), koff, foff, words, nlmax, kwidth


def _groups(config, bits, mode, kp=0):
    """Thread groups of ``config`` resident at once on the current device.

    ``kp``: the profile's letters, which a tall tile (``TJ > 8``) always takes.
    """
    _, resident = _function(config, bits, mode, kp=kp if config[0] > 8 else 0)
    _, _, p, q = config
    return resident * (_BLOCK // (p * q))


def _layers(items, lens, mode):
    """Layers each triplet of ``items`` sweeps (global mode also sweeps ``i = 0``)."""
    return lens[items[items >= 0], 0] + (1 if mode == 0 else 0)


def _launch_config(ln, lens, mode, kp):
    """The configuration a launch runs: its shape's, or its tall one (``_gpu_plan.tall_config``).

    Tall tiles (16 x 8, 32 bits) read the B x C scores from the A-residue profile
    (alphabets of at most ``PROFILE_LETTERS`` letters, ``kp``), which is double-buffered
    by region parity, so every item must sweep at least ``P + Q - 2`` layers (as for the
    16-bit profile in ``_prepare``).
    """
    config = plan.CONFIGS[ln.shape]
    tall = plan.tall_config(ln.shape) if ln.bits == 32 and kp <= PROFILE_LETTERS else None
    if tall is not None and int(_layers(ln.items, lens, mode).min()) >= tall[2] + tall[3] - 2:
        return tall
    return config


def _without_tail(ln, lens, mode, split="auto", kp=0):
    """``[ln]``, or ``ln`` without its partial last wave of dear items, then that tail in split pieces.

    The items of a launch of multi-region planes are handed out in order of
    decreasing cost to the resident thread groups. When the dear items end in
    a partial wave, a few groups stay busy for a whole item while the others
    idle (at L = 1024 an item takes about a second). :func:`plan.tail_items`
    finds those items by simulating the hand-out; they are swept
    column-parallel instead (:func:`_split_plan`, several groups per item), in
    pieces small enough for all their column jobs to be resident.
    ``_prepare`` still streams a piece whose buffers do not fit in memory.

    The rule assumes the batch has the GPU to itself. When a second stream's
    batch runs beside it, that batch's groups fill the idle ones anyway, and
    a tail of half a wave or more is never moved (see ``SPLIT_PENALTY``).
    ``kp``: the letters of the batch's profile (the launch may run tall tiles).
    """
    if split != "auto" or not plan.scratch_words(ln, lens, mode)[0]:
        return [ln]
    groups = _groups(_launch_config(ln, lens, mode, kp), ln.bits, mode, kp)
    n = ln.items.shape[0]
    if n <= groups:
        return [ln]
    nk = plan.split_regions(ln.items, lens, mode)[2]
    tail = plan.tail_items(plan.item_costs(ln, lens, mode), nk >= 2, groups)
    if tail is None:
        return [ln]
    split_groups = _groups(plan.SPLIT, ln.bits, mode)
    rest = ln.items[tail]
    per = max(1, min(split_groups // 8, split_groups // int(nk[tail].max())))
    out = [plan.Launch(ln.shape, ln.bits, ln.items[~tail])]
    for a in range(0, rest.shape[0], per):
        out.append(plan.Launch(ln.shape, ln.bits, rest[a:a + per]))
    return out


class _Call:
    """One planned kernel launch; :meth:`bind` places its buffers in the batch's arena."""

    def __init__(self, fn, blocks, head, sizes, tail, scratch, kface, flags, info):
        # the kernel's arguments before its face buffers, and the buffers' sizes after them
        self.fn, self.blocks, self.head, self.sizes, self.tail = fn, blocks, head, sizes, tail
        self.scratch, self.kface, self.flags = scratch, kface, flags   # words of each
        self.words = scratch + kface + flags
        self.info = info

    def bind(self, arena):
        """``(kernel, grid, args, arrays to zero before each run)``."""
        import cupy

        counter = cupy.zeros(1, dtype=cupy.int32)
        zero = [counter]
        s, k = self.scratch, self.kface
        if self.tail is None:
            rest = (np.uint64(0), np.int32(0), np.uint64(0), np.uint64(0), counter)
        else:
            colmap, ncols = self.tail
            flags = arena[s + k:s + k + self.flags].view(cupy.int32)
            zero.append(flags)
            rest = (colmap, ncols, arena[s:s + k], flags, counter)
        args = self.head + (arena[:max(s, 1)],) + self.sizes + rest
        return self.fn, (self.blocks,), args, zero


def _prepare(ln, dev, idx, lens, mode, m, gap, res, split, budget):
    """Plan one launch (kernel, grid, arguments, buffer sizes) within ``budget`` words."""
    import cupy

    items = ln.items
    slots, dst = plan.slot_rows(items, idx)
    config = _launch_config(ln, lens, mode, dev.kp)
    nitems = items.shape[0]
    layers = _layers(items, lens, mode)   # swept per triplet
    words, nlmax, kwidth = plan.scratch_words(ln, lens, mode, config)
    if words >= 2**31:   # the kernel's offsets inside a group's face buffers are 32-bit
        raise OptionError("sequences too long for the GPU kernels (face buffers over 2^31 words)")
    sp = None
    if split == "auto" and words:
        sp = _split_plan(ln, lens, mode, _groups(plan.SPLIT, ln.bits, mode))
        if sp is not None:
            colmap, kwords, nflags, swords, snl, skw = sp
            sblocks = -(-colmap.shape[0] // (_BLOCK // 32))
            if sblocks * (_BLOCK // 32) * swords + kwords + nflags > budget:
                sp = None   # column jobs must all be resident with their buffers: stream instead
            else:
                config, words, nlmax, kwidth = plan.SPLIT, swords, snl, skw
    # the staged setup pays where regions have few layers (measured: +2..10% at L = 16..64,
    # up to 6% slower at L >= 128; eval/experiments/kernels/results/kernels-H100-2026-11-22-stage-branch.md)
    stage = sp is None and int(layers.max()) <= STAGE_LAYERS
    # the 16-bit IMAD update (S16x2N) where it measured faster: staged semiglobal launches
    # (+3..5% at L = 32..64; global gained nothing, unstaged launches lost 1..8%;
    # eval/experiments/kernels/results/kernels-H100-2026-11-23-s9-ab.md), for tables that allow it
    # (the kernel stages, and so takes the IMAD update, only for groups of several threads)
    imad = bool(dev.imad and stage and plan.stage_words(config) and mode == 1 and ln.bits == 16)
    # (a tall tile has no kernel without the profile: it would hold 128 B x C scores in registers)
    fn, resident = _function(config, ln.bits, mode, stage=stage, imad=imad, kp=dev.kp if config[0] > 8 else 0)
    _, _, p, q = config
    # Tall tiles always take the A-residue profile (their B x C scores come from it). For
    # 8 x 8 tiles it pays only in 16 bits, for staged launches of groups of at least
    # 16 threads: +1..6% at L = 32..64; it lost up to 12% elsewhere (32 bits, groups of 4
    # threads at L = 16, and 6-10% in semiglobal and local mode at L >= 128;
    # eval/experiments/kernels/results/kernels-H100-2026-11-22-s6-profile.md). It is double-buffered by region
    # parity, so every item must sweep at least P + Q - 2 layers (A is the longest sequence,
    # so planes that need this group do), and it must cost no resident block.
    profile = config[0] > 8
    if ln.bits == 16 and stage and p * q >= 16 and dev.kp <= PROFILE_LETTERS and int(layers.min()) >= p + q - 2:
        fnp, resp = _function(config, ln.bits, mode, stage=stage, kp=dev.kp, imad=imad)
        if resp >= resident:
            fn, profile = fnp, True
    per_block = (32 // (p * q)) * (_BLOCK // 32)
    tail = None
    if sp is not None:
        blocks = sblocks
        tail = (cupy.asarray(colmap), np.int32(colmap.shape[0]))
    else:
        kwords = nflags = 0
        blocks = min(-(-nitems // per_block), resident)
        if words:
            if budget // words < per_block:
                raise ScratchBudgetError(f"GPU memory too small for one block of {per_block} groups "
                                         f"({words * 4 * per_block} bytes)")
            blocks = max(1, min(blocks, budget // words // per_block))
    scratch = blocks * per_block * words
    neg = plan.neg_sentinel(m, ln.bits)
    head = (dev.codes, dev.offsets, cupy.asarray(slots), cupy.asarray(dst),
            np.int32(nitems), dev.tabs, np.int32(dev.kp), np.int32(gap), np.int32(neg), res)
    sizes = (np.int64(words), np.int32(nlmax), np.int32(kwidth))
    info = dict(shape=config, bits=ln.bits, items=int(nitems), blocks=int(blocks),
                regs=int(fn.num_regs), local_bytes=int(fn.local_size_bytes),
                scratch_words=int(words), split=sp is not None, stage=bool(stage),
                profile=profile, imad=imad)
    return _Call(fn, blocks, head, sizes, tail, scratch, kwords, nflags, info)
