"""Where the GPU's pruned scores spend their time: the pairs' losses, the bands, the
banded sweeps and the full cubes, synchronised around each, for growing batches of
random triplets of a tune set (and all its C(n, 3)), with the full cubes' times beside
them up to 16384 triplets (``MIN_TRIPLETS`` set to 0: the pruned path at every size).

    python eval/experiments/2026-12-02-pruned-cubes/profile_gpu.py DATA_DIR [SET ...]
"""

from __future__ import annotations

import sys
import time
from collections import defaultdict
from pathlib import Path

import cupy
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
import trimsa  # noqa: E402
from trimsa.io import read_sequences  # noqa: E402
from trimsa.scoring import Scoring  # noqa: E402
from trimsa.triplet import _gpu_affine, _gpu_pruned, pruned  # noqa: E402

SC = Scoring.dna(1, -1, gap_open=-3, gap_extend=-1)
SPENT = defaultdict(float)


def timed(name, fn):
    def wrap(*a, **k):
        cupy.cuda.Device().synchronize()
        t0 = time.perf_counter()
        r = fn(*a, **k)
        cupy.cuda.Device().synchronize()
        SPENT[name] += time.perf_counter() - t0
        return r
    return wrap


_gpu_pruned.losses = timed("losses", _gpu_pruned.losses)
_gpu_pruned.bands = timed("bands", _gpu_pruned.bands)
_gpu_pruned._banded_scores = timed("banded", _gpu_pruned._banded_scores)
_gpu_affine.score_triplets = timed("full", _gpu_affine.score_triplets)


def main():
    _gpu_pruned.MIN_TRIPLETS = 0   # the pruned path at every size (the crossover)
    data = Path(sys.argv[1])
    names = sys.argv[2:] or ["sim2/tune/msa-pow-N128-h0.7", "sim2/tune/msa-pow-N128-h1.2"]
    rng = np.random.default_rng(7)
    for name in names:
        seqs = read_sequences(str(data / name / "input.fa"))
        every = trimsa.all_triplets(len(seqs))
        trimsa.score_triplets(seqs, every[:512], scoring=SC, device="gpu")   # compile
        for T in (128, 256, 512, 1024, 2048, 16384, len(every)):
            trip = every if T == len(every) else every[rng.choice(len(every), T, replace=False)]
            SPENT.clear()
            work = pruned.Work()
            t0 = time.perf_counter()
            trimsa.score_triplets(seqs, trip, scoring=SC, device="gpu", work=work)
            t = time.perf_counter() - t0
            cube = float(work.cube_cells)
            parts = ", ".join(f"{k} {v:.3f}" for k, v in SPENT.items())
            print(f"{name} T={T}: {t:.3f} s ({parts}); {cube / t / 1e12:.3f} TCUPS effective; "
                  f"{work.summary()}", flush=True)
            if T <= 16384:
                t0 = time.perf_counter()
                trimsa.score_triplets(seqs, trip, scoring=SC, device="gpu", pruning="off")
                td = time.perf_counter() - t0
                print(f"    full cubes: {td:.3f} s ({cube / td / 1e12:.3f} TCUPS), x {td / t:.2f}",
                      flush=True)


if __name__ == "__main__":
    main()
