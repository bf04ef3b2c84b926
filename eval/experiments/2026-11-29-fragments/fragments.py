"""The pair-score guide tree of `run` (250-500 sequences beside the tree's library) on
inputs with fragments (tune data only).

    python eval/experiments/2026-11-29-fragments/fragments.py SET_DIR... [--share 0.3]

For each tune set, a share of its sequences (drawn with a fixed seed) is cut to a random
window of 40-60% of its residues; the true alignment keeps its columns, the cut residues
becoming gaps. Then `run`'s defaults (the pair-score tree there) against
`tree_distances="kmer"` (the tree before), SPFN / SPFP / TC against the cut truth.
With ``--extend``, the chosen sequences instead get a random flank of 50-100% of their
length at one end (new columns of the true alignment, gaps in every other sequence).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np


def cut(true_rows, share, rng):
    names = list(true_rows)
    chosen = set(rng.choice(len(names), int(round(share * len(names))), replace=False))
    out = {}
    for i, name in enumerate(names):
        row = true_rows[name]
        if i in chosen:
            pos = [k for k, ch in enumerate(row) if ch != "-"]
            keep = int(len(pos) * rng.uniform(0.4, 0.6))
            start = int(rng.integers(0, len(pos) - keep + 1))
            kept = set(pos[start:start + keep])
            row = "".join(ch if (ch == "-" or k in kept) else "-" for k, ch in enumerate(row))
        out[name] = row
    return out


def extend(true_rows, share, rng):
    names = list(true_rows)
    chosen = sorted(rng.choice(len(names), int(round(share * len(names))), replace=False))
    flanks = {}
    for i in chosen:
        length = len(true_rows[names[i]].replace("-", ""))
        flanks[i] = ("".join(rng.choice(list("ACGT"), int(length * rng.uniform(0.5, 1.0)))),
                     bool(rng.integers(0, 2)))
    out = {}
    for i, name in enumerate(names):
        # each flank has its own columns: residues in its row, gaps in the others
        lcols, rcols = [], []
        for j, (f, end) in flanks.items():
            col = f if j == i else "-" * len(f)
            (rcols if end else lcols).append(col)
        out[name] = "".join(lcols) + true_rows[name] + "".join(rcols)
    return out


def main():
    from Bio import SeqIO

    from trimsa.evaluate import compare
    from trimsa.progressive import Aligner

    ap = argparse.ArgumentParser()
    ap.add_argument("sets", nargs="+")
    ap.add_argument("--share", type=float, default=0.3)
    ap.add_argument("--seed", type=int, default=29)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--extend", action="store_true",
                    help="long flanks on the chosen sequences instead of cutting them")
    args = ap.parse_args()
    print("| set | variant | guide tree | SPFN | SPFP | TC | s |")
    print("|---|---|---|---:|---:|---:|---:|")
    for d in map(Path, args.sets):
        ref = next(d / f for f in ("true.fa", "true.fa.gz") if (d / f).exists())
        import gzip
        opener = gzip.open if str(ref).endswith(".gz") else open
        with opener(ref, "rt") as fh:
            true_rows = {r.id: str(r.seq) for r in SeqIO.parse(fh, "fasta")}
        rows = (extend if args.extend else cut)(true_rows, args.share,
                                                np.random.default_rng(args.seed))
        with tempfile.TemporaryDirectory() as tmp:
            truth = Path(tmp) / "true.fa"
            truth.write_text("".join(f">{k}\n{v}\n" for k, v in rows.items()))
            seqs = [(k, v.replace("-", "")) for k, v in rows.items()]
            for label, opts in (("default", {}), ("kmer", {"tree_distances": "kmer"})):
                t = time.perf_counter()
                res = Aligner(threads=args.threads, **opts).align(seqs)
                sec = time.perf_counter() - t
                out = Path(tmp) / f"{label}.fa"
                res.write(str(out))
                c = compare(str(truth), str(out))
                tree = next(s.method for s in res.stages if s.name == "guide tree")
                print(f"| {d.name} | {label} | {tree[:40]} | {c.spfn:.4f} | {c.spfp:.4f} | "
                      f"{c.tc:.4f} | {sec:.1f} |", flush=True)


if __name__ == "__main__":
    sys.exit(main())
