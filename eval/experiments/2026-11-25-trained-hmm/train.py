"""Pair-HMM parameters estimated from the true alignments of the tune splits.

    python train.py [--data DIR] [--pairs 300] [--out params.json]

For every msa set of ``sim2/tune`` and every family of ``real/tune`` (all sizes), up to
``--pairs`` random pairs of sequences are taken (seeded by the set's name). For each pair:

* its identity under ``run``'s own global affine pairwise alignment (``_cpu.seq_viterbi``
  with the scoring ``Aligner()`` uses), which is what the library knows at run time and
  so is what the parameters are binned by;
* from the true alignment projected on the pair (columns gapped in both removed): the
  counts of aligned base pairs (A, C, G, T only), the bases, the aligned columns, and the
  lengths of the maximal gap runs in either row (end runs included).

Per identity bin (:data:`EDGES`), the match odds ``p(a, b) / (q_a q_b)`` come from the
symmetrised pair counts (pseudocount 1), and the gap runs are fitted by EM with a mixture
of two geometric lengths (short / long) and with one. The gap-open probability per
direction is ``runs / (2 * aligned columns)``, shared between the components by their
weights. The same estimates from all pairs together are the ``pooled`` model. Everything
is written to ``params.json``.
"""

from __future__ import annotations

import argparse
import json
import zlib
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
EDGES = [0.0, 0.55, 0.65, 0.75, 0.85, 0.95, 1.01]
BASES = "ACGT"


def read_fasta(path):
    from Bio import SeqIO

    return [(r.id, str(r.seq).upper().replace("U", "T").replace(".", "-"))
            for r in SeqIO.parse(str(path), "fasta")]


def sets(data: Path, groups=("sim2", "real")):
    for group in groups:
        for folder in sorted((data / group / "tune").iterdir()):
            if folder.name.startswith("trip-") or not (folder / "true.fa").is_file():
                continue
            yield group, folder


def pair_stats(ra, rb):
    """Counts of one true pairwise projection: 4x4 pair counts, base counts, aligned
    columns, gap run lengths."""
    pc = np.zeros((4, 4))
    bc = np.zeros(4)
    runs = []
    prev = None  # 'x': residue of a against a gap, 'y': the other way
    length = 0
    aligned = 0
    for ca, cb in zip(ra, rb):
        ga, gb = ca == "-", cb == "-"
        if ga and gb:
            continue
        kind = "m" if not (ga or gb) else ("x" if gb else "y")
        for c in (ca, cb):
            k = BASES.find(c)
            if c != "-" and k >= 0:
                bc[k] += 1
        if kind == "m":
            aligned += 1
            ka, kb = BASES.find(ca), BASES.find(cb)
            if ka >= 0 and kb >= 0:
                pc[ka, kb] += 1
        if kind != prev and prev in ("x", "y"):
            runs.append(length)
        length = length + 1 if kind == prev else 1
        prev = kind
    if prev in ("x", "y"):
        runs.append(length)
    return pc, bc, aligned, runs


def viterbi_identity(seq_a, seq_b):
    from trimsa.alphabet import DNA
    from trimsa.progressive import _cpu, engine
    from trimsa.progressive.api import Aligner
    from trimsa.scoring import Scoring

    sc0 = Scoring.dna(stage="progressive")
    used = np.arange(DNA.size)
    al = Aligner()
    sc = engine.make_profile_scoring(sc0.table, used, sc0.gap_open, sc0.gap_extend,
                                     float(al.terminal))
    table = np.ascontiguousarray(sc.table[:-1, :-1], np.float32)
    a = DNA.encode(seq_a).astype(np.int64)
    b = DNA.encode(seq_b).astype(np.int64)
    tb = np.empty((a.size + 1) * (b.size + 1), np.uint8)
    path = np.empty(a.size + b.size, np.int8)
    npath, _ = _cpu.seq_viterbi(a, b, table, np.float32(sc.gap_open),
                                np.float32(sc.gap_extend), np.float32(sc.term), tb, path)
    _mp, ident = _cpu._path_map(a, b, path, npath)
    return ident


