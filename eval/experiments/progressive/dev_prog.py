"""Development driver: align msa-* sets with the progressive engine, score, print."""
import sys, time, json
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
import numpy as np
from trimsa.io import read_sequences
from trimsa.progressive import engine, guide
from trimsa.evaluate import compare

SIM = '/work/shared/data/sim'

def run(name, go=3.0, ge=1.0, term=0.5, gic=None, match=1.0, mismatch=-1.0, true_tree=False, threads=1, boundary=False, method="upgma", ts=None, uniform=False, lam=0.0, extend=True, ttree=None, wit=None):
    seqs = read_sequences((f'{SIM}/{name}/input.fa' if __import__('os').path.exists(f'{SIM}/{name}/input.fa') else f'{SIM}/{name}/input.fa.gz'))
    t0 = time.perf_counter()
    if true_tree:
        import dendropy
        tr = dendropy.Tree.get(path=f'{SIM}/{name}/tree.nwk', schema='newick', preserve_underscores=True)
        gt = engine.GuideTree.from_dendropy(tr, seqs.names)
    elif ttree:
        from trimsa.tree import build_guide_tree
        g = build_guide_tree(seqs, method=ttree, threads=threads)
        gt = engine.GuideTree.from_dendropy(g.tree, seqs.names)
    else:
        gt = guide.default_guide_tree(seqs, method=method, threads=threads)
    gt = gt.binary()
    t1 = time.perf_counter()
    used = np.unique(seqs.codes)
    lut = np.zeros(256, np.int64); lut[used] = np.arange(used.size)
    codes = [lut[seqs.code(i)] for i in range(len(seqs))]
    k = seqs.alphabet.size
    tab = np.where(np.eye(k, dtype=bool), match, mismatch).astype(float)
    if ts is not None:
        L = seqs.alphabet.letters
        for x, y in (('A', 'G'), ('C', 'T')):
            tab[L.index(x), L.index(y)] = tab[L.index(y), L.index(x)] = ts
    sc = engine.make_profile_scoring(tab, used, go, ge, term, ge if gic is None else gic, boundary)
    w = engine.tree_weights(gt) if not uniform else np.ones(len(seqs))
    lib = None
    if lam > 0:
        from trimsa.progressive.consistency import build_library
        from trimsa.progressive.consistency import pick_witnesses
        leaves = gt.leaves()
        witnesses = pick_witnesses(len(codes), leaves, wit) if extend else np.zeros(0, np.int64)
        lib = build_library(codes, sc.table[:-1, :-1], go, ge, term, weight=lam, witnesses=witnesses, threads=threads)
    walk = engine.Walk(gt, codes, w, sc, threads=threads, library=lib)
    walk.run()
    pos, width = walk.positions()
    rows = engine.assemble(pos, width, seqs.sequences)
    t2 = time.perf_counter()
    true = f'{SIM}/{name}/true.fa' if __import__('os').path.exists(f'{SIM}/{name}/true.fa') else f'{SIM}/{name}/true.fa.gz'
    sc_ = compare(true, list(zip(seqs.names, rows)))
    fn, fp = sc_.spfn, sc_.spfp
    return fn, fp, t1 - t0, t2 - t1

if __name__ == '__main__':
    kw = json.loads(sys.argv[2]) if len(sys.argv) > 2 else {}
    for name in sys.argv[1].split(','):
        fn, fp, tt, ta = run(name, **kw)
        print(f'{name}\t{fn:.4f}\t{fp:.4f}\ttree {tt:.2f}s\taln {ta:.2f}s', flush=True)
