"""Throughput of the kernels behind trimsa.tree (cells per second), one short table.

Cells: exact triplet |A||B||C|; banded triplet (|A|+1)(2w+1)^2; banded pair
(|A|+1)(2w+1). Random DNA of the given length; each kernel is compiled first
(a one-triplet call) and then timed on a batch.

Usage: ``python eval/tree_speed.py [--length 500] [--threads 2] [--gpu]``

``--gpu`` adds the banded pairs on the GPU (``band_pair_scores(..., device="gpu")``, a
batch of 500,000 pairs), checked equal to the CPU's scores on the CPU row's pairs.

The current results are ``eval/results/tree_speed.md`` (the 2-core VM) and
``eval/results/tree_speed_h200.md`` (a lent H200 machine, with ``--gpu``): this output,
with the command and the machine's load; listed in ``eval/results/README.md``.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from trimsa.io import as_sequence_set  # noqa: E402
from trimsa.triplet import (  # noqa: E402
    all_triplets,
    band_pair_scores,
    band_triplet_scores,
    score_triplets,
)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--length", type=int, default=500)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--gpu", action="store_true", help="add the banded pairs on the GPU")
    args = ap.parse_args(argv)
    L = args.length
    rng = np.random.default_rng(0)
    seqs = as_sequence_set(["".join(rng.choice(list("ACGT"), L)) for _ in range(24)])
    trip = all_triplets(24)
    print(f"# {platform.node()} {os.cpu_count()} cores, {time.strftime('%Y-%m-%d %H:%M %Z')}, "
          f"load {os.getloadavg()[0]:.1f}; length {L}, threads {args.threads}")
    print("kernel\titems\tseconds\tGcells/s\tper item (ms)")
    cases = [
        ("exact triplet", lambda t: score_triplets(seqs, t, threads=args.threads), trip[:8],
         float(L) ** 3),
        ("band16 triplet", lambda t: band_triplet_scores(seqs, t, band=16, threads=args.threads),
         trip[:400], (L + 1) * 33.0 ** 2),
        ("band32 triplet", lambda t: band_triplet_scores(seqs, t, band=32, threads=args.threads),
         trip[:200], (L + 1) * 65.0 ** 2),
        ("band32 pair", lambda t: band_pair_scores(seqs, t[:, :2], band=32, threads=args.threads),
         np.repeat(trip[:2000], 5, axis=0), (L + 1) * 65.0),
    ]
    if args.gpu:
        pairs = np.repeat(trip[:2000], 250, axis=0)
        cases.append(("band32 pair (gpu)",
                      lambda t: band_pair_scores(seqs, t[:, :2], band=32, device="gpu"),
                      pairs, (L + 1) * 65.0))
        check = np.repeat(trip[:2000], 5, axis=0)[:, :2]
        same = np.array_equal(band_pair_scores(seqs, check, band=32, device="gpu"),
                              band_pair_scores(seqs, check, band=32, threads=args.threads))
        print(f"# gpu pair scores equal to the cpu's on {len(check)} pairs: {same}")
    for name, fn, items, cells in cases:
        fn(items[:1])
        t0 = time.perf_counter()
        fn(items)
        dt = time.perf_counter() - t0
        print(f"{name}\t{len(items)}\t{dt:.2f}\t{len(items) * cells / dt / 1e9:.3f}\t"
              f"{1e3 * dt / len(items):.2f}", flush=True)


if __name__ == "__main__":
    main()
