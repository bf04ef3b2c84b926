"""Accuracy harness: trimsa and its peers on simulated data sets, scored against the truth.

Usage (from the repository root)::

    python eval/harness.py [--data ../shared/data/sim] [--sets 'trip-*' ...]
                           [--tools trimsa,mafft,...] [--force] [--timeout 300]

For every data set folder (``input.fa[.gz]``, ``true.fa[.gz]``, ``meta.json``,
``peers/``) it

* runs every installed peer with the SCOREBOARD's exact command (threads 2):
  ``mafft --auto``, ``mafft-linsi`` and ``muscle`` (these two only for N <= 256),
  ``clustalo``, ``kalign`` and FAMSA through pyfamsa; outputs and wall times are
  cached under ``eval/cache/<set>/`` and re-used unless ``--force``;
* reads TWILIGHT's alignment from the set's ``peers/twilight.fa[.gz]`` and its
  wall time from ``peers/scores.tsv`` (TWILIGHT is not run here);
* runs trimsa: on triplet sets the exact 3-way alignment of
  ``trimsa.align_triplet(..., mode="global")`` with the default scoring (or
  ``--match/--mismatch/--gap``), timed in-process after one warm-up call that
  compiles the kernels; on larger sets ``python -m trimsa run INPUT -o OUT`` when
  that subcommand exists, else the row says "not available";
* scores everything with :func:`trimsa.evaluate.compare` and writes
  ``accuracy.md``, ``accuracy.tsv`` and figures (``*.png``) into ``--out``
  (default ``eval/results``, where they are this benchmark's current result,
  listed in ``eval/results/README.md``).
"""

from __future__ import annotations

import argparse
import csv
import fnmatch
import gzip
import json
import math
import os
import platform
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from trimsa.benchmark import (  # noqa: E402  (the peers' commands, shared with `trimsa benchmark`)
    natural_key,
    peer_available,
    peer_command,
)
from trimsa.evaluate import compare  # noqa: E402
from trimsa.scoring import Scoring  # noqa: E402

PEERS = ("mafft", "mafft-linsi", "clustalo", "muscle", "kalign", "famsa")


def _default_dna_scores() -> str:
    """The DNA defaults of the exact 3-way alignments (``align_triplet``), in words."""
    sc = Scoring.dna(stage="alignment")
    gaps = (f"gap {sc.gap_extend}" if sc.linear else
            f"gap open {sc.gap_open} / gap extend {sc.gap_extend}")
    # codes 0..3 are A, C, G, T: A/G a transition, A/C a transversion
    return (f"match {int(sc.table[0, 0])} / mismatch {int(sc.table[0, 2])} / transversion "
            f"{int(sc.table[0, 1])} / {gaps}")
ALL_TOOLS = ("trimsa",) + PEERS + ("twilight",)
#: Peers the scoreboard runs only up to this many sequences.
SLOW_PEERS = {"mafft-linsi": 256, "muscle": 256}


def tool_version(tool: str) -> str:
    cmds = {"mafft": ["mafft", "--version"], "mafft-linsi": ["mafft", "--version"],
            "clustalo": ["clustalo", "--version"], "muscle": ["muscle", "-version"],
            "kalign": ["kalign", "--version"]}
    if tool == "famsa":
        import pyfamsa

        return f"pyfamsa {pyfamsa.__version__}"
    if tool == "twilight":
        return "TWILIGHT 0.2.3 (alignments and times from the set's peers/ folder)"
    if tool == "trimsa":
        import trimsa

        return f"trimsa {trimsa.__version__} ({ROOT})"
    try:
        p = subprocess.run(cmds[tool], capture_output=True, text=True, timeout=20)
        text = (p.stdout + p.stderr).strip().splitlines()
        return text[0] if text else "?"
    except (OSError, subprocess.SubprocessError):
        return "?"


# --------------------------------------------------------------------------- data sets

