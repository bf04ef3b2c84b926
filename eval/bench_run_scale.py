"""Scaling of ``trimsa run``: wall time and accuracy of one input on GPUs and Dask workers.

    python eval/bench_run_scale.py SET [SET ...] [--configs "gpu gpus:0-1 cpu workers:4"]
                                   [--out eval/results/bench_run_scale_<machine>]

Each ``SET`` is a folder with ``input.fa(.gz)`` and ``true.fa(.gz)`` (the sim2 sets, or one
made by ``trimsa simulate``). Every configuration of ``--configs`` aligns it in this
process with the Python API (as ``trimsa run`` does). The configurations without workers
first align the set's first 64 sequences, untimed (numba and the CUDA kernels compile once
per process); those with workers start a fresh cluster, whose start and whose workers'
compilation are part of their time:

``gpu``
    device ``gpu``: the library on every visible GPU of this process.
``gpus:LIST``
    the library on the GPUs ``LIST`` (``0-1`` or ``0,1``) of this process.
``cpu``
    device ``cpu``: every core of this process.
``workers:N`` / ``gpu-workers:N``
    a local Dask cluster of ``N`` worker processes (``--scheduler local:N``), on their CPU
    cores (device ``cpu``) or one GPU each (device ``gpu``); the cluster's start is
    part of the time.

The table gives the wall time of the whole alignment and of its tree, library and
merge stages, the speed-up over the first configuration, SPFN, SPFP and TC against
``true.fa`` (:func:`trimsa.evaluate.compare`), and whether the rows are the first
configuration's (they must be: every backend builds the same library). Where the set
has ``peers/scores.tsv``, TWILIGHT's and MAFFT's stored rows (measured on the 2-core
machine that made the scoreboards) are listed below the table.
"""

from __future__ import annotations

import argparse
import csv
import datetime
import os
import platform
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

PEERS = ("twilight", "mafft", "famsa")


def parse_config(text: str) -> dict:
    """Aligner options of one configuration (see the module's notes)."""
    kind, _, arg = text.partition(":")
    if kind == "gpu" and not arg:
        return {"device": "gpu"}
    if kind == "cpu" and not arg:
        return {"device": "cpu"}
    if kind == "gpus" and arg:
        if "-" in arg:
            lo, hi = arg.split("-")
            gpus = tuple(range(int(lo), int(hi) + 1))
        else:
            gpus = tuple(int(g) for g in arg.split(","))
        return {"device": "gpu", "gpus": gpus}
    if kind in ("workers", "gpu-workers") and arg.isdigit():
        return {"device": "cpu" if kind == "workers" else "gpu", "scheduler": f"local:{arg}"}
    raise SystemExit(f"unknown configuration {text!r}")


def default_configs() -> list:
    try:
        import cupy

        gpus = int(cupy.cuda.runtime.getDeviceCount())
    except Exception:
        gpus = 0
    configs = []
    if gpus:
        configs += [f"gpus:0-{g - 1}" for g in (1, 2, 4, 8) if g <= gpus]
        configs.append(f"gpu-workers:{gpus}")
    configs += ["cpu", "workers:4"]
    return configs


def find(folder: Path, stem: str) -> Path:
    for name in (f"{stem}.fa", f"{stem}.fa.gz"):
        if (folder / name).exists():
            return folder / name
    raise SystemExit(f"{folder}: no {stem}.fa(.gz)")


