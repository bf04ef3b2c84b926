"""`run`'s default guide tree against the k-mer tree on protein sets (tune only).

    python protein.py DATA_DIR SET,SET,... VARIANT,VARIANT,... OUT.tsv

The runner of ``../2026-11-29-large-trees/trees.py`` (2 threads a run) with one more
variant, ``kmer``: the k-mer UPGMA tree asked for by name.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "2026-11-29-large-trees"))

import trees  # noqa: E402

trees.VARIANTS["kmer"] = {"tree_distances": "kmer"}

if __name__ == "__main__":
    trees.main()