@dataclass
class DataSet:
    name: str
    folder: Path
    meta: dict

    @property
    def taxa(self) -> int:
        return int(self.meta.get("taxa") or 0)

    @property
    def is_triplet(self) -> bool:
        return self.taxa == 3

    @property
    def group(self) -> str:
        return self.meta.get("group") or self.name.rsplit("-", 1)[0]

    def file(self, stem: str) -> Path | None:
        for sfx in (".fa", ".fa.gz"):
            p = self.folder / f"{stem}{sfx}"
            if p.exists():
                return p
        return None

    def peer_file(self, tool: str) -> Path | None:
        for sfx in (".fa", ".fa.gz"):
            p = self.folder / "peers" / f"{tool}{sfx}"
            if p.exists():
                return p
        return None

    def peer_wall(self, tool: str) -> float | None:
        p = self.folder / "peers" / "scores.tsv"
        if not p.exists():
            return None
        with open(p) as fh:
            for row in csv.DictReader(fh, delimiter="\t"):
                if row["tool"] == tool and row.get("wall_s"):
                    return float(row["wall_s"])
        return None


def find_sets(data: Path, patterns: list) -> list:
    out = []
    for folder in sorted(data.iterdir(), key=lambda p: natural_key(p.name)):
        if not (folder / "meta.json").exists():
            continue
        if patterns and not any(fnmatch.fnmatch(folder.name, p) for p in patterns):
            continue
        out.append(DataSet(folder.name, folder, json.loads((folder / "meta.json").read_text())))
    return out


def plain_input(ds: DataSet, cache: Path) -> Path:
    """The set's input.fa, decompressed into the cache when gzipped (peers read plain FASTA)."""
    src = ds.file("input")
    if src.suffix != ".gz":
        return src
    dst = cache / "input.fa"
    if not dst.exists():
        with gzip.open(src, "rb") as fi, open(dst, "wb") as fo:
            shutil.copyfileobj(fi, fo)
    return dst


# --------------------------------------------------------------------------- runs

@dataclass
class Result:
    tool: str
    status: str  # "ok" or why there is no score
    wall_s: float | None = None
    spfn: float | None = None
    spfp: float | None = None
    tc: float | None = None
    estimate: str | None = None


def run_peer(ds: DataSet, tool: str, cache: Path, args) -> Result:
    limit = SLOW_PEERS.get(tool)
    if limit is not None and ds.taxa > limit:
        return Result(tool, f"skipped (N>{limit})")
    if not peer_available(tool):
        return Result(tool, "not installed")
    out = cache / f"{tool}.fa"
    info = cache / f"{tool}.json"
    if info.exists() and not args.force:
        rec = json.loads(info.read_text())
        if rec["status"] != "ok" or out.exists():
            return Result(tool, rec["status"], rec.get("wall_s"), estimate=str(out))
    inp = plain_input(ds, cache)
    argv, stdout_to = peer_command(tool, str(inp), str(out), args.threads)
    t0 = time.perf_counter()
    try:
        if stdout_to is not None:
            with open(stdout_to, "w") as fh:
                p = subprocess.run(argv, stdout=fh, stderr=subprocess.PIPE, timeout=args.timeout)
        else:
            p = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               timeout=args.timeout)
        wall = time.perf_counter() - t0
        status = "ok" if p.returncode == 0 and out.exists() and out.stat().st_size else \
            f"failed (exit {p.returncode}: {p.stderr.decode(errors='replace').strip()[-120:]})"
    except subprocess.TimeoutExpired:
        wall, status = None, f"skipped (timeout>{args.timeout:g}s)"
    info.write_text(json.dumps({"status": status, "wall_s": wall, "command": argv}))
    return Result(tool, status, wall, estimate=str(out))


def trimsa_has_run() -> bool:
    return (ROOT / "trimsa" / "commands" / "run.py").exists()


