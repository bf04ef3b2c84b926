"""A consistency library whose direct pair support comes from exact affine 3-way alignments.

    python eval/experiments/2026-11-24-triplet-library/trilib.py SET_DIR [SET_DIR ...] \
        [--threads N] [--device auto|cpu]

For each data set (``input.fa``, ``true.fa``): ``trimsa run``'s pipeline as it is (library
of global affine pairwise alignments, Jukes-Cantor UPGMA tree from it, merges with the
library through 32 witnesses: ``pairwise``), and the same with every pair's entry of the
library (its residue map and identity) taken instead from the projection, onto the pair,
of the exact affine 3-way alignment of the pair with its nearest third sequence (the u
minimising D[s,u] + D[t,u] on the pairwise tree distances): ``triplet``. Everything else
(tree, witnesses, weight, scores: run's defaults) is the same, so the difference is the
triplet alignments alone. Tune sets only. Prints SPFN / SPFP and seconds per set.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))


def pipeline(folder: Path, use_triplets: bool, threads: int, device: str):
    import tempfile

    from trimsa.evaluate import compare
    from trimsa.io import read_sequences
    from trimsa.progressive import engine
    from trimsa.progressive.api import AlignmentResult, Aligner
    from trimsa.triplet import align_triplets

    al = Aligner(threads=threads)
    seqs = read_sequences(str(folder / "input.fa"))
    scoring = al.scoring(seqs)
    used, codes = al._compact(seqs)
    sc = engine.make_profile_scoring(scoring.table, used, scoring.gap_open, scoring.gap_extend,
                                     float(al.terminal))
    stages = []
    t0 = time.perf_counter()
    lib = al._library(seqs, codes, sc, threads, None, stages)
    tree = al._pairwise_tree(seqs, lib)
    n = len(seqs)
    info = ""
    if use_triplets:
        D = tree.distances.matrix
        pair_u = {}
        for s in range(n):
            for t in range(s + 1, n):
                cost = D[s] + D[t]
                cost[[s, t]] = np.inf
                pair_u[(s, t)] = int(np.argmin(cost))
        trips = sorted({tuple(sorted((s, t, u))) for (s, t), u in pair_u.items()})
        t1 = time.perf_counter()
        alns = align_triplets(seqs, trips, scoring=scoring, threads=threads, device=device)
        info = f"{len(trips)} triplets aligned in {time.perf_counter() - t1:.1f} s"
        index = {tr: i for i, tr in enumerate(trips)}
        for (s, t), u in pair_u.items():
            tr = tuple(sorted((s, t, u)))
            rows = alns[index[tr]].rows
            rs, rt = rows[tr.index(s)], rows[tr.index(t)]
            xs = ys = 0
            mp = np.full(seqs.lengths[s], -1, np.int32)
            same = aligned = 0
            cs, ct = seqs.code(s), seqs.code(t)
            for a, b in zip(rs, rt):
                if a != "-" and b != "-":
                    mp[xs] = ys
                    aligned += 1
                    same += int(cs[xs] == ct[ys])
                if a != "-":
                    xs += 1
                if b != "-":
                    ys += 1
            o, r = lib.map_off[s, t], lib.map_off[t, s]
            lib.maps[o:o + mp.size] = mp
            lib.maps[r:r + seqs.lengths[t]] = -1
            for x, y in enumerate(mp):
                if y >= 0:
                    lib.maps[r + y] = x
            lib.ident[s, t] = lib.ident[t, s] = same / aligned if aligned else 0.0
    rows = al._walk(seqs, codes, sc, tree, threads, None, lib, stages)
    wall = time.perf_counter() - t0
    res = AlignmentResult(names=tuple(seqs.names), descriptions=tuple(seqs.descriptions),
                          rows=tuple(rows), guide=tree)
    with tempfile.TemporaryDirectory() as d:
        out = Path(d) / "a.fa"
        res.write(str(out))
        s = compare(folder / "true.fa", out)
    return s.spfn, s.spfp, wall, info


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("sets", nargs="+", type=Path)
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--device", default="cpu")
    args = ap.parse_args(argv)
    res = {"pairwise": [], "triplet": []}
    for folder in args.sets:
        for label in res:
            spfn, spfp, wall, info = pipeline(folder, label == "triplet", args.threads,
                                              args.device)
            res[label].append((spfn, spfp))
            print(f"{folder.name}\t{label}\t{spfn:.4f}\t{spfp:.4f}\t{wall:.1f} s\t{info}",
                  flush=True)
    for label, v in res.items():
        v = np.array(v)
        print(f"mean {label}: SPFN {v[:, 0].mean():.4f} SPFP {v[:, 1].mean():.4f} "
              f"({len(v)} sets)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