def peers(folder: Path) -> list:
    path = folder / "peers" / "scores.tsv"
    if not path.exists():
        return []
    with open(path) as fh:
        rows = {r["tool"]: r for r in csv.DictReader(fh, delimiter="\t")}
    return [rows[p] for p in PEERS if p in rows and rows[p]["status"] == "ok"]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("sets", nargs="+", type=Path)
    ap.add_argument("--configs", default=None,
                    help="configurations separated by spaces or ';' (default: what this "
                         "machine has: gpus:0-0, 0-1, ..., gpu-workers:G, cpu, workers:4)")
    ap.add_argument("--out", default=None, help="OUT.md and OUT.tsv (default: print only)")
    args = ap.parse_args(argv)

    from trimsa.evaluate import compare
    from trimsa.io import read_sequences
    from trimsa.progressive import Aligner

    configs = args.configs.replace(";", " ").split() if args.configs else default_configs()
    options = {c: parse_config(c) for c in configs}
    started = datetime.datetime.now(datetime.timezone.utc)
    gpu_name = "none"
    try:
        import cupy

        gpu_name = cupy.cuda.runtime.getDeviceProperties(0)["name"].decode()
        gpu_name += f" x{cupy.cuda.runtime.getDeviceCount()}"
    except Exception:
        pass
    lines = [f"# Scaling of `trimsa run`",
             "",
             f"- machine: {platform.node()}, {os.cpu_count()} cores, GPUs: {gpu_name}",
             f"- date: {started:%Y-%m-%d %H:%M} UTC",
             f"- command: `python eval/bench_run_scale.py {' '.join(sys.argv[1:])}`",
             "- one run per configuration, after an untimed warm-up on the first 64 "
             "sequences where there are no workers (a cluster's start and its workers' "
             "compilation are timed); speed-up over the first configuration; 'same' = rows "
             "identical to it", ""]
    tsv = []
    for folder in args.sets:
        seqs = read_sequences(str(find(folder, "input")))
        true = str(find(folder, "true"))
        warm = [(seqs.names[i], seqs.sequences[i]) for i in range(min(64, len(seqs)))]
        lines += [f"## {folder.name}: {len(seqs)} sequences, mean length "
                  f"{seqs.lengths.mean():.0f}", "",
                  "| configuration | seconds | tree s | library s | merges s | speed-up | "
                  "SPFN | SPFP | TC | same | library device |",
                  "|---|---|---|---|---|---|---|---|---|---|---|"]
        first = None
        for label, opts in options.items():
            aligner = Aligner(**opts)
            if "scheduler" not in opts:
                aligner.align(warm)
            t = time.perf_counter()
            res = aligner.align(str(find(folder, "input")))
            secs = time.perf_counter() - t
            stage = {s.name: s for s in res.stages}
            sc = compare(true, list(zip(res.names, res.rows)))
            if first is None:
                first = (secs, res.rows)
            same = "yes" if res.rows == first[1] else "NO"
            row = [label, f"{secs:.1f}"] + [
                f"{stage[n].seconds:.1f}" if n in stage else "-"
                for n in ("guide tree", "library", "merges")] + [
                f"{first[0] / secs:.2f}", f"{sc.spfn:.4f}", f"{sc.spfp:.4f}", f"{sc.tc:.4f}",
                same, stage["library"].device if "library" in stage else "-"]
            lines.append("| " + " | ".join(row) + " |")
            print(lines[-1], flush=True)
            tsv.append([folder.name, len(seqs)] + row)
        lines.append("")
        stored = peers(folder)
        if stored:
            lines.append("Stored peers (2-core scoreboard machine): " + "; ".join(
                f"{r['tool']} {float(r['wall_s']):.1f} s, SPFN {float(r['spfn']):.4f}, "
                f"SPFP {float(r['spfp']):.4f}" for r in stored))
            lines.append("")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2 ** 20
    lines.append(f"Peak resident memory of the benchmark process: {peak:.1f} GB "
                 f"(Dask workers not counted).")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        Path(args.out + ".md").write_text(text)
        with open(args.out + ".tsv", "w", newline="") as fh:
            w = csv.writer(fh, delimiter="\t")
            w.writerow(["set", "n", "configuration", "seconds", "tree_s", "library_s",
                        "merges_s", "speedup", "spfn", "spfp", "tc", "same", "library_device"])
            w.writerows(tsv)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
