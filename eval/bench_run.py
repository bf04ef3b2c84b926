"""Benchmark of ``trimsa run``: accuracy and wall time next to the peers, and its ablation.

    python eval/bench_run.py [--split validate] [--max-n N] [--out eval/results/bench_run]

For every multiple-alignment set of ``../shared/data/sim2/<split>`` (``msa-*``) and
``../shared/data/real/<split>`` (Rfam families), and every triplet set (``trip-*``),
``trimsa run`` aligns ``input.fa`` in this process (the Python API, as the command does)
under each variant of :data:`VARIANTS`; the alignment is scored against ``true.fa`` with
``trimsa.evaluate.compare`` (SPFN, SPFP, TC). The peers' scores and wall times are the
stored ones of each set's ``peers/scores.tsv`` (the scoreboards' runs, 2 threads on a
2-core machine). A variant that would run exactly like the default on a set (the same
:func:`plan`: exact 3-way or not, library design, guide-tree source, library votes and
weight, triplet votes; e.g. the k-mer tree with the tree's library at N >= 512, or the
exact 3-way variant on more than three sequences) is not run again: its row is the
default's, marked ``same`` in the TSV. A variant that cannot run on a set (the triplet
votes where the library does not align all pairs) has no row there.

Writes ``OUT.tsv`` (one row per set and tool) and ``OUT.md`` (group means of SPFN, SPFP,
TC and wall time: trimsa and its variants next to every peer, with ``[k/n]`` where a tool
completed k of n sets, and the same restricted to the sets every tool completed). Choose
settings on the tune splits; ``--split validate`` is for reporting only.

    python eval/bench_run.py --retable eval/results/bench_run.md

rewrites the tables of a result from its TSV, keeping its header (a result written before
the tables showed TC).
"""

from __future__ import annotations

import argparse
import csv
import math
import os
import platform
import sys
import time
from datetime import date
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DATA = (ROOT / ".." / "shared" / "data").resolve()

#: trimsa variants: label -> Aligner options. ``trimsa`` is the default of ``run``.
VARIANTS = {
    "trimsa": {},
    "trimsa alignment-votes": {"library_votes": "alignment", "consistency": 6.0},
    "trimsa fitted-hmm": {"pair_hmm": "fitted"},
    "trimsa sum-of-pairs-3way": {"exact_triplet": "sum-of-pairs"},
    "trimsa merges-3way": {"exact_triplet": "off"},
    "trimsa kmer-tree": {"tree_distances": "kmer"},
    "trimsa tree-library": {"library": "tree"},
    "trimsa no-library": {"tree_distances": "kmer", "consistency": 0.0},
    "trimsa triplet-votes": {"triplet_votes": 0.1},
    "trimsa triplet-tree": {"tree_distances": "triplet", "tree_time_budget": 15.0},
    # the default's tree where the triplet tree does not fit: no budget fits any triplet
    "trimsa no-triplet-tree": {"tree_time_budget": 1e-9},
}
#: Peers read from ``peers/scores.tsv``, in table order.
PEERS = ("mafft", "mafft-linsi", "muscle", "famsa", "clustalo", "kalign", "twilight")


def group_of(folder: Path, n: int) -> str:
    name = folder.name
    if name.startswith("trip-"):
        return "sim2 triplets"
    if name.startswith("rfam"):
        return "real families"
    return "sim2 msa N <= 256" if n <= 256 else "sim2 msa N 512-3000"


def data_sets(split: str, max_n: int | None, data: Path = DATA):
    from trimsa.io import read_sequences

    out = []
    for folder in sorted((data / "sim2" / split).iterdir()) + sorted((data / "real" / split).iterdir()):
        if not folder.is_dir():
            continue
        inp = next((folder / f for f in ("input.fa", "input.fa.gz") if (folder / f).is_file()), None)
        ref = next((folder / f for f in ("true.fa", "true.fa.gz") if (folder / f).is_file()), None)
        if inp is None or ref is None:
            continue
        seqs = read_sequences(str(inp))
        if max_n is not None and len(seqs) > max_n:
            continue
        out.append((folder, inp, ref, seqs))
    return out


def stored_rows(folder: Path):
    rows = {}
    path = folder / "peers" / "scores.tsv"
    if not path.is_file():
        return rows
    with open(path, newline="") as fh:
        for r in csv.DictReader(fh, delimiter="\t"):
            if r.get("tool") in PEERS and r.get("status") == "ok":
                rows[r["tool"]] = tuple(float(r[k]) for k in ("spfn", "spfp", "tc", "wall_s"))
    return rows


