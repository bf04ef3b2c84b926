"""Benchmark of the k-mer guide tree on the CPU cores and on the GPU.

    python eval/bench_kmer_tree.py FASTA [BIG_FASTA] [--sizes 1000,2000,4000,10000] [--out FILE]

The dense k-mer distances of the first ``n`` sequences of ``FASTA`` for each size, on the
CPU (all cores) and on the GPU, and whether the two matrices are identical (they must
be); then, given ``BIG_FASTA`` (beyond 16,384 sequences), the bounded-memory UPGMA tree
on both and whether the two Newick strings are identical. Each device is warmed up on
64 sequences first (numba's compilation, the CUDA context and NVRTC), so the table shows
steady-state times.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def timed(fn):
    t = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("fasta", type=Path)
    ap.add_argument("big", type=Path, nargs="?", default=None)
    ap.add_argument("--sizes", default="1000,2000,4000,10000")
    ap.add_argument("--out", type=Path, default=None, help="also write the table here (Markdown)")
    args = ap.parse_args(argv)

    from trimsa.io import read_sequences
    from trimsa.tree import build_guide_tree, kmer_distances
    from trimsa.triplet import _gpu

    lines = []

    def say(text=""):
        print(text, flush=True)
        lines.append(text)

    say("# k-mer guide tree: CPU cores and GPU")
    say()
    say(f"- machine: {platform.node()}, {os.cpu_count()} cores, GPU: {_gpu.available()}")
    say(f"- date: {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC")
    say(f"- command: `python eval/bench_kmer_tree.py {' '.join(argv or sys.argv[1:])}`")
    say("- steady state: each device warmed up on 64 sequences first")
    say()
    seqs = read_sequences(args.fasta)
    recs = list(zip(seqs.names, seqs.sequences))
    for dev in ("cpu", "gpu"):
        kmer_distances(recs[:64], device=dev)
    say("| sequences | CPU s | GPU s | same matrix |")
    say("|---|---|---|---|")
    for n in (int(x) for x in args.sizes.split(",")):
        cpu, tc = timed(lambda: kmer_distances(recs[:n], device="cpu").matrix)
        gpu, tg = timed(lambda: kmer_distances(recs[:n], device="gpu").matrix)
        say(f"| {min(n, len(recs))} | {tc:.2f} | {tg:.2f} | {np.array_equal(cpu, gpu)} |")
    if args.big is not None:
        big = read_sequences(args.big)
        say()
        say(f"{len(big)} sequences, UPGMA in bounded memory:")
        say()
        trees = {}
        for dev in ("gpu", "cpu"):
            trees[dev], t = timed(lambda: build_guide_tree(big, distances="kmer",
                                                           method="upgma", device=dev))
            say(f"- {dev}: {t:.1f} s; {trees[dev].distances.describe()}")
        say(f"- same Newick: {trees['cpu'].newick() == trees['gpu'].newick()}")
    if args.out:
        args.out.write_text("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
