"""CuPy launcher for the CUDA triplet kernels (``trimsa/kernels/triplet_score.cu``).

:func:`score_triplets` fills the same scores as ``_cpu.score_batch``, bit for
bit. The planning (naming of the sequences, 16-bit bound, group shapes,
pairing, launch sizes) is in :mod:`trimsa.triplet._gpu_plan`; this module only
moves data and launches. CuPy is imported here and in
:func:`trimsa.kernels.module`, nowhere else.
"""

from __future__ import annotations

import os

import numpy as np

from ..errors import BackendUnavailableError, OptionError
from . import _gpu_plan as plan

#: precision used when a call gives none: "auto" | "int32" | "int16"
PRECISION = os.environ.get("TRIMSA_GPU_PRECISION", "auto")

_INSTALL = ("install CuPy for your CUDA version (pip install 'trimsa[gpu]', or "
            "cupy-cuda12x / cupy-cuda13x) on a machine with an NVIDIA GPU, or use --device cpu")
_BLOCK = 128
_KERNEL = "triplet_score.cu"
_MODE_NAMES = ("global", "semiglobal", "local")


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


def _function(shape: int, bits: int, mode: int):
    from ..kernels import module
    import cupy

    tj, tk, p, q = plan.CONFIGS[shape]
    arith = "S16x2" if bits == 16 else "I32"
    expr = f"triplet_score<{arith}, {tj}, {tk}, {p}, {q}, {mode}>"
    mod = module(_KERNEL, (expr,), (), cupy.cuda.Device().id)
    return mod.get_function(expr)


