"""Guide trees against the true trees on tune sets: normalised RF of several distance sources.

    python eval/experiments/2026-11-24-guide-tree-distances/rf.py [--max-n 384] [--tsv OUT]

Sources (each turned into a tree by NJ and by UPGMA where it is a matrix):

* ``kmer``: trimsa's k-mer distances (``trimsa.tree.kmer_distances``, the default of ``run``);
* ``pair-p``: 1 - identity of the global affine pairwise alignments of the consistency
  library (``trimsa.progressive.consistency.build_library``, the aligner's own scores);
* ``pair-jc``: the same p corrected for multiple substitutions (Jukes-Cantor, p capped at
  0.74);
* ``clustalo``: Clustal Omega's guide tree (``--guidetree-out``), as a peer.

RF is dendropy's symmetric difference of the unrooted trees over 2 (n - 3). Tune sets only
(``../shared/data/sim2/tune/msa-*``).
"""

from __future__ import annotations

import argparse
import math
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))
DATA = (ROOT / ".." / "shared" / "data" / "sim2" / "tune").resolve()


def rf(tree_newick: str, true_path: Path, names) -> float:
    import dendropy
    from dendropy.calculate import treecompare

    tns = dendropy.TaxonNamespace(list(names))
    a = dendropy.Tree.get(data=tree_newick, schema="newick", taxon_namespace=tns,
                          preserve_underscores=True)
    b = dendropy.Tree.get(path=str(true_path), schema="newick", taxon_namespace=tns,
                          preserve_underscores=True)
    a.is_rooted = b.is_rooted = False
    a.encode_bipartitions()
    b.encode_bipartitions()
    n = len(names)
    return treecompare.symmetric_difference(a, b) / (2 * (n - 3))


def pair_distances(seqs):
    from trimsa.progressive.api import Aligner
    from trimsa.progressive.consistency import build_library

    al = Aligner()
    sc = al.scoring(seqs)
    codes = [seqs.code(i) for i in range(len(seqs))]
    lib = build_library(codes, sc.table, sc.gap_open, sc.gap_extend, 0.5,
                        witnesses=np.zeros(0, np.int64), threads=0)
    p = 1.0 - lib.ident
    np.fill_diagonal(p, 0.0)
    q = np.minimum(p, 0.74)
    jc = -0.75 * np.log(1.0 - 4.0 * q / 3.0)
    np.fill_diagonal(jc, 0.0)
    return p, jc


def clustalo_tree(inp: Path) -> str:
    with tempfile.TemporaryDirectory() as d:
        gt = Path(d) / "g.nwk"
        subprocess.run(["clustalo", "-i", str(inp), "-o", str(Path(d) / "a.fa"),
                        f"--guidetree-out={gt}", "--threads=2", "--force"], check=True,
                       capture_output=True)
        return gt.read_text().replace("\n", "")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--max-n", type=int, default=384)
    ap.add_argument("--tsv", type=Path, default=None)
    args = ap.parse_args(argv)
    from trimsa.io import read_sequences
    from trimsa.tree import kmer_distances
    from trimsa.tree.cluster import neighbor_joining, upgma

    rows = []
    for folder in sorted(DATA.glob("msa-*")):
        import json

        n = json.loads((folder / "meta.json").read_text()).get("taxa", 0)
        if n > args.max_n:
            continue
        seqs = read_sequences(folder / "input.fa")
        names = list(seqs.names)
        true = folder / "tree.nwk"
        t0 = time.perf_counter()
        k = kmer_distances(seqs).matrix
        p, jc = pair_distances(seqs)
        t_pair = time.perf_counter() - t0
        res = {}
        for label, D in (("kmer", k), ("pair-p", p), ("pair-jc", jc)):
            for meth, fn in (("nj", neighbor_joining), ("upgma", upgma)):
                res[f"{label}/{meth}"] = rf(fn(D, names).newick(), true, names)
        res["clustalo"] = rf(clustalo_tree(folder / "input.fa"), true, names)
        rows.append((folder.name, n, res, t_pair))
        print(folder.name, n, " ".join(f"{k_}={v:.3f}" for k_, v in res.items()),
              f"({t_pair:.1f} s)", flush=True)
    keys = list(rows[0][2])
    print("mean", " ".join(f"{k_}={np.mean([r[2][k_] for r in rows]):.3f}" for k_ in keys))
    if args.tsv:
        with open(args.tsv, "w") as fh:
            fh.write("set\tn\t" + "\t".join(keys) + "\n")
            for name, n, res, _ in rows:
                fh.write(f"{name}\t{n}\t" + "\t".join(f"{res[k_]:.5f}" for k_ in keys) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
