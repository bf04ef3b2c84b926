"""One place that sets numba defaults for every trimsa kernel, and runs serial kernels on threads.

``TRIMSA_NUMBA_CACHE=0`` turns the on-disk compilation cache off (it is on by
default so that the command-line tool starts quickly after its first run).
``NUMBA_DISABLE_JIT=1`` runs every kernel as plain Python, which the tests use
to check the kernels' logic and coverage.
"""

from __future__ import annotations

import concurrent.futures as _cf
import os

import numba
import numpy as np

_CACHE = os.environ.get("TRIMSA_NUMBA_CACHE", "1") not in ("0", "false", "no")


def jit(*args, **kwargs):
    """``numba.njit`` with trimsa's defaults (nogil, cached, no bounds checks)."""
    kwargs.setdefault("nogil", True)
    kwargs.setdefault("cache", _CACHE)
    kwargs.setdefault("error_model", "numpy")
    return numba.njit(*args, **kwargs)


def pjit(*args, **kwargs):
    """Like :func:`jit` with ``parallel=True`` (for ``prange`` loops)."""
    kwargs.setdefault("parallel", True)
    return jit(*args, **kwargs)


def set_threads(threads: int) -> int:
    """Use ``threads`` worker threads (0 = all cores); returns the number used."""
    from .errors import OptionError

    if threads < 0:
        raise OptionError(f"--threads must be >= 0 (0 = all cores), got {threads}")
    limit = numba.config.NUMBA_NUM_THREADS
    n = limit if threads == 0 else min(threads, limit)
    numba.set_num_threads(n)
    return n


def in_threads(fn, items, threads: int) -> None:
    """Run ``fn(chunk)`` on ``threads`` interleaved chunks of ``items`` at once.

    For serial ``nogil`` kernels: interleaved chunks keep the threads' work
    even when the cost of the items grows along ``items``. ``fn`` is called
    once with an empty chunk first, so that the kernel compiles (or loads from
    the cache) here rather than in several threads at once.
    """
    items = np.asarray(items)
    threads = max(1, min(int(threads), len(items)))
    if threads == 1:
        fn(items)
        return
    fn(items[:0])
    chunks = [np.ascontiguousarray(items[t::threads]) for t in range(threads)]
    with _cf.ThreadPoolExecutor(threads) as pool:
        for f in [pool.submit(fn, c) for c in chunks]:
            f.result()
