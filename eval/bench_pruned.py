"""Check the bound-pruned exact affine 3-way path against the full cube, then time both.

One command (``--data``: the folder holding ``sim2/`` and ``real/``)::

    python eval/bench_pruned.py [--data ../shared/data] [--quick] [--cpu-only] [--out FILE]

``--quick``: fewer sampled triplets, the first three sets only, one 128-sequence set.

1. Correctness: on sampled triplets of tune sets (and unrelated random sequences) the
   pruned scores (``pruning="auto"``) must equal the full cube's (``pruning="off"``) on
   the CPU and, with a GPU, on the GPU; the pruned alignments must equal the full
   cube's. Any difference stops the run with status 1.
2. Rates, per set: share of the cube cells swept (bands of both passes, full cubes of
   the triplets whose band is too wide, counted by :class:`pruned.Work`), seconds of
   the full-cube path and of the pruned one (after a warm-up, median of repeats),
   their ratio and the pruned path's effective rate (cube cells, ``(la + 1) (lb + 1)
   (lc + 1)``, per second), on the GPU and on all CPU cores.
3. With a GPU: all C(128, 3) triplets of 128-sequence tune sets by the pruned path
   (one run after a warm-up), beside the full cube's time extrapolated from a sample.
4. Tracebacks (``align_triplets``): pruned against full-cube seconds and rates.

Prints a markdown table and writes it to ``--out`` (default
``eval/results/bench_pruned.md``; ``--out ''`` writes nothing).
"""

from __future__ import annotations

import argparse
import datetime
import platform
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
RESULT = Path(__file__).resolve().parent / "results" / "bench_pruned.md"

import trimsa  # noqa: E402
from trimsa.io import as_sequence_set  # noqa: E402
from trimsa.scoring import Scoring  # noqa: E402
from trimsa.triplet import pruned  # noqa: E402

#: (label, set under --data, triplets sampled; 0: all the set's)
SETS = [("sim2 trip-geo-L400 (5 sets)", "sim2/tune/trip-geo-L400-r*", 0),
        ("sim2 trip-geo-L150 (5 sets)", "sim2/tune/trip-geo-L150-r*", 0),
        ("sim2 msa-pow-N128-h0.7", "sim2/tune/msa-pow-N128-h0.7", 512),
        ("sim2 msa-pow-N128-h1.2", "sim2/tune/msa-pow-N128-h1.2", 512),
        ("sim2 msa-geo-N96-h1.0", "sim2/tune/msa-geo-N96-h1.0", 512),
        ("real tune (first 4 families)", "real/tune/*", 128)]
#: Scorings: the progressive stage's (the triplet guide tree's) and the alignment stage's.
PROGRESSIVE = Scoring.dna(1, -1, gap_open=-3, gap_extend=-1)
ALIGNMENT = Scoring.dna(3, -2, transversion=-3, gap_open=-10, gap_extend=-2)
SCORINGS = {"-3/-1 (tree)": PROGRESSIVE, "-10/-2 (alignment)": ALIGNMENT}
#: Most cube cells the CPU's full-cube timing takes per row (a sample beyond).
CPU_DENSE_CELLS = 1e9


def load(data: Path, pattern: str, sample: int, rng, quick: bool):
    """``(seqs, trip)``: the sets matching ``pattern`` merged, with triplets sampled
    within each set (all of a set's C(n, 3) when ``sample`` is 0)."""
    from trimsa.io import read_sequences

    paths = sorted(data.glob(pattern + "/input.fa"))
    if pattern.startswith("real/"):
        paths = paths[:4]
    if not paths:
        raise SystemExit(f"bench_pruned: no input.fa under {data / pattern}")
    records, trips = [], []
    for p in paths:
        one = read_sequences(str(p))
        base = len(records)
        n = len(one)
        records += [(f"{p.parent.name}/{name}", seq) for name, seq in zip(one.names,
                                                                          one.sequences)]
        k = sample // 4 if quick and sample else sample
        if k:
            t = np.array([np.sort(rng.choice(n, 3, replace=False)) for _ in range(k)])
        else:
            t = trimsa.all_triplets(n)
        trips.append(t + base)
    return as_sequence_set(records), np.concatenate(trips)


def unrelated(rng, n=24, L=300):
    return as_sequence_set(["".join(rng.choice(list("ACGT"), L)) for _ in range(n)])


def timed(fn, repeats=3):
    fn()
    ts = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts)


def cube(seqs, trip) -> float:
    return float(pruned.cube_cells(seqs.lengths, trip).sum())