def run_variant(inp: Path, ref: Path, options: dict, threads: int):
    import tempfile

    from trimsa.evaluate import compare
    from trimsa.progressive.api import Aligner

    aligner = Aligner(threads=threads, **options)
    with tempfile.TemporaryDirectory() as d:
        out = Path(d) / "a.fa"
        t0 = time.perf_counter()
        res = aligner.align(str(inp))
        res.write(str(out))
        wall = time.perf_counter() - t0
        s = compare(ref, out)
    return (s.spfn, s.spfp, s.tc, wall), res


def tree_stage(res) -> str:
    """The guide-tree stage of a result, in a few words: its distances, their count and
    seconds."""
    st = next((s for s in res.stages if s.name == "guide tree"), None)
    if st is None:
        return ""
    return f"{st.method.split(' (')[0][:48]}: {st.items} {st.unit}, {st.seconds:.2f} s"


def plan(aligner, seqs) -> tuple:
    """What ``aligner`` does with ``seqs``: two aligners with the same plan give the same
    alignment, so a variant that plans as the default is not run again."""
    from trimsa.progressive.pair_hmm import pair_hmm

    design = aligner.library_design(seqs)
    votes = aligner.library_votes if design else None
    hmm = (pair_hmm(aligner.pair_hmm, seqs.alphabet.name, np.arange(1)).name
           if votes == "posterior" else None)
    return (aligner.exact(seqs), design, aligner.distance_source(seqs), votes, hmm,
            aligner.consistency, aligner.triplet_votes if design else 0.0)


def gpu_name() -> str:
    try:
        from trimsa.triplet import _gpu

        return _gpu.available() or "none"
    except Exception:   # no CuPy
        return "none"


def fmt(x, d=3):
    return "–" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{d}f}"


def group_table(rows, tools, groups, common: bool) -> list:
    lines = ["| group | sets | " + " | ".join(tools) + " |",
             "|---|---:|" + "---|" * len(tools)]
    for g in groups:
        sets = sorted({r["set"] for r in rows if r["group"] == g})
        if common:
            sets = [s for s in sets
                    if all(any(r["set"] == s and r["tool"] == t for r in rows) for t in tools)]
            if not sets:
                continue
        cells = []
        for t in tools:
            got = [r for r in rows if r["group"] == g and r["tool"] == t and r["set"] in sets]
            if not got:
                cells.append("–")
                continue
            m = [sum(r[k] for r in got) / len(got) for k in ("spfn", "spfp", "tc", "wall_s")]
            tag = "" if len(got) == len(sets) else f" [{len(got)}/{len(sets)}]"
            cells.append(f"{fmt(m[0])}/{fmt(m[1])}/{fmt(m[2])} ({m[3]:.1f} s){tag}")
        lines.append(f"| {g} | {len(sets)} | " + " | ".join(cells) + " |")
    return lines


#: The tables' legend (the first words of the paragraph that explains the cells).
LEGEND = ("Cells: mean SPFN/SPFP/TC (SPFN and SPFP lower is better; TC, the fraction of "
          "true columns recovered whole, higher) and mean wall seconds;")
FIRST_TABLE = "## Group means over all sets"


def tables(rows, tools, tsv_name: str) -> list:
    """The result's tables: group means over all sets and over the sets every tool
    completed."""
    groups = list(dict.fromkeys(r["group"] for r in rows))
    return ([FIRST_TABLE, ""] + group_table(rows, tools, groups, common=False)
            + ["", "## Group means over the sets every tool completed", ""]
            + group_table(rows, tools, groups, common=True)
            + ["", f"Per set: `{tsv_name}`.", ""])


