"""Accuracy of guide trees: normalised Robinson-Foulds distance to the true tree.

For every ``msa-*`` data set under ``DATA`` (``input.fa[.gz]`` and the true
``tree.nwk``) this builds, times and compares:

* ``trimsa-*``: :func:`trimsa.tree.build_guide_tree` variants (NJ, UPGMA;
  triplets all / sampled / auto), under the triplet stage's scoring (linear gaps -3);
  ``trimsa-affine-nj`` / ``-upgma``: the same under ``trimsa run``'s scoring (natural
  affine gaps), the tree ``trimsa tree --tree-distances triplet`` and ``run
  --tree-distances triplet`` build by default; each on the engine ``band="auto"`` picks (exact on a GPU, banded on the CPU)
  unless the variant names one; a ``-nj`` variant run with its ``-upgma`` twin builds
  the distances once;
* ``pair-score-nj`` / ``-upgma``: ``build_guide_tree(distances="pair-score")`` under
  ``trimsa run``'s scoring: banded (w = 32) affine pairwise score deficits within the
  time budget, the tree ``trimsa tree`` builds by default;
* ``pairwise-nj``: the same distance normalisation and the same NJ code on
  pairwise global alignment scores (Biopython ``PairwiseAligner``, same
  scoring; for N > ``--pairwise-max`` the banded pairwise kernel instead,
  marked ``pairwise-nj-band``), isolating the effect of the triplets;
* ``pairwise-affine-nj`` / ``-upgma``: the same on exact affine pairwise scores under
  ``trimsa run``'s scoring (the affine triplet variants minus the triplets);
* ``pairwise-nj-band``: the same with the banded (w = 32) pairwise kernel
  that trimsa's sampled designs use as their prior: trimsa minus the triplets;
* ``trimsa-run``: the guide tree ``trimsa run`` builds with its defaults
  (``Aligner()``: Jukes-Cantor distances of the library's pairwise alignments by UPGMA,
  or k-mer distances beyond the library's budget; the time is that of the whole run,
  which also aligns);
* ``clustalo``: Clustal Omega's guide tree (``clustalo -i IN --guidetree-out=F``;
  the time is that of the whole run, which also aligns);
* ``mafft``: MAFFT's guide tree (``mafft --retree 0 --treeout IN``, the tree
  TWILIGHT's script uses; numbered labels mapped back to names);
* ``mafft-retree2``: MAFFT's default FFT-NS-2 second tree (``mafft --treeout``).

nRF = RF / (2 (n - 3)), computed on unrooted trees with
``dendropy.calculate.treecompare.symmetric_difference``.

Usage::

    python eval/tree_accuracy.py [--data DIR] [--sets msa-N16-h0.2,...] \
        [--variants trimsa-nj,pairwise-nj,clustalo,mafft] [--out results.tsv]
    python eval/tree_accuracy.py --summarize eval/results/trees.tsv

Rows are appended to ``--out``, by default ``eval/results/trees.tsv``; that TSV and
``eval/results/trees.md`` (the ``--summarize`` tables and their reading) are this
benchmark's current result, listed in ``eval/results/README.md``.
"""

from __future__ import annotations

import argparse
import gzip
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import dendropy
import numpy as np
from dendropy.calculate import treecompare

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from trimsa.io import read_sequences  # noqa: E402
from trimsa.scoring import Scoring  # noqa: E402
from trimsa.tree import (  # noqa: E402
    GuideTree,
    build_guide_tree,
    neighbor_joining,
    score_distances,
    self_scores,
    upgma,
)
from trimsa.tree.distances import _shuffled  # noqa: E402
from trimsa.triplet import band_pair_scores  # noqa: E402

DATA = Path("/work/shared/data/sim")

#: name -> keyword arguments of build_guide_tree
TRIMSA = {
    "trimsa-nj": dict(method="nj"),
    "trimsa-nj-all": dict(method="nj", triplets="all"),
    "trimsa-nj-sampled": dict(method="nj", triplets="sampled"),
    "trimsa-nj-exact": dict(method="nj", band=None),
    "trimsa-affine-nj": dict(method="nj", stage="progressive"),
    "pair-score-nj": dict(method="nj", distances="pair-score", stage="progressive"),
}


