"""Compare two output folders of ``equivalence.py``: what differs, and how.

Usage::

    python compare.py BASE_OUT NEW_OUT [--data ../shared/data]

Prints, per kind of case, how many outputs are byte-identical (stderr ignored: it
holds timings); for trees that differ, the rooted Robinson-Foulds distance and the
Euclidean branch-length distance between them; for alignments that differ, mean
SPFN/SPFP of both against the true alignment.
"""

from __future__ import annotations

import argparse
import filecmp
import re
import sys
from collections import defaultdict
from pathlib import Path

import dendropy
import numpy as np
from dendropy.calculate import treecompare

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from trimsa.evaluate import compare  # noqa: E402


def tree_distance(a: Path, b: Path):
    tns = dendropy.TaxonNamespace()
    ta, tb = (dendropy.Tree.get(path=str(p), schema="newick", taxon_namespace=tns,
                                preserve_underscores=True, rooting="force-rooted") for p in (a, b))
    ta.encode_bipartitions()
    tb.encode_bipartitions()
    return treecompare.symmetric_difference(ta, tb), treecompare.euclidean_distance(ta, tb)


def truth(data: Path, name: str) -> Path:
    folder = re.sub(r"^[a-z]+-(nj-|upgma-|global-|semiglobal-|local-)?(sim|tune)-", "", name)
    for cand in list(data.glob(f"sim/{folder}")) + list(data.glob(f"sim2/tune/{folder}")) \
            + list(data.glob(f"real/tune/{folder}")):
        return next(cand.glob("true.fa*"))
    raise FileNotFoundError(folder)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("base", type=Path)
    ap.add_argument("new", type=Path)
    ap.add_argument("--data", type=Path,
                    default=Path(__file__).resolve().parents[3] / ".." / "shared" / "data")
    args = ap.parse_args(argv)
    same, differ = defaultdict(int), defaultdict(list)
    for case in sorted(p.name for p in args.base.iterdir()):
        kind = re.sub(r"-(sim|tune)-.*", "", case)
        kind += "-trip" if "-trip-" in case and kind == "run" else ""
        files = sorted(f.name for f in (args.base / case).iterdir() if f.name != "stderr.txt")
        bad = [f for f in files if not filecmp.cmp(args.base / case / f, args.new / case / f,
                                                   shallow=False)]
        if bad:
            differ[kind].append((case, bad))
        else:
            same[kind] += 1
    for kind in sorted(set(same) | set(differ)):
        print(f"{kind}: {same[kind]} identical, {len(differ[kind])} differ")
        rows = []
        for case, bad in differ[kind]:
            for f in bad:
                a, b = args.base / case / f, args.new / case / f
                if f.endswith(".nwk"):
                    rf, euc = tree_distance(a, b)
                    print(f"  {case}/{f}: rooted RF {rf}, branch-length distance {euc:.3g}")
                elif f.endswith(".fa"):
                    t = truth(args.data, case)
                    x, y = compare(str(t), str(a)), compare(str(t), str(b))
                    rows.append((x.spfn, x.spfp, y.spfn, y.spfp))
        if rows:
            r = np.array(rows).mean(axis=0)
            print(f"  the {len(rows)} alignments that differ, mean SPFN / SPFP: "
                  f"before {r[0]:.4f} / {r[1]:.4f}, after {r[2]:.4f} / {r[3]:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