def retable(md: Path) -> int:
    """Rewrite the tables of result ``md`` from the TSV beside it, keeping its header."""
    tsv = md.with_suffix(".tsv")
    with open(tsv, newline="") as fh:
        rows = [dict(r, **{k: float(r[k]) for k in ("spfn", "spfp", "tc", "wall_s")})
                for r in csv.DictReader(fh, delimiter="\t")]
    lines = md.read_text().split("\n")
    if FIRST_TABLE not in lines:
        raise SystemExit(f"{md}: no line {FIRST_TABLE!r} to start the tables at")
    head = lines[:lines.index(FIRST_TABLE)]
    tools = list(dict.fromkeys(r["tool"] for r in rows))
    tools = [t for t in tools if t not in PEERS] + [p for p in PEERS if p in tools]
    md.write_text("\n".join(head + tables(rows, tools, tsv.name)))
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--split", choices=("tune", "validate"), default="validate")
    ap.add_argument("--max-n", type=int, default=None, help="skip sets with more sequences")
    ap.add_argument("--data", type=Path, default=DATA,
                    help="folder holding sim2/SPLIT and real/SPLIT (default ../shared/data)")
    ap.add_argument("--variants", default=",".join(VARIANTS),
                    help="comma-separated labels of VARIANTS to run")
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--out", type=Path, default=ROOT / "eval" / "results" / "bench_run")
    ap.add_argument("--retable", type=Path, metavar="MD",
                    help="only rewrite the tables of result MD from its TSV")
    args = ap.parse_args(argv)
    if args.retable:
        return retable(args.retable)
    variants = args.variants.split(",")
    for v in variants:
        if v not in VARIANTS:
            ap.error(f"unknown variant {v!r}; choose from {', '.join(VARIANTS)}")
    sets = data_sets(args.split, args.max_n, args.data)
    rows = []
    t_all = time.perf_counter()
    from trimsa.errors import OptionError
    from trimsa.progressive.api import Aligner

    for folder, inp, ref, seqs in sets:
        n = len(seqs)
        group = group_of(folder, n)
        default = Aligner()
        base = None
        for v in variants:
            opts = VARIANTS[v]
            same = False
            if base is not None and v != "trimsa":
                same = plan(Aligner(**opts), seqs) == plan(default, seqs)
            if same:
                scores, tree = base
            else:
                try:
                    scores, res = run_variant(inp, ref, opts, args.threads)
                except OptionError as err:   # e.g. triplet votes beyond the library of all pairs
                    print(f"{folder.name:40s} {v:20s} not run: {err}", flush=True)
                    continue
                tree = tree_stage(res)
                if v == "trimsa":
                    base = scores, tree
            rows.append(dict(set=folder.name, group=group, n=n, tool=v,
                             spfn=scores[0], spfp=scores[1], tc=scores[2], wall_s=scores[3],
                             source="same" if same else "run", tree=tree))
            print(f"{folder.name:40s} {v:20s} {scores[0]:.4f}/{scores[1]:.4f} "
                  f"{scores[3]:.1f} s{' (same as trimsa)' if same else ''} [{tree}]", flush=True)
        for tool, sc in stored_rows(folder).items():
            rows.append(dict(set=folder.name, group=group, n=n, tool=tool, spfn=sc[0],
                             spfp=sc[1], tc=sc[2], wall_s=sc[3], source="stored", tree=""))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with open(args.out.with_suffix(".tsv"), "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]), delimiter="\t")
        w.writeheader()
        w.writerows(rows)
    tools = variants + [p for p in PEERS if any(r["tool"] == p for r in rows)]
    cmd = "python eval/bench_run.py " + " ".join(argv if argv is not None else sys.argv[1:])
    md = [f"# `trimsa run` next to its peers: {args.split} splits",
          "",
          f"Measured {date.today().isoformat()} on {platform.node() or 'this machine'} "
          f"({os.cpu_count()} CPU cores, {platform.processor() or platform.machine()}; "
          f"GPU: {gpu_name()}; `--device auto`: with a GPU, libraries of 3e8 DP cells or more "
          "are built on it, and `trimsa sum-of-pairs-3way` aligns its three sequences on it), "
          "`trimsa run` through the Python API with "
          f"{args.threads or os.cpu_count()} threads; total {time.perf_counter() - t_all:.0f} s. "
          f"Command: `{cmd.strip()}`.",
          "",
          f"{LEGEND} `[k/n]`: the tool completed k of the n "
          "sets. Peers: the stored runs of each set's `peers/scores.tsv` (2 threads, 2-core "
          "machine; MAFFT L-INS-i and MUSCLE5 were run up to N = 256 and MUSCLE5 timed out "
          "on some sets at 300 s). trimsa variants: " + "; ".join(
              f"`{v}` = `Aligner({', '.join(f'{k}={o!r}' for k, o in VARIANTS[v].items())})`"
              for v in variants) + ".",
          ""]
    md += tables(rows, tools, args.out.with_suffix(".tsv").name)
    args.out.with_suffix(".md").write_text("\n".join(md))
    print("\n".join(md))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
