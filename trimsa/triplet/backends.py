"""Where the triplet engine runs: the device names, and scoring on this machine.

:func:`score` is the one entry below the API into the engines of this
process: the CPU kernel (numba, all cores) or every selected GPU
(:mod:`trimsa.triplet.devices`). The API (:func:`trimsa.triplet.score_triplets`)
and the Dask workers (:mod:`trimsa.triplet.distributed`) both call it, so a
worker scores exactly what a single machine scores.
"""

from __future__ import annotations

import sys
from typing import Literal

import numpy as np

from .. import _numba
from ..errors import OptionError

Device = Literal["auto", "cpu", "gpu"]
#: What ``device`` accepts everywhere: a GPU through CuPy, the CPU cores, or
#: ``auto`` (a GPU when CuPy sees one, and the choice is said on stderr).
DEVICES = ("auto", "cpu", "gpu")
from ._gpu_plan import PRECISIONS


def check_device(device: str) -> str:
    """``device`` when it is one of :data:`DEVICES`; else an error listing them."""
    if device not in DEVICES:
        raise OptionError(f"unknown device {device!r}; choose one of: {', '.join(DEVICES)}")
    return device


def resolve_device(device: str, *, announce: bool = True) -> str:
    """``"cpu"`` or ``"gpu"`` for a requested device; ``auto`` says on stderr which it took.

    ``"gpu"`` raises :class:`~trimsa.errors.BackendUnavailableError` (saying what
    to install) when no GPU can run the kernels.
    """
    check_device(device)
    if device == "cpu":
        return "cpu"
    from . import _gpu

    if device == "gpu":
        _gpu.require()
        return "gpu"
    name = _gpu.available()
    if name:
        if announce:
            print(f"trimsa: using GPU {name}", file=sys.stderr)
        return "gpu"
    return "cpu"


def check_precision(precision: str, device: str) -> str:
    """``precision`` when it is valid for the resolved ``device`` (GPU kernels only)."""
    if precision not in PRECISIONS:
        raise OptionError(f"unknown precision {precision!r}; choose one of: {', '.join(PRECISIONS)}")
    if precision != "auto" and device != "gpu":
        raise OptionError(f"precision {precision!r} applies to the GPU kernels; the CPU engine "
                          "always computes in 32 bits (use precision='auto')")
    return precision


def score(seqs, trip, mode: int, scoring, device: str, out, *, threads: int = 0,
          precision: str = "auto", gpus=None, partition: str = "dynamic",
          pruning: str = "auto", work=None) -> np.ndarray:
    """Fill ``out`` with the scores of ``trip`` on this process's ``device`` (``cpu``/``gpu``).

    ``seqs`` is a :class:`~trimsa.io.SequenceSet`; ``trip`` ``int32 (T, 3)``;
    ``mode`` the number of the mode; ``scoring`` a checked
    :class:`~trimsa.scoring.Scoring` (:func:`trimsa.triplet._checks.scoring_for`),
    linear or affine (the affine kernels: :mod:`trimsa.triplet._affine` and
    ``kernels/triplet_affine.cu``). Global affine triplets take the bound-pruned path
    (:mod:`trimsa.triplet.pruned`) unless ``pruning="off"``; ``work``, a
    :class:`~trimsa.triplet.pruned.Work`, receives the cells swept.
    """
    from . import pruned

    if device == "gpu":
        from .devices import CupyBackend, score_on_devices

        score_on_devices(seqs, trip, mode, scoring, gpus=gpus, partition=partition,
                         backend=CupyBackend.shared(precision), out=out, pruning=pruning,
                         work=work)
        return out
    if device != "cpu":
        raise OptionError(f"device must be resolved to 'cpu' or 'gpu' here, got {device!r}")
    nthreads = _numba.set_threads(threads)
    nchunks = max(1, min(trip.shape[0], 8 * nthreads))
    from ._checks import check_plane_memory

    check_plane_memory(seqs, trip, scoring, nthreads, "scoring the largest triplet")
    if pruned.applies(mode, scoring, pruning):
        return pruned.score_cpu(seqs, trip, scoring, out, nthreads, work)
    if work is not None:
        cube = pruned.cube_cells(seqs.lengths, trip)
        work.add(triplets=trip.shape[0], cube_cells=cube.sum(), swept_cells=cube.sum(),
                 full=trip.shape[0])
    if not scoring.linear:
        from . import _affine

        _affine.score_batch(seqs.codes, seqs.offsets, trip, scoring.table,
                            np.int32(scoring.gap_open), np.int32(scoring.gap_extend), mode, out,
                            nchunks)
        return out
    from . import _cpu

    _cpu.score_batch(seqs.codes, seqs.offsets, trip, scoring.table, np.int32(scoring.gap),
                     mode, mode, out, nchunks)
    return out