def nrf(true: dendropy.Tree, newick: str) -> float:
    est = dendropy.Tree.get(data=newick, schema="newick", taxon_namespace=true.taxon_namespace,
                            rooting="force-unrooted", preserve_underscores=True)
    n = len(true.taxon_namespace)
    t = dendropy.Tree(true)
    t.is_rooted = False
    t.encode_bipartitions()
    est.encode_bipartitions()
    return treecompare.symmetric_difference(t, est) / (2.0 * (n - 3))


def input_path(d: Path) -> Path:
    for name in ("input.fa", "input.fa.gz"):
        if (d / name).exists():
            return d / name
    raise FileNotFoundError(d / "input.fa")


def plain_copy(src: Path, dst: Path) -> Path:
    if src.suffix == ".gz":
        with gzip.open(src, "rb") as fi, open(dst, "wb") as fo:
            shutil.copyfileobj(fi, fo)
    else:
        shutil.copy(src, dst)
    return dst


def run_clustalo(inp: Path, tmp: Path, threads: int):
    tree = tmp / "clustalo.nwk"
    t = time.perf_counter()
    subprocess.run(["clustalo", "-i", str(inp), "--guidetree-out", str(tree), "-o",
                    str(tmp / "clustalo.fa"), "--seqtype=DNA", f"--threads={threads}",
                    "--force"], check=True, capture_output=True)
    return tree.read_text().replace("\n", ""), time.perf_counter() - t


