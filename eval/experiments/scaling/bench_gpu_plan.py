"""Host time of planning one GPU batch: the numpy reference against the GIL-free planner.

Times :func:`trimsa.triplet._gpu_plan.order` + :func:`~trimsa.triplet._gpu_plan.plan`
(plus the slot rows, as the launcher built them before) against
:func:`~trimsa.triplet._gpu_plan.plan_batch` + ``slot_rows``, on the triplet
sets of ``eval/bench_scale.py``. No GPU needed; best of ``--repeat`` runs.

Usage::

    python eval/experiments/scaling/bench_gpu_plan.py --out eval/experiments/scaling/results/gpu-plan-host-<date>.md
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "eval"))

from bench_scale import build  # noqa: E402
from trimsa.scoring import Scoring  # noqa: E402
from trimsa.triplet import _gpu_plan as gp  # noqa: E402


def reference(lengths, trip, m):
    idx, lens = gp.order(lengths, trip)
    launches, _ = gp.plan(lens, 0, m, "auto")
    for ln in launches:
        items = ln.items
        slots = np.full((items.shape[0], ln.lanes, 3), -1, dtype=np.int32)
        full = items >= 0
        slots[full] = idx[items[full]]
        np.where(full, items, -1).astype(np.int32)


def fast(lengths, trip, m):
    idx, _lens, launches, _ = gp.plan_batch(lengths, trip, 0, m, "auto")
    for ln in launches:
        gp.slot_rows(ln.items, idx)


def best(fn, repeat):
    t = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        t.append(time.perf_counter() - t0)
    return min(t)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--triplets", type=int, default=600_000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    sc = Scoring.dna()
    m = gp.column_bound(np.asarray(sc.table), sc.gap)
    lines = ["# Host time of planning one GPU batch (no GPU involved)", "",
             f"- date: {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC",
             f"- machine: {platform.node()}, {os.cpu_count()} cores; load average (1 min) "
             f"{os.getloadavg()[0]:.1f}",
             f"- command: `python {' '.join(sys.argv)}`", "",
             "| set | T | numpy reference s | us/triplet | plan_batch s | us/triplet |",
             "|---|---|---|---|---|---|"]
    for kind in ("alternating", "ramp", "random"):
        seqs, trip = build(kind, args.triplets, 32, 256, seed=2)
        lengths = np.asarray(seqs.offsets[1:] - seqs.offsets[:-1], dtype=np.int64)
        trip = trip.astype(np.int64)
        fast(lengths, trip[:100], m)  # compile
        tr = best(lambda: reference(lengths, trip, m), args.repeat)
        tf = best(lambda: fast(lengths, trip, m), args.repeat)
        T = len(trip)
        lines.append(f"| {kind} | {T} | {tr:.3f} | {tr / T * 1e6:.2f} | {tf:.3f} | "
                     f"{tf / T * 1e6:.2f} |")
        print(lines[-1], flush=True)
    lines += ["", "plan_batch holds no GIL (numba nogil), so the host threads of several GPUs "
              "plan at the same time; the numpy reference holds it for most of its time."]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        Path(args.out).write_text(text)


if __name__ == "__main__":
    main()