def _resident_blocks(fn) -> int:
    import cupy

    dev = cupy.cuda.Device()
    sms = dev.attributes["MultiProcessorCount"]
    regs = max(int(fn.num_regs), 1)
    regs = -(-regs // 8) * 8
    per_sm = max(1, min(65536 // (regs * _BLOCK), 2048 // _BLOCK))
    return sms * per_sm


class _Device:
    """Per-call device copies of the sequences and the tables."""

    def __init__(self, seqs, scoring):
        import cupy

        self.codes = cupy.asarray(np.ascontiguousarray(seqs.codes, dtype=np.uint8))
        if self.codes.size == 0:
            self.codes = cupy.zeros(1, dtype=np.uint8)
        self.offsets = cupy.asarray(np.ascontiguousarray(seqs.offsets, dtype=np.int64))
        tabs = plan.extended_tables(np.asarray(scoring.table), scoring.gap)
        if tabs.shape[1] > 32:
            raise OptionError("the GPU kernels handle alphabets of at most 31 letters")
        self.kp = tabs.shape[1]
        self.tabs = cupy.asarray(tabs.ravel())


def score_triplets(seqs, trip, mode, scoring, out=None, precision=None, stats=None):
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
        :class:`~trimsa.scoring.Scoring`.
    out
        ``int64 (T,)`` array to fill (a new one when ``None``).
    precision
        ``"auto"`` (default, :data:`PRECISION`): packed 16-bit where the bound
        of :func:`~trimsa.triplet._gpu_plan.fits` proves it exact, 32-bit
        elsewhere; ``"int16"`` the same (16-bit is never used where it could
        overflow); ``"int32"``: 32-bit only.
    stats
        Optional dict that receives per-launch details (for benchmarks).

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
    if mode == 2 and scoring.gap > 0:
        # padding cells are harmless only when gaps do not score positively
        from . import _cpu

        T = trip.shape[0]
        _cpu.score_batch(seqs.codes, seqs.offsets, trip.astype(np.int32), scoring.table,
                         np.int32(scoring.gap), 2, 2, out, max(1, min(T, 64)))
        return out
    batch = Batch(seqs, trip, mode, scoring, precision)
    batch.run()
    out[:] = batch.result()
    if stats is not None:
        stats.setdefault("launches", []).extend(batch.info)
    return out


class Batch:
    """A planned batch on the device: :meth:`run` launches it, :meth:`result` reads it.

    Kept separate from :func:`score_triplets` so that benchmarks can time the
    kernels alone (re-running :meth:`run` recomputes the same scores).
    """

    def __init__(self, seqs, trip, mode, scoring, precision=None):
        require()
        import cupy

        if mode == 2 and scoring.gap > 0:
            raise OptionError("local mode on the GPU needs gap <= 0")
        precision = precision or PRECISION
        if precision not in plan.PRECISIONS:
            raise OptionError(
                f"GPU precision must be one of {', '.join(plan.PRECISIONS)}, got {precision!r}")
        trip = np.ascontiguousarray(trip, dtype=np.int64).reshape(-1, 3)
        self.T = T = trip.shape[0]
        self.mode = mode
        lengths = np.asarray(seqs.offsets[1:] - seqs.offsets[:-1], dtype=np.int64)
        idx, lens = plan.order(lengths, trip)
        self.lens = lens
        m = plan.column_bound(np.asarray(scoring.table), scoring.gap)
        if not plan.fits(lens[:, 0] + 1, lens[:, 1] + 1, lens[:, 2] + 1, m, plan.INT32_MAX).all():
            raise OptionError("sequences too long for these scores (32-bit overflow); use smaller scores")
        launches, self.trivial = plan.plan(lens, mode, m, precision)
        dev = _Device(seqs, scoring)
        self.res = cupy.empty(T, dtype=cupy.int32)
        self.calls = []
        self.info = []
        for ln in launches:
            self.calls.append(_prepare(ln, dev, idx, lens, mode, m, scoring.gap, self.res, self.info))

    def run(self):
        """Launch every kernel of the batch (asynchronously, on the current stream)."""
        import cupy

        self.res.fill(0 if self.mode else np.iinfo(np.int32).min)
        for fn, grid, args in self.calls:
            fn(grid, (_BLOCK,), args)
        return self

    def result(self) -> np.ndarray:
        host = self.res.get().astype(np.int64)
        if self.mode == 0 and (host[~self.trivial] == np.iinfo(np.int32).min).any():
            raise RuntimeError("GPU kernel left a triplet unscored (internal error)")
        host[self.trivial] = 0
        return host


def _prepare(ln, dev, idx, lens, mode, m, gap, res, info):
    import cupy

    items = ln.items
    lanes = ln.lanes
    slots = np.full((items.shape[0], lanes, 3), -1, dtype=np.int32)
    full = items >= 0
    slots[full] = idx[items[full]]
    dst = np.where(full, items, -1).astype(np.int32)
    fn = _function(ln.shape, ln.bits, mode)
    _, _, p, q = plan.CONFIGS[ln.shape]
    per_warp = 32 // (p * q)
    per_block = per_warp * (_BLOCK // 32)
    nitems = items.shape[0]
    blocks = min(-(-nitems // per_block), _resident_blocks(fn))
    words, nlmax, kwidth = plan.scratch_words(ln, lens, mode)
    if words:
        free, _ = cupy.cuda.runtime.memGetInfo()
        budget = int(free * 0.6) // (4 * words)
        if budget < per_block:
            raise MemoryError(f"GPU memory too small for one block of {per_block} groups "
                              f"({words * 4 * per_block} bytes)")
        blocks = max(1, min(blocks, budget // per_block))
        scratch = cupy.empty(blocks * per_block * words, dtype=cupy.uint32)
    else:
        scratch = cupy.empty(1, dtype=cupy.uint32)
    neg = plan.neg_sentinel(m, ln.bits)
    args = (dev.codes, dev.offsets, cupy.asarray(slots.reshape(-1, 3)), cupy.asarray(dst.ravel()),
            np.int32(nitems), dev.tabs, np.int32(dev.kp), np.int32(gap), np.int32(neg), res,
            scratch, np.int64(words), np.int32(nlmax), np.int32(kwidth))
    info.append(dict(shape=plan.CONFIGS[ln.shape], bits=ln.bits, items=int(nitems), blocks=int(blocks),
                     regs=int(fn.num_regs), local_bytes=int(fn.local_size_bytes),
                     scratch_words=int(words)))
    return fn, (blocks,), args
