"""Throughput of the CPU triplet engine (GCUPS = cells / s / 1e9; cells = |A||B||C|).

Usage::

    python eval/bench_cpu.py [--lengths 32 64 ...] [--cells 2e9] [--threads 0] [--out FILE]

For each length L it scores a batch of random DNA triplets of length L (about
``--cells`` cells in total; at least as many triplets as threads) and aligns
(traceback) a batch of half that size, in global mode, after a warm-up call
that compiles the kernels. It prints wall-clock GCUPS and GCUPS per core from
the process's CPU time (the machine may be shared: CPU time is the steadier
figure), then a Markdown table, which it also writes to ``--out``: by default
``eval/results/bench_cpu.md``, this benchmark's current result (listed in
``eval/results/README.md``; ``--out ''`` writes nothing).
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from datetime import datetime, timezone

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
RESULT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results", "bench_cpu.md")

import trimsa  # noqa: E402
from trimsa import _numba  # noqa: E402
from trimsa.io import as_sequence_set  # noqa: E402


def _seqs(rng, L, n):
    return as_sequence_set(["".join(rng.choice(list("ACGT"), L)) for _ in range(n)])


def _time(fn):
    w0, c0 = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - w0, time.process_time() - c0


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--lengths", type=int, nargs="+", default=[32, 64, 128, 256, 512, 1024])
    p.add_argument("--cells", type=float, default=2e9, help="cells per score batch")
    p.add_argument("--threads", type=int, default=0)
    p.add_argument("--modes", nargs="+", default=["global"])
    p.add_argument("--out", default=RESULT,
                   help="also write the Markdown table here (default: the current result, "
                   "eval/results/bench_cpu.md; '' for none)")
    args = p.parse_args(argv)
    nthreads = _numba.set_threads(args.threads)
    rng = np.random.default_rng(2026)
    rows = []
    for mode in args.modes:
        for L in args.lengths:
            per = float(L) ** 3
            n_score = max(nthreads, int(round(args.cells / per)))
            n_trace = max(nthreads, int(round(args.cells / 2 / per)))
            seqs = _seqs(rng, L, 3 * max(n_score, n_trace))
            trip = np.arange(3 * n_score, dtype=np.int32).reshape(-1, 3)
            trimsa.score_triplets(seqs, trip[:1], mode=mode, threads=args.threads)  # compile
            ws, cs = _time(lambda: trimsa.score_triplets(seqs, trip, mode=mode, threads=args.threads))
            ttrip = np.arange(3 * n_trace, dtype=np.int32).reshape(-1, 3)
            trimsa.align_triplets(seqs, ttrip[:1], mode=mode, threads=args.threads)
            wt, ct = _time(lambda: trimsa.align_triplets(seqs, ttrip, mode=mode, threads=args.threads))
            row = dict(mode=mode, L=L, n_score=n_score, n_trace=n_trace,
                       score_wall=n_score * per / ws / 1e9, score_core=n_score * per / cs / 1e9,
                       trace_wall=n_trace * per / wt / 1e9, trace_core=n_trace * per / ct / 1e9)
            rows.append(row)
            print(f"{mode:10s} L={L:5d}  score {row['score_wall']:.3f} GCUPS "
                  f"({row['score_core']:.3f}/core, {n_score} triplets)  "
                  f"traceback {row['trace_wall']:.3f} GCUPS ({row['trace_core']:.3f}/core, "
                  f"{n_trace} triplets)", flush=True)
    load = os.getloadavg()
    lines = [
        "# CPU triplet engine throughput",
        "",
        f"- date: {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC",
        f"- machine: {platform.node()}, {os.cpu_count()} cores ({platform.processor() or platform.machine()}), "
        f"numba threads {nthreads}",
        f"- load average at the end (other jobs on the machine): {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}",
        f"- command: `python eval/bench_cpu.py {' '.join(argv if argv is not None else sys.argv[1:])}`",
        "- GCUPS = cells / seconds / 1e9 with cells = |A||B||C|; 'per core' divides by the "
        "process CPU time instead of wall time. Traceback: full cube up to 2^22 cells, "
        "divide and conquer beyond (L >= 256).",
        "",
        "| mode | L | triplets (score) | score GCUPS (wall) | score GCUPS/core | triplets (trace) "
        "| traceback GCUPS (wall) | traceback GCUPS/core |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(f"| {r['mode']} | {r['L']} | {r['n_score']} | {r['score_wall']:.3f} | "
                     f"{r['score_core']:.3f} | {r['n_trace']} | {r['trace_wall']:.3f} | "
                     f"{r['trace_core']:.3f} |")
    text = "\n".join(lines) + "\n"
    print()
    print(text)
    if args.out:
        with open(args.out, "w") as fh:
            fh.write(text)


if __name__ == "__main__":
    main()
