"""Guide-tree nRF of the pairwise (corrected identity) and expected-accuracy distances,
from one library per set, on the msa sets of sim2/tune that take the library of all pairs.

    python eval/experiments/2026-11-26-retune-trained/ea_rf.py [--data .data/tune]
"""

import argparse
import sys
from pathlib import Path

import dendropy
import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "eval"))
sys.path.insert(0, str(HERE.parent / "2026-11-26-ensemble"))
sys.path.insert(0, str(HERE.parent / "2026-11-25-trained-hmm"))

from ensemble import capture_library  # noqa: E402
from hmm2 import ea_distances  # noqa: E402
from tree_accuracy import nrf  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=str(ROOT / ".data" / "tune"))
    args = ap.parse_args()
    from trimsa.io import read_sequences
    from trimsa.progressive import Aligner, api

    kept = capture_library()
    res = {"pairwise": [], "ea": []}
    for folder in sorted((Path(args.data) / "sim2" / "tune").glob("msa-*")):
        if not (folder / "input.fa").is_file():
            continue
        seqs = read_sequences(str(folder / "input.fa"))
        a = Aligner(threads=2)
        if a.distance_source(seqs) != "pairwise":
            continue
        r = a.align(seqs)
        true = dendropy.Tree.get(path=str(folder / "tree.nwk"), schema="newick",
                                 preserve_underscores=True)
        f0 = nrf(true, r.newick())
        ea = api.METHODS["upgma"](ea_distances(kept["library"]), seqs.names)
        f1 = nrf(true, ea.newick())
        res["pairwise"].append(f0)
        res["ea"].append(f1)
        print(f"{folder.name:24s} N={len(seqs):4d} pairwise {f0:.3f} ea {f1:.3f}", flush=True)
    print(f"mean nRF ({len(res['ea'])} sets): pairwise {np.mean(res['pairwise']):.3f} "
          f"ea {np.mean(res['ea']):.3f}")


if __name__ == "__main__":
    main()