def run_trimsa(ds: DataSet, cache: Path, args, scoring) -> Result:
    out = cache / "trimsa.fa"
    if ds.is_triplet:
        from trimsa.io import read_records
        from trimsa.triplet import align_triplet

        recs = read_records(str(ds.file("input")))
        t0 = time.perf_counter()
        aln = align_triplet(*[(r[0], r[2]) for r in recs], mode="global", scoring=scoring)
        wall = time.perf_counter() - t0
        out.write_text("".join(f">{r[0]}\n{row}\n" for r, row in zip(recs, aln.rows)))
        return Result("trimsa", "ok", wall, estimate=str(out))
    if not trimsa_has_run():
        return Result("trimsa", "not available (no `trimsa run` yet)")
    argv = [sys.executable, "-m", "trimsa", "run", str(ds.file("input")), "-o", str(out),
            "--threads", str(args.threads)]
    if scoring is not None and args.match is not None:
        argv += ["--match", str(args.match), "--mismatch", str(args.mismatch), "--gap", str(args.gap)]
    t0 = time.perf_counter()
    try:
        p = subprocess.run(argv, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           timeout=args.timeout)
    except subprocess.TimeoutExpired:
        return Result("trimsa", f"skipped (timeout>{args.timeout:g}s)")
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        err = p.stderr.decode(errors="replace").strip().splitlines()
        return Result("trimsa", f"failed ({err[-1][:120] if err else p.returncode})")
    return Result("trimsa", "ok", wall, estimate=str(out))


def score(ds: DataSet, res: Result) -> Result:
    if res.status != "ok":
        return res
    s = compare(str(ds.file("true")), res.estimate)
    res.spfn, res.spfp, res.tc = s.spfn, s.spfp, s.tc
    return res


def scoring_from(args):
    if args.match is None and args.mismatch is None and args.gap is None:
        return None
    from trimsa.scoring import Scoring

    return Scoring.dna(match=1 if args.match is None else args.match,
                       mismatch=-1 if args.mismatch is None else args.mismatch,
                       gap=-2 if args.gap is None else args.gap)


# --------------------------------------------------------------------------- report

def fmt(x, digits=3) -> str:
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{digits}f}"


def cell(r: Result) -> str:
    if r.status != "ok":
        return r.status
    return f"{fmt(r.spfn)}/{fmt(r.spfp)}/{fmt(r.tc)} ({r.wall_s:.2f}s)"


def sp_f1(spfn, spfp) -> float:
    a, b = 1 - spfn, 1 - spfp
    return 0.0 if a + b == 0 else 2 * a * b / (a + b)


def write_report(out: Path, sets: list, results: dict, tools: list, header: list) -> None:
    lines = list(header)
    groups = {}
    for ds in sets:
        groups.setdefault(ds.group, []).append(ds)
    for group, members in groups.items():
        lines += ["", f"## {group}", "",
                  "Cells: **SPFN/SPFP/TC (wall s)**, lower SPFN/SPFP and higher TC are better.", "",
                  "| data set | N | " + " | ".join(tools) + " |",
                  "|---|---|" + "---|" * len(tools)]
        for ds in members:
            row = results[ds.name]
            lines.append(f"| {ds.name} | {ds.taxa} | "
                         + " | ".join(cell(row[t]) for t in tools) + " |")
        means = []
        for t in tools:
            ok = [results[ds.name][t] for ds in members if results[ds.name][t].status == "ok"]
            if len(ok) == len(members) and ok:
                means.append(f"{np.mean([r.spfn for r in ok]):.3f}/{np.mean([r.spfp for r in ok]):.3f}/"
                             f"{np.mean([r.tc for r in ok]):.3f} ({np.mean([r.wall_s for r in ok]):.2f}s)")
            else:
                means.append(f"{len(ok)}/{len(members)} scored")
        lines.append("| **mean** | | " + " | ".join(means) + " |")
    trip = trip_comparison(sets, results)
    if trip:
        lines += ["", "## trimsa (exact triplet alignment) vs TWILIGHT, per triplet", "",
                  "| sets | triplets | trimsa SPFN/SPFP | TWILIGHT SPFN/SPFP | trimsa SPFN <= TWILIGHT "
                  "| trimsa SPFP <= TWILIGHT | both <= | strictly better SP-F1 |",
                  "|---|---|---|---|---|---|---|---|"]
        for label, d in trip.items():
            lines.append(f"| {label} | {d['n']} | {d['t_fn']:.3f}/{d['t_fp']:.3f} | "
                         f"{d['w_fn']:.3f}/{d['w_fp']:.3f} | {d['fn_share']:.0%} | "
                         f"{d['fp_share']:.0%} | {d['both_share']:.0%} | {d['better_share']:.0%} |")
    lines += reproduction_lines(sets, results, tools)
    (out / "accuracy.md").write_text("\n".join(lines) + "\n")
    with open(out / "accuracy.tsv", "w") as fh:
        fh.write("dataset\tgroup\ttaxa\ttool\tstatus\tspfn\tspfp\ttc\twall_s\n")
        for ds in sets:
            for t in tools:
                r = results[ds.name][t]
                vals = ["" if v is None else repr(v) for v in (r.spfn, r.spfp, r.tc, r.wall_s)]
                fh.write("\t".join([ds.name, ds.group, str(ds.taxa), t, r.status, *vals]) + "\n")


