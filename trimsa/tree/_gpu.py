"""CuPy launcher of the shared k-mer counts (``trimsa/kernels/kmer_shared.cu``).

:class:`SharedOnGpus` fills the same blocks as :func:`trimsa.tree._cpu.kmer_shared`, bit
for bit (they are counts of set bits): each device holds a copy of the bit sets, and a
block of rows x columns is computed on one device and copied back. The host turns the
counts into distances (:func:`trimsa.tree._cpu.shared_distance`), so that the distances,
and the trees built from them, are those of the CPU.
"""

from __future__ import annotations

import threading

import numpy as np

KERNEL = "kmer_shared.cu"
TILE = 32
PER = 4


class SharedOnGpus:
    """The bit sets ``bits`` (``uint64 (n, words)``) on the GPUs ``devices``."""

    def __init__(self, bits: np.ndarray, devices):
        import cupy

        from .. import kernels

        self._cupy = cupy
        self.devices = tuple(int(d) for d in devices)
        self.words = int(bits.shape[1])
        self._bits, self._fn = {}, {}
        self._lock = threading.Lock()
        for d in self.devices:
            with cupy.cuda.Device(d):
                self._bits[d] = cupy.asarray(np.ascontiguousarray(bits, np.uint64))
                mod = kernels.module(KERNEL, (), (), device=d)
                self._fn[d] = {np.dtype(np.uint16): mod.get_function("kmer_shared_u16"),
                               np.dtype(np.int32): mod.get_function("kmer_shared_i32")}

    def block(self, device: int, rows: np.ndarray, cols: np.ndarray, dtype) -> np.ndarray:
        """``(len(rows), len(cols))`` shared counts of sequences ``rows`` x ``cols``,
        computed on ``device`` (one of :attr:`devices`) and returned on the host."""
        cp = self._cupy
        dtype = np.dtype(dtype)
        nr, nc = int(rows.size), int(cols.size)
        with cp.cuda.Device(device):
            out = cp.empty((nr, nc), dtype)
            if nr and nc:
                r = cp.asarray(np.ascontiguousarray(rows, np.int64))
                c = cp.asarray(np.ascontiguousarray(cols, np.int64))
                grid = ((nc + TILE - 1) // TILE, (nr + TILE - 1) // TILE)
                self._fn[device][dtype](grid, (TILE, TILE // PER),
                                        (self._bits[device], np.int32(self.words), r,
                                         np.int32(nr), c, np.int32(nc), out))
            return out.get()
