"""Run one batch of the triplet kernel, for a profiler (Nsight Compute) to look at.

Usage (on a GPU machine)::

    ncu --kernel-name regex:triplet_score --launch-skip 1 --launch-count 1 \\
        --section SpeedOfLight --section SchedulerStats --section WarpStateStats \\
        --section InstructionStats --section ComputeWorkloadAnalysis --section Occupancy \\
        python eval/experiments/kernels/profile_kernel.py --length 64 --mode global --precision int16

The batch is built as in ``eval/bench_kernels.py`` (random DNA, equal
lengths, about ``--cells`` cells). It is launched twice, so that
``--launch-skip 1`` profiles a launch whose module is already loaded. The
tail split (``_gpu.TAIL_SPLIT``) is off unless ``--tail-split`` is given,
so that each run is one streaming launch. The script prints the batch's configuration and the second launch's time (CUDA
events; under ncu that time includes the profiler's replays and means nothing).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "eval"))

from bench_kernels import MODES, equal_lengths, time_batch, unequal_lengths  # noqa: E402
from trimsa.scoring import Scoring  # noqa: E402
from trimsa.triplet import _gpu  # noqa: E402


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--length", type=int, default=64)
    ap.add_argument("--mode", choices=MODES, default="global")
    ap.add_argument("--precision", choices=("int32", "int16"), default="int16")
    ap.add_argument("--cells", type=float, default=6e10)
    ap.add_argument("--shape", default="", help="LA,LB,LC: triplets of these unequal lengths instead (global "
                    "mode with a long A and a one-region plane shows the step without item and region switches)")
    ap.add_argument("--tail-split", action="store_true",
                    help="let the launcher move a partial last wave to split launches (off: one "
                         "streaming launch per run, so that --launch-skip 1 profiles the second run)")
    args = ap.parse_args(argv)
    _gpu.require()
    _gpu.TAIL_SPLIT = args.tail_split
    rng = np.random.default_rng(1)
    if args.shape:
        la, lb, lc = (int(x) for x in args.shape.split(","))
        seqs, trip = unequal_lengths(rng, la, lb, lc, args.cells)
    else:
        la = lb = lc = args.length
        seqs, trip = equal_lengths(rng, la, args.cells)
    T = trip.shape[0]
    batch = _gpu.Batch(seqs, trip, MODES.index(args.mode), Scoring.dna(), args.precision)
    t = time_batch(batch, 1)   # a warm-up launch, then the one timed (and profiled)
    print(f"{la}x{lb}x{lc} {args.mode} {args.precision} triplets={T} {batch.info[0]} "
          f"last launch {t * 1e3:.3f} ms, {T * la * lb * lc / t / 1e12:.3f} TCUPS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