def geometric_mixture(lengths, comps, iters=500):
    """EM for a mixture of ``comps`` geometric distributions on ``lengths`` (>= 1):
    ``(weights, extension probabilities)``, components ordered short to long."""
    L = np.asarray(lengths, np.float64)
    if comps == 1:
        e = 1.0 - 1.0 / L.mean()
        return [1.0], [e]
    w = np.array([0.7, 0.3])
    e = np.array([0.3, 0.9])
    for _ in range(iters):
        like = w[None, :] * (1 - e[None, :]) * e[None, :] ** (L[:, None] - 1)
        r = like / like.sum(axis=1, keepdims=True)
        w = r.mean(axis=0)
        mean_len = (r * L[:, None]).sum(axis=0) / r.sum(axis=0)
        e = np.clip(1.0 - 1.0 / mean_len, 1e-3, 0.999)
    order = np.argsort(e)
    return w[order].tolist(), e[order].tolist()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=str(ROOT / ".data" / "tune"))
    ap.add_argument("--pairs", type=int, default=300)
    ap.add_argument("--out", default=str(HERE / "params.json"))
    ap.add_argument("--groups", default="sim2,real", help="which tune splits to train on")
    args = ap.parse_args()
    nb = len(EDGES) - 1
    pc = np.zeros((nb, 4, 4))
    bc = np.zeros((nb, 4))
    aligned = np.zeros(nb)
    runs = [[] for _ in range(nb)]
    npairs = np.zeros(nb, np.int64)
    per_group = {}
    for group, folder in sets(Path(args.data), tuple(args.groups.split(","))):
        rows = [s for _, s in read_fasta(folder / "true.fa")]
        n = len(rows)
        rng = np.random.default_rng(zlib.crc32(folder.name.encode()))
        allp = [(i, j) for i in range(n) for j in range(i + 1, n)] if n <= 120 else None
        if allp is not None and len(allp) <= args.pairs:
            chosen = allp
        elif allp is not None:
            chosen = [allp[k] for k in rng.choice(len(allp), args.pairs, replace=False)]
        else:
            chosen = set()
            while len(chosen) < args.pairs:
                i, j = rng.choice(n, 2, replace=False)
                chosen.add((min(i, j), max(i, j)))
            chosen = sorted(chosen)
        for i, j in chosen:
            ua, ub = rows[i].replace("-", ""), rows[j].replace("-", "")
            if not ua or not ub:
                continue
            ident = viterbi_identity(ua, ub)
            k = int(np.searchsorted(EDGES, ident, side="right") - 1)
            k = min(max(k, 0), nb - 1)
            p, b, al, r = pair_stats(rows[i], rows[j])
            pc[k] += p + p.T
            bc[k] += b
            aligned[k] += al
            runs[k].extend(r)
            npairs[k] += 1
        per_group[group] = per_group.get(group, 0) + len(chosen)
        print(f"{folder.name:40s} N={n:5d} pairs={len(chosen)}", flush=True)
    bins = []
    # the pooled model: every pair's counts together (the bins only regroup them)
    pc = np.concatenate([pc, pc.sum(axis=0, keepdims=True)])
    bc = np.concatenate([bc, bc.sum(axis=0, keepdims=True)])
    aligned = np.concatenate([aligned, [aligned.sum()]])
    runs.append([r for rr in runs for r in rr])
    npairs = np.concatenate([npairs, [npairs.sum()]])
    EDGES.append(EDGES[-1])
    for k in range(nb + 1):
        q = (bc[k] + 1) / (bc[k] + 1).sum()
        p = (pc[k] + 1) / (pc[k] + 1).sum()
        odds = p / np.outer(q, q)
        R = len(runs[k])
        delta = R / (2.0 * max(aligned[k], 1.0))
        w2, e2 = geometric_mixture(runs[k], 2) if R > 10 else ([1.0, 0.0], [0.5, 0.5])
        w1, e1 = geometric_mixture(runs[k], 1) if R > 0 else ([1.0], [0.5])
        ident = float(np.trace(pc[k]) / max(pc[k].sum(), 1))
        bins.append({
            "lo": EDGES[k], "hi": EDGES[k + 1], "pairs": int(npairs[k]),
            "aligned": float(aligned[k]), "runs": R, "true_identity": ident,
            "odds": odds.tolist(), "q": q.tolist(),
            "one": {"delta": delta, "eps": e1[0]},
            "two": {"delta": [delta * w2[0], delta * w2[1]], "eps": e2},
        })
        print(f"bin {EDGES[k]:.2f}-{EDGES[k + 1]:.2f}: pairs {npairs[k]:5d} aligned "
              f"{aligned[k]:9.0f} true id {ident:.3f} delta {delta:.4f} one eps {e1[0]:.3f} "
              f"two w {w2[0]:.2f}/{w2[1]:.2f} eps {e2[0]:.3f}/{e2[1]:.3f}")
    Path(args.out).write_text(json.dumps({"edges": EDGES[:-1], "pairs": per_group,
                                          "bins": bins[:-1], "pooled": bins[-1]}, indent=1))


if __name__ == "__main__":
    main()
