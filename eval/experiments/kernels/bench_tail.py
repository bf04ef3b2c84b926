"""The partial last wave of a launch of long triplets, and what sweeping it column-parallel gains.

The kernel hands a launch's items (pairs of triplets in 16 bits) out to its
resident thread groups, dearest first. With ``w`` waves of near-equal long
items, the last partial wave keeps a few groups busy for a whole item while
the rest of the GPU idles; ``trimsa.triplet._gpu._without_tail`` moves that
wave to column-parallel (split) launches. This benchmark times one batch on
one GPU, the tail split on and off (``_gpu.TAIL_SPLIT``), for per-GPU shares
of the ``alternating`` set of ``eval/bench_scale.py`` (half of the triplets
three LMAX sequences, half three LMIN) holding ``w`` waves of long items,
and checks that both give the same scores. It also measures the split
mode's cost per cell against streaming (``split penalty``: the time per item
of one piece of split items over that of one full wave streamed), the
number ``plan.SPLIT_PENALTY`` stands for.

Usage::

    python eval/experiments/kernels/bench_tail.py --lengths 256,1024 --waves 1.125,2.125,3.125,3.5

Writes ``eval/experiments/kernels/results/tail-<gpu>-<date>.md``.
"""

from __future__ import annotations

import argparse
import datetime
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "eval"))

from bench_scale import build  # noqa: E402
from trimsa.scoring import Scoring  # noqa: E402
from trimsa.triplet import _gpu  # noqa: E402
from trimsa.triplet import _gpu_plan as plan  # noqa: E402


def timed(batch, reps: int = 1) -> float:
    """Best of ``reps`` runs of a planned batch, in seconds (CUDA events)."""
    import cupy

    best = np.inf
    for _ in range(reps):
        a, b = cupy.cuda.Event(), cupy.cuda.Event()
        a.record()
        batch.run()
        b.record()
        b.synchronize()
        best = min(best, cupy.cuda.get_elapsed_time(a, b) / 1e3)
    return best


def batch_of(seqs, trip, tail: bool, split: str = "auto"):
    _gpu.TAIL_SPLIT = tail
    try:
        return _gpu.Batch(seqs, trip, 0, Scoring.dna(), "auto", split)
    finally:
        _gpu.TAIL_SPLIT = True


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lengths", default="256,1024", help="LMIN,LMAX")
    ap.add_argument("--waves", default="1.125,2.125,3.125,3.5",
                    help="waves of long items in the batch (comma list)")
    ap.add_argument("--reps", type=int, default=2)
    ap.add_argument("--out", default=str(Path(__file__).resolve().parent / "results"))
    args = ap.parse_args(argv)
    import cupy

    lmin, lmax = (int(x) for x in args.lengths.split(","))
    props = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)
    gpu = props["name"].decode() if isinstance(props["name"], bytes) else str(props["name"])
    groups = _gpu._groups(plan.CONFIGS[plan.MULTI], 16, 0)
    lines = [f"# Partial last wave of long triplets: split on / off ({lmin}..{lmax})", "",
             f"- GPU: {gpu}; resident thread groups of the multi-region kernel: {groups}",
             f"- date: {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC",
             f"- command: `python eval/experiments/kernels/bench_tail.py {' '.join(argv or sys.argv[1:])}`",
             f"- one batch on one GPU (one stream), global mode, 16-bit; best of {args.reps}; "
             "'tail' = long items moved to split launches, in 'pieces'", ""]

    # split penalty: one piece of split items against one full wave streamed
    seqs, trip = build("alternating", 4 * groups, lmin, lmax, seed=1)
    long_trip = trip[0::2]                                   # 2 * groups long triplets
    wave = batch_of(seqs, long_trip, False, "never")
    t_wave = timed(wave, args.reps)
    split_groups = _gpu._groups(plan.SPLIT, 16, 0)
    nk = -(-lmax // (plan.SPLIT[3] * plan.SPLIT[1]))
    per = min(split_groups // 8, split_groups // nk)         # as _gpu._without_tail cuts
    piece = batch_of(seqs, long_trip[:2 * per], False)
    if piece.info[0]["split"]:
        t_piece = timed(piece, args.reps)
        same = np.array_equal(piece.result(), wave.run().wait().result()[:2 * per])
        lines += [f"- split penalty at L = {lmax}: one wave of {groups} items streamed "
                  f"{t_wave:.3f} s; one piece of {per} items split {t_piece:.3f} s; "
                  f"penalty = {(t_piece / per) / (t_wave / groups):.2f} (scores equal: {same})", ""]
    else:
        lines += [f"- split penalty: a piece of {per} items of L = {lmax} is not split", ""]
    lines += ["| waves | triplets | off s | on s | off / on | tail items | pieces | same |",
              "|---|---|---|---|---|---|---|---|"]
    print("\n".join(lines), flush=True)
    for w in (float(x) for x in args.waves.split(",")):
        T = 4 * int(round(w * groups))
        seqs, trip = build("alternating", T, lmin, lmax)
        off = batch_of(seqs, trip, False)
        on = batch_of(seqs, trip, True)
        t_off, t_on = timed(off, 1), timed(on, 1)          # warm-up of both
        t_off, t_on = min(t_off, timed(off, args.reps)), min(t_on, timed(on, args.reps))
        same = np.array_equal(off.result(), on.run().wait().result())
        split = [i for i in on.info if i["split"]]
        row = (f"| {w:g} | {T} | {t_off:.3f} | {t_on:.3f} | {t_off / t_on:.2f} | "
               f"{sum(i['items'] for i in split)} | {len(split)} | {'yes' if same else 'NO'} |")
        lines.append(row)
        print(row, flush=True)
        del off, on
        cupy.get_default_memory_pool().free_all_blocks()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    slug = gpu.replace("NVIDIA ", "").replace(" ", "")
    path = out / f"tail-{slug}-{datetime.date.today()}-L{lmin}-{lmax}.md"
    path.write_text("\n".join(lines) + "\n")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
