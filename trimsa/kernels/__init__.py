"""CUDA C++ sources of trimsa's GPU kernels, and the one helper that compiles them.

The ``*.cu`` / ``*.cuh`` files beside this module ship in the wheel. They are
compiled at run time by NVRTC through :class:`cupy.RawModule` for the GPU in
use; CuPy is imported only when a kernel is first asked for.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

HERE = Path(__file__).resolve().parent
_INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"\s*$', re.M)


@functools.lru_cache(maxsize=None)
def source(name: str) -> str:
    """Text of kernel file ``name`` with its local ``#include "x.cuh"`` inlined.

    Each file starts with a ``#line 1 "file"`` directive so that compiler
    messages name the file and line of the source. Inlining (rather than an
    include path) makes CuPy's on-disk cache key cover the headers too.
    """
    text = (HERE / name).read_text()

    def inline(match):
        return source(match.group(1)) + f'\n#line {text.count(chr(10), 0, match.end()) + 1} "{name}"'

    return f'#line 1 "{name}"\n' + _INCLUDE.sub(inline, text)


@functools.lru_cache(maxsize=None)
def module(name: str, name_expressions: tuple = (), options: tuple = (), device: int | None = None):
    """Compiled :class:`cupy.RawModule` of kernel file ``name`` (memoized).

    Parameters
    ----------
    name
        File in this package, e.g. ``"triplet_score.cu"``.
    name_expressions
        Template instantiations to compile, e.g. ``("f<int, 4>",)``; fetch them
        with ``module.get_function(expr)`` using the same strings.
    options
        Extra NVRTC options; ``-std=c++17`` is always given. CuPy targets the
        architecture of the current device (``sm_XY`` from its compute
        capability), which is also part of the memo key through ``device``.
    device
        Device id the module is built for (default: the current one).
    """
    import cupy

    dev = cupy.cuda.Device(device)
    with dev:
        mod = cupy.RawModule(
            code=source(name),
            options=("-std=c++17",) + tuple(options),
            name_expressions=list(name_expressions) or None,
        )
        mod.compile()
    return mod
