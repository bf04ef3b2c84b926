"""How much of the GPU kernels' sweep is padding on real length mixes (CPU only, no GPU).

The kernels sweep whole regions: a plane of ``B x C`` cells (B the shortest sequence,
C the middle one) is rounded up to the region of its launch configuration, a 16-bit
pair of triplets sweeps the larger of its two planes and layers, and global mode also
sweeps the layer ``i = 0``. This script takes triplets drawn at random from FASTA
files (by default the simulated MSA inputs of ``../shared/data/sim``), plans them
exactly as ``trimsa.triplet._gpu`` does (``_gpu_plan.plan`` and the tall 32-bit
configuration of ``_gpu._launch_config``), and splits the swept lane-cells into:

* ``plan``: real cells / lane-cells swept as planned (what the kernels waste, the
  split sweep of a launch's tail aside);
* ``pairs``: the part of that loss due to 16-bit pairing (the pair's larger plane);
* ``choice``: the most that choosing the region shape per plane could save, over the
  candidates in ``CANDIDATES`` weighted by their time per cell relative to the
  launched configuration (measured on the H100 for the smaller regions, session 15,
  eval/experiments/kernels/results/faces-H100-2026-11-24-s15.md section 6; *assumed* equal for the
  transposed regions, so the figure is an upper bound).

Usage::

    python eval/experiments/kernels/padding_model.py [FASTA ...] [--triplets 20000] [--mode global] [--out FILE]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "eval"))

from bench_kernels import data_label, distinct_triplets  # noqa: E402
from trimsa.io import read_sequences  # noqa: E402
from trimsa.triplet import _gpu, _gpu_plan as plan  # noqa: E402

MODES = ("global", "semiglobal", "local")
#: region shapes (rows, columns) a multi-region plane could take instead, with their
#: time per padded cell relative to the launched configuration's (16 bits: 8x8 tiles
#: in 4x8 threads, 32 x 64 regions; 32 bits: 16x8 tiles in 4x8 threads, 64 x 64)
CANDIDATES = {
    16: {(32, 64): 1.0, (64, 32): 1.0, (16, 64): 1.35, (32, 32): 1.25},
    32: {(64, 64): 1.0, (32, 64): 1.0, (64, 32): 1.0},
}


def default_inputs():
    return sorted((ROOT.parent / "shared" / "data" / "sim").glob("msa-*/input.fa*"))


def swept(lengths: np.ndarray, trip: np.ndarray, mode: int, precision: str, kp: int = 5) -> dict:
    """Real cells and swept lane-cells of one batch, as planned, per triplet, and with
    the cheapest region per plane (see the module docstring). ``kp``: the letters that
    occur plus the padding code (5 for DNA), which decides the 32-bit tall tiles."""
    _, lens = plan.order(lengths, trip)
    # a 16-bit bound every triplet meets: which precision runs is the caller's ``precision``
    launches, trivial = plan.plan(lens, mode, (1, 1), precision)
    g = 1 if mode == 0 else 0
    real = float(plan.cells(lens[~trivial]))
    planned = per_triplet = best = 0.0
    for ln in launches:
        config = _gpu._launch_config(ln, lens, mode, kp)
        full = ln.items >= 0
        it = np.where(full, ln.items, ln.items[:, :1])
        pj, pk = plan.padded(lens[it, 1].max(1), lens[it, 2].max(1), ln.shape, config)
        planned += float(((lens[it, 0].max(1) + g) * pj * pk).sum()) * ln.lanes
        t = ln.items[full]
        la, lb, lc = lens[t, 0] + g, lens[t, 1], lens[t, 2]

        def area(config):
            pj, pk = plan.padded(lb, lc, ln.shape, config)
            return la * pj * pk

        own = area(config)
        per_triplet += float(own.sum())
        if ln.shape == plan.MULTI:
            # a region of r x c cells is the configuration (r, c, 1, 1) to plan.padded
            alt = [cost * area((r, c, 1, 1)) for (r, c), cost in CANDIDATES[ln.bits].items()]
            best += float(np.minimum(own, np.min(alt, axis=0)).sum())
        else:
            best += float(own.sum())
    return dict(real=real, planned=planned, per_triplet=per_triplet, best=best)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("fasta", nargs="*", type=Path, help="FASTA files (default: ../shared/data/sim/msa-*/input.fa*)")
    ap.add_argument("--triplets", type=int, default=20000)
    ap.add_argument("--mode", choices=MODES, default="global")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", type=Path)
    a = ap.parse_args(argv)
    files = a.fasta or default_inputs()
    if not files:
        ap.error("no FASTA files given and none found under ../shared/data/sim")
    mode = MODES.index(a.mode)
    lines = [f"# Padding of the GPU sweep on real length mixes ({a.mode}, {a.triplets} random triplets per set)", "",
             "command: python eval/experiments/kernels/padding_model.py " + " ".join(sys.argv[1:] if argv is None else argv), "",
             "| data | lengths 5/50/95% | precision | plan: real / swept | per triplet | 16-bit pairs cost "
             "| best region per plane saves (at most) |",
             "|---|---|---|---:|---:|---:|---:|"]
    for f in files:
        seqs = read_sequences(f)
        lengths = seqs.lengths
        if lengths.size < 3:
            ap.error(f"{f}: needs at least 3 sequences, found {lengths.size}")
        trip = distinct_triplets(np.random.default_rng(a.seed), lengths.size, a.triplets)
        name = data_label(f)
        kp = np.count_nonzero(np.bincount(seqs.codes)) + 1
        pct = "/".join(str(int(x)) for x in np.percentile(lengths, [5, 50, 95]))
        for prec, bits in (("int16", 16), ("int32", 32)):
            r = swept(lengths, trip, mode, prec, kp)
            lines.append(f"| {name} | {pct} | {bits}-bit | {r['real'] / r['planned']:.3f} | "
                         f"{r['real'] / r['per_triplet']:.3f} | {r['planned'] / r['per_triplet'] - 1:.1%} | "
                         f"{1 - r['best'] / r['per_triplet']:.1%} |")
    print("\n".join(lines))
    if a.out:
        a.out.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
