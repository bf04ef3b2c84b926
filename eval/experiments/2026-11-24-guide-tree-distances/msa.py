"""Does a guide tree from pairwise-alignment distances give better alignments? (tune only)

    python eval/experiments/2026-11-24-guide-tree-distances/msa.py [--max-n 128]

For each ``msa-*`` / ``rfam*`` set of ``--data`` (default ``sim2/tune``) of at most
``--max-n`` sequences: ``trimsa run`` with the k-mer UPGMA tree (``kmer/upgma``, the
default of ``run`` at acf13f3, called ``default`` in the first run's log), and with
``--guide-tree T`` for T = NJ (midpoint-rooted) or UPGMA of 1 - identity (``pair-p``) or
its Jukes-Cantor correction (``pair-jc``) of the library's pairwise alignments (rf.py),
and the true tree (simulated sets) as an upper reference. SPFN / SPFP against ``true.fa``.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[2]))

from rf import DATA, pair_distances  # noqa: E402


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--max-n", type=int, default=128)
    ap.add_argument("--trees", default="kmer/upgma,pair-p/nj,true tree",
                    help="comma-separated: kmer/upgma (the default of run at acf13f3), pair-p/nj, pair-p/upgma, pair-jc/nj, "
                         "pair-jc/upgma, true tree")
    ap.add_argument("--data", type=Path, default=DATA,
                    help="folder of msa-* / rfam* sets (default: sim2/tune)")
    args = ap.parse_args(argv)
    from trimsa.evaluate import compare
    from trimsa.io import read_sequences
    from trimsa.progressive.api import Aligner
    from trimsa.tree.cluster import neighbor_joining, upgma

    labels = args.trees.split(",")
    res = {label: [] for label in labels}
    for folder in sorted(list(args.data.glob("msa-*")) + list(args.data.glob("rfam*"))):
        meta = json.loads((folder / "meta.json").read_text())
        n = meta.get("taxa", meta.get("n_seqs", 0))
        if n > args.max_n:
            continue
        seqs = read_sequences(folder / "input.fa")
        p, jc = pair_distances(seqs)
        with tempfile.TemporaryDirectory() as d:
            trees = {"kmer/upgma": None, "true tree": folder / "tree.nwk"}
            for dname, D in (("pair-p", p), ("pair-jc", jc)):
                for mname, make in (("nj", neighbor_joining), ("upgma", upgma)):
                    t = Path(d) / f"{dname}-{mname}.nwk"
                    t.write_text(make(D, list(seqs.names)).newick() + "\n")
                    trees[f"{dname}/{mname}"] = t
            out = {}
            for label in labels:
                tree = trees[label]
                a = Path(d) / "a.fa"
                aligner = (Aligner(tree_distances="kmer") if tree is None
                           else Aligner(guide_tree=str(tree)))
                aligner.align(str(folder / "input.fa")).write(str(a))
                s = compare(folder / "true.fa", a)
                res[label].append((s.spfn, s.spfp))
                out[label] = f"{s.spfn:.4f}/{s.spfp:.4f}"
        print(folder.name, n, out, flush=True)
    for label, v in res.items():
        v = np.array(v)
        print(f"mean {label}: SPFN {v[:, 0].mean():.4f} SPFP {v[:, 1].mean():.4f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
