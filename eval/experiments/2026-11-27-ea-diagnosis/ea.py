"""Search error or model error? For every family of real/tune (N <= 256), the expected
number of correct residue pairs under `run`'s default consistency library (the ensemble
experiment's `expected_pairs`) of trimsa's alignment, of MUSCLE5's stored one and of the
true alignment, next to their SPFN / SPFP (tune only).

    python eval/experiments/2026-11-27-ea-diagnosis/ea.py [--out ea.tsv]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "eval"))
sys.path.insert(0, str(ROOT / "eval" / "experiments" / "2026-11-26-ensemble"))

from ensemble import capture_library, expected_pairs  # noqa: E402

DATA = ROOT.parent / "shared" / "data" / "real" / "tune"


def rows_in_order(path, names):
    from Bio import SeqIO

    got = {r.id: str(r.seq).upper().replace(".", "-") for r in SeqIO.parse(str(path), "fasta")}
    rows = [got[n] for n in names]
    # drop all-gap columns
    keep = [c for c in range(len(rows[0])) if any(r[c] != "-" for r in rows)]
    return ["".join(r[c] for c in keep) for r in rows]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    from trimsa.evaluate import compare
    from trimsa.io import as_sequence_set
    from trimsa.progressive import Aligner

    kept = capture_library()
    out = []
    for folder in sorted(DATA.iterdir()):
        muscle = folder / "peers" / "muscle.fa"
        seqs = as_sequence_set(str(folder / "input.fa"))
        if len(seqs) > 256 or not muscle.exists() or muscle.stat().st_size == 0:
            continue
        res = Aligner(threads=2).align(seqs)
        lib = kept["library"]
        cands = {"trimsa": res.rows,
                 "muscle": rows_in_order(muscle, seqs.names),
                 "true": rows_in_order(folder / "true.fa", seqs.names)}
        for name, rows in cands.items():
            with tempfile.TemporaryDirectory() as d:
                with open(f"{d}/a.fa", "w") as fh:
                    fh.write("".join(f">{n}\n{r}\n" for n, r in zip(seqs.names, rows)))
                c = compare(folder / "true.fa", f"{d}/a.fa")
            e, a = expected_pairs(lib, rows)
            out.append((folder.name, len(seqs), name, c.spfn, c.spfp, e, a))
            print(f"{folder.name:36s} {name:7s} {c.spfn:.4f}/{c.spfp:.4f} "
                  f"expected {e:10.1f} aligned {a:8d}", flush=True)
    if args.out:
        with open(args.out, "w") as fh:
            fh.write("set\tN\talignment\tspfn\tspfp\texpected\taligned\n")
            for r in out:
                fh.write("\t".join(str(x) for x in r) + "\n")


if __name__ == "__main__":
    main()