def reproduction_lines(sets, results, tools) -> list:
    """How far the peers re-run here are from the SCOREBOARD's values (peers/scores.tsv)."""
    rows = []
    for t in tools:
        if t in ("trimsa", "twilight"):
            continue
        diffs, n, same_status = [], 0, 0
        for ds in sets:
            p = ds.folder / "peers" / "scores.tsv"
            if not p.exists():
                continue
            with open(p) as fh:
                ref = {r["tool"]: r for r in csv.DictReader(fh, delimiter="\t")}
            if t not in ref:
                continue
            n += 1
            mine = results[ds.name][t]
            if (mine.status == "ok") == (ref[t]["status"] == "ok"):
                same_status += 1
            if mine.status == "ok" and ref[t]["status"] == "ok":
                diffs.append(max(abs(mine.spfn - float(ref[t]["spfn"])),
                                 abs(mine.spfp - float(ref[t]["spfp"]))))
        if n:
            d = np.array(diffs) if diffs else np.zeros(0)
            rows.append(f"| {t} | {n} | {same_status} | {len(d)} | {int((d <= 1e-9).sum())} | "
                        f"{(d.max() if d.size else 0):.4f} |")
    if not rows:
        return []
    return ["", "## Reproduction of the SCOREBOARD's peer rows (peers/scores.tsv)", "",
            "| tool | sets | same ok/skipped status | both scored | identical SPFN and SPFP "
            "| max abs diff (SPFN or SPFP) |", "|---|---|---|---|---|---|", *rows]


def trip_comparison(sets, results) -> dict:
    out = {}
    pairs = {}
    for ds in sets:
        if not ds.is_triplet:
            continue
        r = results[ds.name]
        if "trimsa" in r and "twilight" in r and r["trimsa"].status == r["twilight"].status == "ok":
            pairs.setdefault(ds.group, []).append((r["trimsa"], r["twilight"]))
    if not pairs:
        return out
    pairs["all trip-*"] = [p for v in pairs.values() for p in v]
    for label, ps in pairs.items():
        t_fn = np.array([a.spfn for a, _ in ps])
        t_fp = np.array([a.spfp for a, _ in ps])
        w_fn = np.array([b.spfn for _, b in ps])
        w_fp = np.array([b.spfp for _, b in ps])
        eps = 1e-12
        t_f1 = np.array([sp_f1(a, b) for a, b in zip(t_fn, t_fp)])
        w_f1 = np.array([sp_f1(a, b) for a, b in zip(w_fn, w_fp)])
        out[label] = dict(
            n=len(ps), t_fn=t_fn.mean(), t_fp=t_fp.mean(), w_fn=w_fn.mean(), w_fp=w_fp.mean(),
            fn_share=np.mean(t_fn <= w_fn + eps), fp_share=np.mean(t_fp <= w_fp + eps),
            both_share=np.mean((t_fn <= w_fn + eps) & (t_fp <= w_fp + eps)),
            better_share=np.mean(t_f1 > w_f1 + eps),
            points=(t_fn, t_fp, w_fn, w_fp))
    return out