def rate_row(label, name, seqs, trip, sc, gpu: bool, bad: list):
    work = pruned.Work()
    kw = {"scoring": sc}
    auto = trimsa.score_triplets(seqs, trip, work=work, **kw)
    C = cube(seqs, trip)
    # the CPU's full cube on a sample of at most CPU_DENSE_CELLS cells
    per = pruned.cube_cells(seqs.lengths, trip)
    take = np.flatnonzero(np.cumsum(per) <= CPU_DENSE_CELLS)
    take = take if take.size else np.arange(1)
    sub = trip[take]
    off = trimsa.score_triplets(seqs, sub, pruning="off", **kw)
    if not np.array_equal(off, auto[take]):
        bad.append(f"{label} {name}: CPU pruned scores differ from the full cube")
    t_cpu = timed(lambda: trimsa.score_triplets(seqs, trip, **kw), 1)
    t_cpu_sub = timed(lambda: trimsa.score_triplets(seqs, sub, **kw), 1)
    t_dense_sub = timed(lambda: trimsa.score_triplets(seqs, sub, pruning="off", **kw), 1)
    row = [label, name, f"{len(trip)}", f"{int(seqs.lengths[trip].mean())}",
           f"{100 * work.swept_cells / work.cube_cells:.3g}%", f"{work.full}",
           f"{t_cpu:.3g}", f"{C / t_cpu:.3g}", f"{t_dense_sub / t_cpu_sub:.3g}"]
    if gpu:
        gw = pruned.Work()
        g_auto = trimsa.score_triplets(seqs, trip, device="gpu", work=gw, **kw)
        g_off = trimsa.score_triplets(seqs, trip, device="gpu", pruning="off", **kw)
        if not (np.array_equal(g_auto, auto) and np.array_equal(g_off, auto)):
            bad.append(f"{label} {name}: GPU scores differ (pruned, full cube, CPU)")
        t_g = timed(lambda: trimsa.score_triplets(seqs, trip, device="gpu", **kw))
        t_d = timed(lambda: trimsa.score_triplets(seqs, trip, device="gpu", pruning="off", **kw))
        row += [f"{t_d:.3g}", f"{t_g:.3g}", f"{t_d / t_g:.3g}", f"{C / t_g / 1e12:.3g}",
                f"{C / t_d / 1e12:.3g}"]
    return "| " + " | ".join(row) + " |"


def all_triplets_row(label, seqs, gpu_rng):
    sc = PROGRESSIVE
    trip = trimsa.all_triplets(len(seqs))
    trimsa.score_triplets(seqs, trip[:2000], device="gpu", scoring=sc)   # warm-up
    work = pruned.Work()
    t0 = time.perf_counter()
    got = trimsa.score_triplets(seqs, trip, device="gpu", work=work, scoring=sc)
    t = time.perf_counter() - t0
    sample = trip[gpu_rng.choice(len(trip), 4096, replace=False)]
    t_d = timed(lambda: trimsa.score_triplets(seqs, sample, device="gpu", pruning="off",
                                              scoring=sc), 1)
    dense = t_d * cube(seqs, trip) / cube(seqs, sample)
    check = trimsa.score_triplets(seqs, sample, device="gpu", pruning="off", scoring=sc)
    idx = {tuple(r): q for q, r in enumerate(trip.tolist())}
    ok = np.array_equal(check, got[[idx[tuple(r)] for r in sample.tolist()]])
    return (f"| {label} | {len(trip)} | {int(seqs.lengths.mean())} | {t:.3g} | "
            f"{dense:.3g} | {dense / t:.3g} | {cube(seqs, trip) / t / 1e12:.3g} | "
            f"{100 * work.swept_cells / work.cube_cells:.3g}% | {work.full} | "
            f"{'yes' if ok else 'NO'} |"), ok


def align_row(label, seqs, trip, gpu: bool, bad: list):
    rows = []
    for device in ["cpu"] + (["gpu"] if gpu else []):
        kw = {"device": device, "scoring": ALIGNMENT}
        got = trimsa.align_triplets(seqs, trip, **kw)
        want = trimsa.align_triplets(seqs, trip, pruning="off", **kw)
        if [a.rows for a in got] != [a.rows for a in want]:
            bad.append(f"{label}: {device} pruned alignments differ from the full cube's")
        t_p = timed(lambda: trimsa.align_triplets(seqs, trip, **kw), 1)
        t_f = timed(lambda: trimsa.align_triplets(seqs, trip, pruning="off", **kw), 1)
        t_s = timed(lambda: trimsa.score_triplets(seqs, trip, **kw), 1)
        C = cube(seqs, trip)
        rows.append(f"| {label} | {device} | {len(trip)} | {t_f:.3g} | {t_p:.3g} | "
                    f"{t_f / t_p:.3g} | {C / t_p:.3g} | {t_s / t_p:.3g} |")
    return rows


