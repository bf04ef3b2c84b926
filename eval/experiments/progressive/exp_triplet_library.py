"""Experiment: a consistency library whose third-sequence votes come from EXACT 3-way alignments.

The package's library (trimsa.progressive.consistency) lets a third sequence u
vote for pairing residue x of s with residue y of t when the pairwise s-u and
u-t alignments chain x~z~y. Here, instead, u votes with the s-t pairs of the
exact optimal 3-way alignment of (s, u, t) (trimsa.align_triplets, linear gap
-2, match 1 / mismatch -1), weighted like the package (the smaller of the s-u
and u-t pairwise identities), averaged over the n - 2 votes plus the direct
pairwise alignment. All C(n, 3) triplets are aligned, so this is for small n.

    python eval/experiments/progressive/exp_triplet_library.py msa-N16-h0.2,msa-N16-h0.5,msa-N16-h1.0 [weight]
"""
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
import numpy as np  # noqa: E402

from trimsa.evaluate import compare  # noqa: E402
from trimsa.io import read_sequences  # noqa: E402
from trimsa.progressive import engine, guide  # noqa: E402
from trimsa.progressive.consistency import Library, build_library  # noqa: E402
from trimsa.triplet import align_triplets, all_triplets  # noqa: E402

SIM = '/work/shared/data/sim'


class EntryLibrary(Library):
    """Library whose support is a list of (x, y, weight) per ordered pair (s, t)."""

    def scores(self, la, lb, mem_a, mem_b, w):
        C = np.zeros((la, lb), np.float64)
        wa, wb = w[mem_a].sum(), w[mem_b].sum()
        for s in mem_a:
            for t in mem_b:
                x, y, e = self.entries[(s, t)]
                f = w[s] * w[t] / (wa * wb) / self.votes
                np.add.at(C, (self.pos[self.offsets[s] + x], self.pos[self.offsets[t] + y]), f * e)
        return C.astype(np.float32)


def pair_map(lib, s, t, n_s):
    o = lib.map_off[s, t]
    return lib.maps[o:o + n_s]


def exact_library(seqs, codes, sc, lam, threads):
    n = len(codes)
    base = build_library(codes, sc.table[:-1, :-1], sc.go, sc.ge, sc.term, weight=lam,
                         witnesses=np.zeros(0, np.int64), threads=threads)
    lens = [c.size for c in codes]
    xs = {(s, t): [] for s in range(n) for t in range(n) if s != t}
    ys = {k: [] for k in xs}
    es = {k: [] for k in xs}
    for s in range(n):
        for t in range(n):
            if s == t:
                continue
            m = pair_map(base, s, t, lens[s])
            x = np.flatnonzero(m >= 0)
            xs[(s, t)].append(x)
            ys[(s, t)].append(m[x].astype(np.int64))
            es[(s, t)].append(np.full(x.size, base.ident[s, t]))
    tri = all_triplets(n)
    alns = align_triplets(seqs, tri, threads=threads)
    for (i, j, k), aln in zip(tri, alns):
        rows = [np.frombuffer(r.encode(), np.uint8) != ord('-') for r in aln.rows]
        idx = [np.cumsum(r) - 1 for r in rows]
        trio = (i, j, k)
        for a in range(3):
            for b in range(3):
                if a == b:
                    continue
                u = trio[3 - a - b]
                s, t = trio[a], trio[b]
                both = rows[a] & rows[b]
                xs[(s, t)].append(idx[a][both])
                ys[(s, t)].append(idx[b][both])
                es[(s, t)].append(np.full(int(both.sum()),
                                          min(base.ident[s, u], base.ident[u, t])))
    lib = EntryLibrary(base.offsets, base.map_off, base.maps, base.ident, base.pos, lam,
                       base.witnesses, base.is_witness)
    lib.entries = {k: (np.concatenate(xs[k]), np.concatenate(ys[k]), np.concatenate(es[k]))
                   for k in xs}
    lib.votes = 1.0 + (n - 2)
    return lib


def run(name, lam=6.0, threads=2):
    p = f'{SIM}/{name}/input.fa'
    seqs = read_sequences(p if os.path.exists(p) else p + '.gz')
    gt = guide.default_guide_tree(seqs, threads=threads).binary()
    used = np.unique(seqs.codes)
    lut = np.zeros(256, np.int64)
    lut[used] = np.arange(used.size)
    codes = [lut[seqs.code(i)] for i in range(len(seqs))]
    k = seqs.alphabet.size
    tab = np.where(np.eye(k, dtype=bool), 1.0, -1.0)
    sc = engine.make_profile_scoring(tab, used, 3.0, 1.0, 0.5, 1.0)
    t = time.perf_counter()
    lib = exact_library(seqs, codes, sc, lam, threads)
    tl = time.perf_counter() - t
    walk = engine.Walk(gt, codes, engine.tree_weights(gt), sc, threads=1, library=lib)
    walk.run()
    pos, width = walk.positions()
    rows = engine.assemble(pos, width, seqs.sequences)
    sc_ = compare(f'{SIM}/{name}/true.fa', list(zip(seqs.names, rows)))
    fn, fp = sc_.spfn, sc_.spfp
    return fn, fp, tl


if __name__ == '__main__':
    lam = float(sys.argv[2]) if len(sys.argv) > 2 else 6.0
    for name in sys.argv[1].split(','):
        fn, fp, tl = run(name, lam)
        print(f'{name}\texact-triplet library\t{fn:.4f}\t{fp:.4f}\tlibrary {tl:.1f}s', flush=True)