def write_figures(out: Path, sets: list, results: dict, tools: list) -> list:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    written = []
    groups = {}
    for ds in sets:
        groups.setdefault(ds.group, []).append(ds)
    markers = "os^vD<>p*h"
    for group, members in groups.items():
        fig, axes = plt.subplots(2, 1, figsize=(max(6, 0.32 * len(members) + 3), 7), sharex=True)
        x = np.arange(len(members))
        for ti, t in enumerate(tools):
            for ax, key in zip(axes, ("spfn", "spfp")):
                ys = [getattr(results[ds.name][t], key) if results[ds.name][t].status == "ok"
                      else np.nan for ds in members]
                if all(np.isnan(y) if y is not None else True for y in ys):
                    continue
                ax.plot(x, [np.nan if y is None else y for y in ys], marker=markers[ti % len(markers)],
                        linestyle="-" if t == "trimsa" else ":", linewidth=2 if t == "trimsa" else 1,
                        label=t, markersize=4)
        for ax, key in zip(axes, ("SPFN", "SPFP")):
            ax.set_ylabel(key + " (lower is better)")
            ax.grid(alpha=0.3)
        axes[0].legend(fontsize=7, ncol=4)
        axes[1].set_xticks(x)
        axes[1].set_xticklabels([ds.name.replace(group + "-", "") for ds in members],
                                rotation=70, fontsize=7)
        axes[0].set_title(f"{group}: SPFN / SPFP per tool and data set")
        fig.tight_layout()
        path = out / f"spfn_spfp_{group}.png"
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)
    trip = trip_comparison(sets, results)
    if trip:
        d = trip["all trip-*"]
        t_fn, t_fp, w_fn, w_fp = d["points"]
        fig, axes = plt.subplots(1, 2, figsize=(10, 4.8))
        for ax, (tv, wv, key, share) in zip(axes, ((t_fn, w_fn, "SPFN", d["fn_share"]),
                                                  (t_fp, w_fp, "SPFP", d["fp_share"]))):
            hi = max(0.05, float(max(tv.max(), wv.max())) * 1.05)
            ax.plot([0, hi], [0, hi], color="grey", linewidth=0.8)
            ax.scatter(wv, tv, s=14, alpha=0.7)
            ax.set_xlim(0, hi)
            ax.set_ylim(0, hi)
            ax.set_xlabel(f"TWILIGHT {key}")
            ax.set_ylabel(f"trimsa exact triplet {key}")
            ax.set_title(f"{key}: trimsa at least as good on {share:.0%} of {d['n']} triplets",
                         fontsize=9)
            ax.grid(alpha=0.3)
        fig.suptitle("trip-* sets: exact 3-way alignment (trimsa) vs TWILIGHT (below the "
                     "diagonal = trimsa better)", fontsize=10)
        fig.tight_layout()
        path = out / "trip_vs_twilight.png"
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)
    return written


# --------------------------------------------------------------------------- main