def header(gpu: bool, argv):
    import numba

    name = "no GPU"
    if gpu:
        import cupy

        name = cupy.cuda.runtime.getDeviceProperties(0)["name"]
        name = name.decode() if isinstance(name, bytes) else name
    return [f"# Bound-pruned exact affine 3-way: {name}, "
            f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC",
            f"command: python eval/bench_pruned.py {' '.join(argv or sys.argv[1:])}",
            f"host: {platform.node()}, python {platform.python_version()}, "
            f"{numba.config.NUMBA_NUM_THREADS} CPU threads", ""]


def _has_gpu() -> bool:
    try:
        import cupy

        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:
        return False


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=str(Path(__file__).resolve().parents[2] / "shared" / "data"))
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--cpu-only", action="store_true")
    ap.add_argument("--out", default=str(RESULT))
    args = ap.parse_args(argv)
    gpu = not args.cpu_only and _has_gpu()
    rng = np.random.default_rng(2026_12_02)
    data = Path(args.data)
    bad: list = []
    lines = header(gpu, argv)
    head = ["## scores: pruned against full cubes", "",
            "Share swept: cells of the bands (both passes) and of the full cubes swept, over "
            "the cube cells. CPU x: full-cube seconds over pruned seconds on the same "
            "triplets (a sample of at most "
            f"{CPU_DENSE_CELLS:.0e} cube cells). Rates: cube cells per second.", "",
            "| set | scoring | triplets | mean L | share swept | full cubes | CPU pruned s | "
            "CPU cells/s | CPU x |" + (" GPU full s | GPU pruned s | GPU x | GPU pruned "
                                       "TCUPS | GPU full TCUPS |" if gpu else ""),
            "|---|---|---:|---:|---:|---:|---:|---:|---:|" + ("---:|" * 5 if gpu else "")]
    lines += head
    print("\n".join(lines), flush=True)
    sets = SETS[:3] if args.quick else SETS
    cases = [(label, load(data, pat, k, rng, args.quick)) for label, pat, k in sets]
    cases.append(("unrelated random (24 x 300)", (unrelated(rng), None)))
    for label, (seqs, trip) in cases:
        if trip is None:
            trip = trimsa.all_triplets(len(seqs))[:256]
        for name, sc in SCORINGS.items():
            row = rate_row(label, name, seqs, trip, sc, gpu, bad)
            lines.append(row)
            print(row, flush=True)
    if gpu:
        t = ["", "## all C(128, 3) triplets of a tune set on the GPU (-3/-1)",
             "", "Full cube: seconds of a 4096-triplet sample scaled by cube cells.", "",
             "| set | triplets | mean L | pruned s | full cube s (est.) | x | pruned TCUPS | "
             "share swept | full cubes | sample equal |", "|---|---:|---:|---:|---:|---:|---:|"
             "---:|---:|---|"]
        print("\n".join(t), flush=True)
        big = [("sim2 msa-pow-N128-h0.7", "sim2/tune/msa-pow-N128-h0.7"),
               ("sim2 msa-pow-N128-h1.2", "sim2/tune/msa-pow-N128-h1.2")]
        for label, pat in big[:1] if args.quick else big:
            seqs, _ = load(data, pat, 1, rng, False)
            row, ok = all_triplets_row(label, seqs, rng)
            if not ok:
                bad.append(f"{label}: all-triplet scores differ from the full cube on a sample")
            t.append(row)
            print(row, flush=True)
        lines += t
    a = ["", "## alignments (align_triplets, the alignment stage's scoring)", "",
         "| set | device | triplets | full cube s | pruned s | x | pruned cells/s | "
         "score s / align s |", "|---|---|---:|---:|---:|---:|---:|---:|"]
    print("\n".join(a), flush=True)
    for label, (seqs, trip) in cases[:3]:
        k = trip[:64 if args.quick else 256]
        for row in align_row(label, seqs, k, gpu, bad):
            a.append(row)
            print(row, flush=True)
    lines += a + [""]
    if bad:
        print("FAILED:\n" + "\n".join(bad), file=sys.stderr)
        return 1
    if args.out:
        Path(args.out).write_text("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
