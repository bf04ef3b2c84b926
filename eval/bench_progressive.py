"""Accuracy and speed of ``trimsa run`` on the msa-* sets, next to the peers.

Usage (repository root)::

    python eval/bench_progressive.py [--data ../shared/data/sim] [--out eval/results/progressive_msa.md]
                                     [--mafft-timing] [--extra ARGS]

trimsa is run as ``python -m trimsa run INPUT -o OUT -q`` (wall time of the whole
command, Python start-up included, numba cache warm: one warm-up run first) and
scored with :func:`trimsa.evaluate.compare` (FastSP definitions). Peer numbers
are read from each set's ``peers/scores.tsv`` (FastSP, SCOREBOARD machine).
``--mafft-timing`` also times ``mafft --auto --thread 2 --quiet`` and trimsa
on msa-N1000-h0.5 here, three runs each (median). The report goes to ``--out``:
by default ``eval/results/progressive_msa.md``, this benchmark's current result
(listed in ``eval/results/README.md``).
"""

from __future__ import annotations

import argparse
import csv
import datetime
import gzip
import os
import platform
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from trimsa.evaluate import compare  # noqa: E402

PEERS = ("mafft", "mafft-linsi", "muscle", "clustalo", "kalign", "famsa", "twilight")


def find(folder: Path, name: str) -> Path:
    p = folder / name
    return p if p.exists() else folder / (name + ".gz")


def peers(folder: Path) -> dict:
    out = {}
    with open(folder / "peers" / "scores.tsv") as fh:
        for row in csv.DictReader(fh, delimiter="\t"):
            if row["status"] == "ok":
                out[row["tool"]] = (float(row["spfn"]), float(row["spfp"]), float(row["wall_s"]))
    return out


def run_trimsa(inp: Path, out: Path, extra: list) -> float:
    cmd = [sys.executable, "-m", "trimsa", "run", str(inp), "-o", str(out), "-q"] + extra
    t = time.perf_counter()
    subprocess.run(cmd, check=True, cwd=ROOT)
    return time.perf_counter() - t


def mafft_timing(folder: Path, extra: list, reps: int = 3) -> list:
    inp = find(folder, "input.fa")
    with tempfile.TemporaryDirectory() as tmp:
        plain = Path(tmp) / "input.fa"
        opener = gzip.open if inp.suffix == ".gz" else open
        with opener(inp, "rb") as src, open(plain, "wb") as dst:
            shutil.copyfileobj(src, dst)
        rows = []
        for _ in range(reps):
            t = time.perf_counter()
            with open(Path(tmp) / "m.fa", "wb") as fh:
                subprocess.run(["mafft", "--auto", "--thread", "2", "--quiet", str(plain)],
                               stdout=fh, check=True)
            tm = time.perf_counter() - t
            tt = run_trimsa(plain, Path(tmp) / "t.fa", extra)
            rows.append((tm, tt))
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data" / "sim")
    ap.add_argument("--out", type=Path, default=ROOT / "eval" / "results" / "progressive_msa.md")
    ap.add_argument("--mafft-timing", action="store_true")
    ap.add_argument("--extra", default="", help="extra options for trimsa run")
    args = ap.parse_args(argv)
    extra = shlex.split(args.extra)
    sets = sorted((p for p in args.data.glob("msa-*") if p.is_dir()),
                  key=lambda p: (int(p.name.split("-")[1][1:]), p.name))
    lines = []
    res = {}
    with tempfile.TemporaryDirectory() as tmp:
        run_trimsa(find(sets[0], "input.fa"), Path(tmp) / "warm.fa", extra)  # compile / cache
        for folder in sets:
            out = Path(tmp) / f"{folder.name}.fa"
            wall = run_trimsa(find(folder, "input.fa"), out, extra)
            s = compare(find(folder, "true.fa"), out)
            res[folder.name] = (s.spfn, s.spfp, wall, peers(folder))
            print(f"{folder.name}\t{s.spfn:.4f}\t{s.spfp:.4f}\t{wall:.2f}s", flush=True)
    head = "| dataset | trimsa | " + " | ".join(PEERS) + " |"
    lines += [f"# trimsa run on the msa-* sets, next to the peers", "",
              f"Date {datetime.date.today()}; machine: {platform.node()} ({os.cpu_count()} cores, "
              f"shared); command: `python eval/bench_progressive.py {' '.join(argv or sys.argv[1:])}` "
              f"(trimsa options: `{args.extra or 'defaults'}`).", "",
              "Cells: SPFN/SPFP (wall s). trimsa: `python -m trimsa run IN -o OUT -q`, scored "
              "with trimsa.evaluate (FastSP definitions), wall time of the whole command on this "
              "machine. Peers: from `peers/scores.tsv` (FastSP; timed on the SCOREBOARD machine, "
              "2 threads).", "", head, "|" + "---|" * (len(PEERS) + 2)]
    for name, (fn, fp, wall, pe) in res.items():
        cells = [f"{pe[t][0]:.3f}/{pe[t][1]:.3f} ({pe[t][2]:.2f}s)" if t in pe else "-" for t in PEERS]
        lines.append(f"| {name} | **{fn:.3f}/{fp:.3f}** ({wall:.2f}s) | " + " | ".join(cells) + " |")
    # means per tree height
    lines += ["", "## Means per tree height (sets where the peer ran)", "",
              "| height | sets | trimsa | mafft | mafft-linsi | twilight |", "|---|---|---|---|---|---|"]
    for h in sorted({n.split("-h")[1] for n in res}):
        names = [n for n in res if n.endswith(f"-h{h}")]

        def mean(tool):
            vals = [(res[n][0], res[n][1]) if tool == "trimsa" else res[n][3].get(tool)
                    for n in names]
            vals = [v for v in vals if v]
            if not vals:
                return "-"
            return (f"{sum(v[0] for v in vals) / len(vals):.4f}/"
                    f"{sum(v[1] for v in vals) / len(vals):.4f} (n={len(vals)})")
        lines.append(f"| {h} | {len(names)} | {mean('trimsa')} | {mean('mafft')} | "
                     f"{mean('mafft-linsi')} | {mean('twilight')} |")
    linsi = [n for n in res if "mafft-linsi" in res[n][3]]
    tfn = sum(res[n][0] for n in linsi) / len(linsi)
    tfp = sum(res[n][1] for n in linsi) / len(linsi)
    lfn = sum(res[n][3]["mafft-linsi"][0] for n in linsi) / len(linsi)
    lfp = sum(res[n][3]["mafft-linsi"][1] for n in linsi) / len(linsi)
    lines += ["", f"Mean over the {len(linsi)} sets where MAFFT L-INS-i ran: trimsa "
              f"{tfn:.4f}/{tfp:.4f}, L-INS-i {lfn:.4f}/{lfp:.4f}."]
    if args.mafft_timing:
        big = args.data / "msa-N1000-h0.5"
        rows = mafft_timing(big, extra)
        tm = sorted(r[0] for r in rows)[len(rows) // 2]
        tt = sorted(r[1] for r in rows)[len(rows) // 2]
        lines += ["", "## Wall time on msa-N1000-h0.5, this machine (median of 3, interleaved)", "",
                  "| tool | runs (s) | median (s) |", "|---|---|---|",
                  f"| mafft --auto --thread 2 --quiet | {', '.join(f'{r[0]:.2f}' for r in rows)} | {tm:.2f} |",
                  f"| trimsa run -q | {', '.join(f'{r[1]:.2f}' for r in rows)} | {tt:.2f} |",
                  "", f"Ratio trimsa / MAFFT --auto: {tt / tm:.2f}."]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
