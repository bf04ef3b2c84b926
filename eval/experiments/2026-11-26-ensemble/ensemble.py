"""Several alignments per set, one kept by the library's expected accuracy (tune only).

    python eval/experiments/2026-11-26-ensemble/ensemble.py [--data .data/tune] [--max-n 256]
        [--candidates default,nj,...] [--threads 2] [--out run.tsv]

For every family of ``real/tune`` and every msa set of ``sim2/tune`` (N <= ``--max-n``)
this aligns the input under each candidate (:data:`CANDIDATES`, ``Aligner`` options) and
scores every alignment with the default run's consistency library: the expected number
of correctly aligned residue pairs, the sum over the library's pairs ``s < t`` of the
posterior probability of each residue pair the alignment puts in one column (0 where
the pair is not among the residue's kept partners). It prints per set each candidate's
SPFN/SPFP, expected pairs and aligned pairs, and per group the means of the default, of
the candidate each rule picks and of the best candidate by SPFN (an oracle, which no
rule can beat).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "eval"))

CANDIDATES = {
    "default": {},
    "nj": {"method": "nj"},
    "kmer": {"tree_distances": "kmer"},
    "term2": {"terminal": 2.0},
    "w96": {"consistency": 96.0},
    "fitted": {"pair_hmm": "fitted"},
    "votes-aln": {"library_votes": "alignment"},
}


def capture_library():
    """Patch ``Aligner._walk`` to keep the last library it was given."""
    from trimsa.progressive import api

    kept = {}
    walk = api.Aligner._walk

    def _walk(self, seqs, codes, sc, btree, threads, progress, library, design, stages):
        kept["library"] = library
        return walk(self, seqs, codes, sc, btree, threads, progress, library, design, stages)

    api.Aligner._walk = _walk
    return kept


def residue_columns(rows):
    """Per row, the column of each residue."""
    out = []
    for r in rows:
        a = np.frombuffer(r.encode(), np.uint8)
        out.append(np.flatnonzero((a != ord("-")) & (a != ord("."))))
    return out


def expected_pairs(library, rows):
    """(expected correct residue pairs, residue pairs aligned) of ``rows`` under
    ``library``, over the library's pairs."""
    cols = residue_columns(rows)
    ncol = len(rows[0])
    # column -> residue of each sequence (-1: gap)
    at = np.full((len(rows), ncol), -1, np.int64)
    for s, c in enumerate(cols):
        at[s, c] = np.arange(c.size)
    exp = 0.0
    aligned = 0
    for s in range(library.n):
        for k in range(library.nbr_ptr[s], library.nbr_ptr[s + 1]):
            t = int(library.nbr[k])
            if t <= s:
                continue
            o = int(library.nbr_map[k])
            y = at[t, cols[s]]  # residue of t in each residue of s's column
            aligned += int((y >= 0).sum())
            m = library.maps[o:o + cols[s].size]
            p = library.probs[o:o + cols[s].size]
            hit = (m == y[:, None]) & (y[:, None] >= 0)
            exp += float((p * hit).sum())
    return exp, aligned


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=str(ROOT / ".data" / "tune"))
    ap.add_argument("--max-n", type=int, default=256)
    ap.add_argument("--candidates", default=",".join(CANDIDATES))
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    from bench_run import data_sets
    from trimsa.evaluate import compare
    from trimsa.progressive import Aligner

    kept = capture_library()
    names = args.candidates.split(",")
    assert names[0] == "default"
    out = []
    for folder, _inp, ref, seqs in data_sets("tune", args.max_n, Path(args.data)):
        if folder.name.startswith("trip-"):
            continue
        group = "real" if folder.name.startswith("rfam") else "sim2"
        lib = None
        for v in names:
            res = Aligner(threads=args.threads, **CANDIDATES[v]).align(seqs)
            if v == "default":
                lib = kept["library"]
            with tempfile.TemporaryDirectory() as d:
                res.write(f"{d}/a.fa")
                c = compare(ref, f"{d}/a.fa")
            e, a = expected_pairs(lib, res.rows)
            out.append((group, folder.name, len(seqs), v, c.spfn, c.spfp, c.tc, e, a))
            print(f"{folder.name:40s} {v:10s} {c.spfn:.4f}/{c.spfp:.4f} tc {c.tc:.3f} "
                  f"exp {e:12.1f} aligned {a:10d}", flush=True)
    if args.out:
        with open(args.out, "w") as fh:
            fh.write("group\tset\tN\tcandidate\tspfn\tspfp\ttc\texpected\taligned\n")
            for r in out:
                fh.write("\t".join(str(x) for x in r) + "\n")
    summary(out, names)


def summary(out, names):
    rules = {
        "max expected": lambda r: r[7],
        "max expected - 0.5 wrong": lambda r: r[7] - 0.5 * (r[8] - r[7]),
        "max expected share": lambda r: r[7] / max(r[8], 1),
    }
    print()
    for g in sorted({r[0] for r in out}):
        sets = sorted({r[1] for r in out if r[0] == g})
        by = {s: [r for r in out if r[1] == s] for s in sets}
        for v in names:
            m = np.mean([[r[4], r[5]] for s in sets for r in by[s] if r[3] == v], axis=0)
            print(f"{g:5s} {v:28s} {m[0]:.4f}/{m[1]:.4f}")
        for label, key in rules.items():
            pick = [max(by[s], key=key) for s in sets]
            m = np.mean([[r[4], r[5]] for r in pick], axis=0)
            print(f"{g:5s} {label:28s} {m[0]:.4f}/{m[1]:.4f}  "
                  + " ".join(f"{v}:{sum(r[3] == v for r in pick)}" for v in names))
        pick = [min(by[s], key=lambda r: r[4]) for s in sets]
        m = np.mean([[r[4], r[5]] for r in pick], axis=0)
        print(f"{g:5s} {'oracle (min SPFN)':28s} {m[0]:.4f}/{m[1]:.4f}")


if __name__ == "__main__":
    main()
