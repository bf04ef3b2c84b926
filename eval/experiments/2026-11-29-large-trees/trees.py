"""`trimsa run`'s guide tree on the tune sets of 256 sequences and more (tune only).

Variants of `Aligner` (label -> options); each set's alignment scored against its true
alignment (SPFN, SPFP, TC) and the guide tree against its true tree (nRF).

    python trees.py DATA_DIR SET,SET,... VARIANT,VARIANT,... OUT.tsv

SET may be a path relative to DATA_DIR (e.g. ``../sim/msa-N256-h0.2``).
"""
import sys
import time
from pathlib import Path

import dendropy

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "eval"))

from bench_run import run_variant  # noqa: E402
from tree_accuracy import input_path, nrf  # noqa: E402

VARIANTS = {
    "default": {},
    "triplet15": {"tree_distances": "triplet", "tree_time_budget": 15.0},
    "kmer-nj": {"tree_distances": "kmer", "method": "nj"},
    "triplet15-upgma": {"tree_distances": "triplet", "tree_time_budget": 15.0, "method": "upgma"},
}
#: variants whose guide tree is built here (``build_guide_tree`` options) and given to
#: ``Aligner(guide_tree=...)``; their wall time includes the tree's
GIVEN = {
    "pairscore15-upgma": {"distances": "pair-score", "method": "upgma", "time_budget": 15.0},
    "pairscore15-nj": {"distances": "pair-score", "method": "nj", "time_budget": 15.0},
    "pairscore60-upgma": {"distances": "pair-score", "method": "upgma", "time_budget": 60.0},
    "pairscore240-upgma": {"distances": "pair-score", "method": "upgma", "time_budget": 240.0},
    "pairscore240-nj": {"distances": "pair-score", "method": "nj", "time_budget": 240.0},
}


def main():
    data, sets, variants, out = Path(sys.argv[1]), sys.argv[2].split(","), \
        sys.argv[3].split(","), sys.argv[4]
    with open(out, "a") as fo:
        for name in sets:
            d = data / name
            ref = next(d / f for f in ("true.fa", "true.fa.gz") if (d / f).exists())
            true = dendropy.Tree.get(path=str(d / "tree.nwk"), schema="newick",
                                     preserve_underscores=True) \
                if (d / "tree.nwk").exists() else None   # the real families have none
            for v in variants:
                t = time.perf_counter()
                if v in GIVEN:
                    from trimsa.tree import build_guide_tree

                    gt = build_guide_tree(str(input_path(d)), threads=2, **GIVEN[v])
                    t_tree = time.perf_counter() - t
                    (spfn, spfp, tc, wall), res = run_variant(input_path(d), ref,
                                                              {"guide_tree": gt}, 2)
                    wall += t_tree
                    tree = f"given: {gt.summary()}"
                else:
                    (spfn, spfp, tc, wall), res = run_variant(input_path(d), ref,
                                                              VARIANTS[v], 2)
                    tree = next(s.method for s in res.stages if s.name == "guide tree")
                row = [name, v, f"{spfn:.4f}", f"{spfp:.4f}", f"{tc:.4f}",
                       f"{nrf(true, res.newick()):.4f}" if true else "nan", f"{wall:.1f}",
                       tree]
                print("\t".join(row), flush=True)
                fo.write("\t".join(row) + "\n")
                fo.flush()


if __name__ == "__main__":
    main()