def run_mafft(inp: Path, tmp: Path, names, threads: int, retree0: bool):
    local = plain_copy(inp, tmp / "mafft_in.fa")
    args = ["mafft", "--treeout", "--thread", str(threads), "--quiet"]
    if retree0:
        args += ["--retree", "0"]
    t = time.perf_counter()
    subprocess.run(args + [str(local)], check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - t
    text = (tmp / "mafft_in.fa.tree").read_text().replace("\n", "")
    tree = dendropy.Tree.get(data=text, schema="newick", preserve_underscores=True)
    for leaf in tree.leaf_node_iter():
        num = int(leaf.taxon.label.split("_", 1)[0])   # "12_name" -> input record 12
        leaf.taxon.label = names[num - 1]
    return GuideTree.from_dendropy(tree, names).newick(), wall


def pairwise_nj(seqs, scoring: Scoring, exact: bool, threads: int, band: int = 32,
                method: str = "nj"):
    """NJ (or UPGMA) on pairwise global scores normalised as trimsa does; exact affine
    scores from the banded pairwise kernel with a band as wide as the longest sequence."""
    if exact and not scoring.linear:
        exact, band = False, int(seqs.lengths.max())
    n = len(seqs)
    iu, ju = np.triu_indices(n, 1)
    t = time.perf_counter()
    rng = np.random.default_rng([0, 7919])
    sh = _shuffled(seqs, 16, rng)
    sh_pairs = np.arange(16).reshape(8, 2)
    if exact:
        from Bio.Align import PairwiseAligner

        al = PairwiseAligner(mode="global", match_score=int(scoring.table[0, 0]),
                             mismatch_score=int(scoring.table[0, 1]),
                             gap_score=int(scoring.gap))
        strs = [s.upper() for s in seqs.sequences]
        ps = np.array([al.score(strs[i], strs[j]) for i, j in zip(iu, ju)])
        letters = np.array(list(seqs.alphabet.letters))
        sh_strs = ["".join(letters[sh.code(i)]) for i in range(16)]
        rnd = np.array([al.score(sh_strs[a], sh_strs[b]) for a, b in sh_pairs])
    else:
        ps = band_pair_scores(seqs, np.stack([iu, ju], 1), band=band, scoring=scoring,
                              threads=threads)
        rnd = band_pair_scores(sh, sh_pairs, band=band, scoring=scoring, threads=threads)
    rho = float(rnd.sum() / (sh.lengths[sh_pairs].sum() / 2.0))
    est = np.zeros((n, n))
    est[iu, ju] = ps
    est[ju, iu] = ps
    selfs = self_scores(seqs, scoring)
    np.fill_diagonal(est, selfs)
    D = score_distances(est, selfs, seqs.lengths, rho)
    tree = (neighbor_joining if method == "nj" else upgma)(D, seqs.names)
    return tree.newick(), time.perf_counter() - t


def summarize(tsv: Path) -> str:
    """Markdown tables (per data set, and mean nRF per variant) from result rows."""
    rows = [line.rstrip("\n").split("\t") for line in open(tsv)][1:]
    order = ["trimsa-nj", "trimsa-upgma", "pairwise-nj", "pairwise-nj-band", "clustalo", "mafft",
             "mafft-retree2"]
    variants = [v for v in order if any(r[2] == v for r in rows)]
    variants += sorted({r[2] for r in rows} - set(variants))
    sets = sorted({r[0] for r in rows}, key=lambda x: (int(x.split("-N")[1].split("-")[0]), x))
    cell = {(r[0], r[2]): r for r in rows}
    out = ["| dataset | N | " + " | ".join(variants) + " |",
           "|---|---|" + "---|" * len(variants)]
    for d in sets:
        n = next(r[1] for r in rows if r[0] == d)
        vals = []
        for v in variants:
            r = cell.get((d, v))
            vals.append(f"{float(r[3]):.3f} ({float(r[4]):.1f}s)" if r else "-")
        out.append(f"| {d} | {n} | " + " | ".join(vals) + " |")
    full = [d for d in sets if all((d, v) in cell for v in variants)]
    out.append(f"| **mean nRF**, {len(full)} sets with every variant | | " + " | ".join(
        f"{np.mean([float(cell[d, v][3]) for d in full]):.3f}" if full else "-"
        for v in variants) + " |")
    out.append("| mean nRF, every set the variant ran on (count) | | " + " | ".join(
        f"{np.mean([float(cell[d, v][3]) for d in sets if (d, v) in cell]):.3f} "
        f"({sum((d, v) in cell for d in sets)})" for v in variants) + " |")
    out.append("")
    out.append("trimsa runs (what was scored):")
    out.append("")
    for r in rows:
        if r[2] == "trimsa-nj":
            out.append(f"- {r[0]}: {r[5]}, wall {float(r[4]):.1f} s")
    return "\n".join(out)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--sets", default="", help="comma-separated data set names (default: all msa-*)")
    ap.add_argument("--variants", default="trimsa-nj,trimsa-upgma,pairwise-nj,clustalo,mafft,"
                    "mafft-retree2")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--time-budget", type=float, default=None)
    ap.add_argument("--device", default="cpu", choices=("cpu", "gpu", "auto"),
                    help="where the trimsa-* variants score their triplets (default cpu)")
    ap.add_argument("--pairwise-max", type=int, default=300,
                    help="largest N for exact (Biopython) pairwise scores")
    ap.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "results" / "trees.tsv",
                    help="append rows to this TSV (default: the current result, eval/results/trees.tsv)")
    ap.add_argument("--summarize", type=Path, default=None,
                    help="print markdown tables from a result TSV and exit")
    args = ap.parse_args(argv)
    if args.summarize:
        print(summarize(args.summarize))
        return
    sets = args.sets.split(",") if args.sets else sorted(
        p.name for p in args.data.iterdir() if p.name.startswith("msa-"))
    variants = args.variants.split(",")
    print(f"# {platform.node()} {os.cpu_count()} cores, {time.strftime('%Y-%m-%d %H:%M %Z')}")
    print("# " + " ".join([sys.executable] + sys.argv))
    header = "dataset\tN\tvariant\tnRF\twall_s\tdetail"
    print(header)
    out = None
    if args.out:
        new = not args.out.exists()
        out = open(args.out, "a")
        if new:
            out.write(header + "\n")
    for name in sets:
        d = args.data / name
        inp = input_path(d)
        seqs = read_sequences(inp)
        scoring = Scoring.for_alphabet(seqs.alphabet)
        true = dendropy.Tree.get(path=str(d / "tree.nwk"), schema="newick",
                                 preserve_underscores=True)
        with tempfile.TemporaryDirectory() as tmpd:
            tmp = Path(tmpd)
            for v in variants:
                detail = ""
                if v in TRIMSA:
                    kw = dict(TRIMSA[v])
                    if args.time_budget:
                        kw["time_budget"] = args.time_budget
                    sc = Scoring.for_alphabet(seqs.alphabet, stage=kw.pop("stage", "triplet"))
                    t = time.perf_counter()
                    gt = build_guide_tree(seqs, threads=args.threads, scoring=sc,
                                          device=args.device, **kw)
                    wall = time.perf_counter() - t
                    nwk = gt.newick()
                    info = gt.distances.info
                    n = len(seqs)
                    if gt.distances.source == "pair-score":
                        detail = (f"pair-score band{info['band']} {sc.gap_open}/{sc.gap_extend} "
                                  f"pairs={info['prior_pairs']}/{info['pairs']}")
                    else:
                        detail = (f"{info['triplets']} {info['engine']} {sc.gap_open}/"
                                  f"{sc.gap_extend} {info['device']} T={info['n_triplets']} "
                                  f"m={info['m']} pairs={info['pairs_supported']}/"
                                  f"{n * (n - 1) // 2} minsup={info['min_support']} "
                                  f"prior={info['prior_pairs']}")
                    twin = v[:-3] + "-upgma"
                    if v.endswith("-nj") and twin in variants:
                        # UPGMA on the same distances: the time is that of the whole build
                        t = time.perf_counter()
                        up = upgma(gt.distances.matrix, gt.names).newick()
                        uwall = wall - gt.timings["nj"] + time.perf_counter() - t
                        row = (f"{name}\t{len(seqs)}\t{twin}\t{nrf(true, up):.4f}\t"
                               f"{uwall:.2f}\t{detail} (distances of {v})")
                        print(row, flush=True)
                        if out:
                            out.write(row + "\n")
                elif v in ("trimsa-upgma", "trimsa-affine-upgma", "pair-score-upgma"):
                    if v[:-6] + "-nj" not in variants:
                        raise SystemExit(f"{v} is built from the distances of "
                                         f"{v[:-6]}-nj: ask for both")
                    continue
                elif v == "pairwise-nj":
                    exact = len(seqs) <= args.pairwise_max
                    nwk, wall = pairwise_nj(seqs, scoring, exact, args.threads)
                    detail = "biopython exact" if exact else "banded w=32 (N > --pairwise-max)"
                elif v in ("pairwise-affine-nj", "pairwise-affine-upgma"):
                    # exact affine pairwise scores under run's scoring: the affine triplet
                    # tree minus the triplets
                    sc = Scoring.for_alphabet(seqs.alphabet, stage="progressive")
                    nwk, wall = pairwise_nj(seqs, sc, True, args.threads,
                                            method=v.rsplit("-", 1)[1])
                    detail = f"exact affine {sc.gap_open}/{sc.gap_extend} pairwise scores"
                elif v == "pairwise-nj-band":
                    # exactly trimsa's prior: banded w=32 pairwise scores, no triplets
                    nwk, wall = pairwise_nj(seqs, scoring, False, args.threads)
                    detail = "banded w=32 (trimsa's prior alone)"
                elif v == "trimsa-run":
                    from trimsa.progressive import Aligner

                    t = time.perf_counter()
                    res = Aligner(threads=args.threads).align(seqs)
                    wall = time.perf_counter() - t
                    nwk = res.newick()
                    detail = "whole run (aligns too); " + next(
                        s.method for s in res.stages if s.name == "guide tree")
                elif v == "clustalo":
                    nwk, wall = run_clustalo(inp, tmp, args.threads)
                    detail = "whole run (aligns too)"
                elif v in ("mafft", "mafft-retree2"):
                    nwk, wall = run_mafft(inp, tmp, seqs.names, args.threads, v == "mafft")
                    detail = "--retree 0" if v == "mafft" else "default (FFT-NS-2, aligns too)"
                else:
                    raise SystemExit(f"unknown variant {v}")
                row = f"{name}\t{len(seqs)}\t{v}\t{nrf(true, nwk):.4f}\t{wall:.2f}\t{detail}"
                print(row, flush=True)
                if out:
                    out.write(row + "\n")
                    out.flush()
    if out:
        out.close()


if __name__ == "__main__":
    main()