def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description="Accuracy harness: trimsa and peers vs the truth.")
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data" / "sim",
                    help="folder of data sets (default ../shared/data/sim)")
    ap.add_argument("--sets", nargs="*", default=[],
                    help="glob patterns on data set names (default: all)")
    ap.add_argument("--tools", default=",".join(ALL_TOOLS),
                    help=f"comma-separated tools (default {','.join(ALL_TOOLS)})")
    ap.add_argument("--out", type=Path, default=ROOT / "eval" / "results")
    ap.add_argument("--cache", type=Path, default=ROOT / "eval" / "cache")
    ap.add_argument("--force", action="store_true", help="re-run peers even when cached")
    ap.add_argument("--timeout", type=float, default=300, help="seconds per run (default 300)")
    ap.add_argument("--threads", type=int, default=2, help="threads given to peers (default 2)")
    ap.add_argument("--match", type=int, default=None)
    ap.add_argument("--mismatch", type=int, default=None)
    ap.add_argument("--gap", type=int, default=None)
    ap.add_argument("--no-figures", action="store_true")
    return ap


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = build_parser().parse_args(argv)
    tools = [t.strip() for t in args.tools.split(",") if t.strip()]
    unknown = [t for t in tools if t not in ALL_TOOLS]
    if unknown:
        print(f"harness: unknown tool(s) {unknown}; known: {', '.join(ALL_TOOLS)}", file=sys.stderr)
        return 2
    if not args.data.is_dir():
        print(f"harness: {args.data}: no such folder", file=sys.stderr)
        return 2
    sets = find_sets(args.data, args.sets)
    if not sets:
        print(f"harness: no data set under {args.data} matches {args.sets}", file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    scoring = scoring_from(args)
    if "trimsa" in tools:
        from trimsa.triplet import align_triplet

        align_triplet("ACGT", "AGT", "ACT", scoring=scoring)  # compile before timing
    t_start = time.perf_counter()
    results = {}
    for ds in sets:
        cache = args.cache / ds.name
        cache.mkdir(parents=True, exist_ok=True)
        row = {}
        for t in tools:
            if t == "twilight":
                est = ds.peer_file("twilight")
                r = (Result(t, "ok", ds.peer_wall("twilight"), estimate=str(est)) if est
                     else Result(t, "no peers/twilight.fa"))
            elif t == "trimsa":
                r = run_trimsa(ds, cache, args, scoring)
            else:
                r = run_peer(ds, t, cache, args)
            row[t] = score(ds, r)
        results[ds.name] = row
        print(f"{ds.name}: " + "  ".join(f"{t} {fmt(row[t].spfn)}/{fmt(row[t].spfp)}"
                                          if row[t].status == "ok" else f"{t} [{row[t].status}]"
                                          for t in tools), flush=True)
    wall = time.perf_counter() - t_start
    versions = [f"- **{t}**: {tool_version(t)}" for t in tools
                if t in ("trimsa", "twilight") or peer_available(t)]
    sc = scoring_from(args)
    header = [
        f"# Accuracy of trimsa and peers ({args.data.name} data sets)",
        "",
        f"Generated {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} by "
        f"`python eval/harness.py {' '.join(argv)}` on {platform.node()} "
        f"({os.cpu_count()} CPUs, Python {platform.python_version()}); this pass took {wall:.0f} s "
        "(peer outputs are cached under eval/cache and re-used unless --force).",
        "",
        "Scores: `trimsa.evaluate.compare` (FastSP's definitions; agrees with the FastSP values in "
        "peers/scores.tsv to 0 difference, see check_fastsp.txt). trimsa on triplet sets: the exact "
        "global 3-way alignment (`trimsa.align_triplet(..., mode='global')`, scoring "
        + (f"match {sc.table[0, 0]} / mismatch {sc.table[0, 1]} / gap {sc.gap}" if sc is not None
           else "default: DNA " + _default_dna_scores())
        + "), timed in-process after a warm-up call (no start-up, no compile). TWILIGHT: alignment "
        "and wall time taken from each set's peers/ folder (not re-run). Peers: SCOREBOARD.md's "
        f"commands, threads {args.threads}, timeout {args.timeout:g} s; mafft-linsi and muscle only "
        "for N <= 256.",
        "",
        "## Tool versions",
        "",
        *versions,
    ]
    write_report(args.out, sets, results, tools, header)
    print(f"wrote {args.out / 'accuracy.md'}")
    if not args.no_figures:
        for p in write_figures(args.out, sets, results, tools):
            print(f"wrote {p}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
