"""UPGMA on k-mer distances in bounded memory (trimsa.tree.bounded) against dense UPGMA."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from trimsa import cli
from trimsa.errors import OptionError
from trimsa.io import read_sequences
from trimsa.progressive import Aligner
from trimsa.tree import _cpu, bounded, build_guide_tree, kmer_distances
from trimsa.tree import api as tree_api
from trimsa.tree.distances import KmerSets

DATA = Path(__file__).parent / "data"
N16 = DATA / "tree_N16_h0.5.fa"
MSA16 = DATA / "msa16_input.fa"


def is_upgma(D, joins, heights, tol=1e-12) -> bool:
    """Whether every join takes two live clusters at the least mean distance of all live
    pairs (any of them where several tie), at half that distance: UPGMA replayed on the full
    matrix with the mean distances recomputed from scratch for each new cluster."""
    n = D.shape[0]
    members = {i: [i] for i in range(n)}
    for s, (a, b) in enumerate(joins):
        if a not in members or b not in members:
            return False
        live = list(members)
        best = min(D[np.ix_(members[x], members[y])].mean()
                   for i, x in enumerate(live) for y in live[i + 1:])
        d = D[np.ix_(members[a], members[b])].mean()
        if abs(d - best) > tol or abs(heights[s] - d / 2) > tol:
            return False
        members[n + s] = members.pop(a) + members.pop(b)
    return len(members) == 1


def random_sets(rng, n):
    """k-mer-like bit sets in a few related groups: (bits, counts)."""
    words = int(rng.integers(1, 24))
    centres = rng.random((int(rng.integers(1, 8)), 64 * words)) < rng.uniform(0.2, 0.6)
    flips = rng.random((n, 64 * words)) < rng.uniform(0.01, 0.3, size=(n, 1))
    B = centres[rng.integers(len(centres), size=n)] ^ flips
    bits = np.packbits(B, axis=1, bitorder="little").view(np.uint64).copy()
    return bits, B.sum(1).astype(np.int64)


def shared_reference(bits, rows, cols):
    """Shared set bits of ``rows`` x ``cols``, through numpy's unpacked bits."""
    B = np.unpackbits(bits.view(np.uint8), axis=1).astype(np.int64)
    return B[rows] @ B[cols].T


def dense_matrix(bits, counts):
    """``1 - shared / min(counts)`` of every pair, in numpy (0 on the diagonal)."""
    n = bits.shape[0]
    S = shared_reference(bits, np.arange(n), np.arange(n))
    m = np.minimum(counts[:, None], counts[None, :])
    with np.errstate(divide="ignore", invalid="ignore"):
        D = np.where(m > 0, 1.0 - S / np.maximum(m, 1), 1.0)
    np.fill_diagonal(D, 0.0)
    return D


def sets(bits, counts, **options):
    return KmerSets(bits, counts, threads=options.pop("threads", 1), **options)


def test_the_reference_check_accepts_dense_upgma_and_rejects_a_wrong_join():
    rng = np.random.default_rng(7)
    bits, counts = random_sets(rng, 30)
    D = dense_matrix(bits, counts)
    joins, heights = _cpu.upgma_joins(D.copy())
    assert is_upgma(D, joins, heights)
    wrong = joins.copy()
    wrong[0] = [wrong[0, 0], [x for x in range(30) if x not in wrong[0]][-1]]
    assert not is_upgma(D, wrong, heights)


@pytest.mark.parametrize("seed", range(40))
def test_bounded_joins_are_upgma_joins(seed):
    """Random sizes, dense-phase budgets and first K: every join is one UPGMA makes."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 70))
    bits, counts = random_sets(rng, n)
    m = int(rng.integers(2, n + 1))
    joins, heights, info = bounded.upgma_joins(sets(bits, counts), 8.0 * m * m,
                                               int(rng.integers(1, 6)))
    assert joins.shape == (n - 1, 2) and info["dense_clusters"] <= m
    assert info["sparse_joins"] + info["dense_clusters"] == n
    assert is_upgma(dense_matrix(bits, counts), joins, heights)


def test_bounds_made_exact_and_the_neighbour_lists_grown_are_exercised():
    """Across the random cases, some joins needed distances computed to make a bound exact,
    and some needed more neighbours than the first K; so the checks above cover both."""
    evaluated = grown = 0
    for seed in range(40):
        rng = np.random.default_rng(seed)
        n = int(rng.integers(3, 70))
        bits, counts = random_sets(rng, n)
        m = int(rng.integers(2, n + 1))
        first = int(rng.integers(1, 6))
        _, _, info = bounded.upgma_joins(sets(bits, counts), 8.0 * m * m, first)
        evaluated += info["evaluated"] > 0
        grown += info["neighbours"] > first
    assert evaluated >= 3 and grown >= 3


def test_bounded_tree_on_sequences_is_upgma_of_their_kmer_distances():
    seqs = read_sequences(MSA16)
    D = kmer_distances(seqs).matrix
    tree = build_guide_tree(seqs, distances="kmer", method="upgma", matrix_bytes=8 * 5 ** 2)
    info = tree.distances.info
    assert tree.distances.matrix is None and info["dense_clusters"] <= 5
    assert "bounded memory" in tree.distances.describe()
    n = len(seqs)
    joins = np.array(tree.children)
    heights = np.array([_height(tree, v) for v in range(n, 2 * n - 1)])
    assert is_upgma(D, joins, heights, tol=1e-9)


def _height(tree, v):
    h, n = 0.0, tree.n
    while v >= n:
        c = tree.children[v - n][0]
        h += tree.length[c]
        v = c
    return h


def test_same_tree_as_dense_upgma_when_distances_do_not_tie():
    """With no two distances equal, UPGMA's tree is unique: bounded and dense give the same
    Newick."""
    for seed in range(200):
        rng = np.random.default_rng(seed)
        bits, counts = random_sets(rng, 12)
        D = dense_matrix(bits, counts)
        upper = D[np.triu_indices(12, 1)]
        if np.unique(upper).size == upper.size:
            break
    else:
        pytest.fail("no tie-free case drawn")
    dj, dh = _cpu.upgma_joins(D.copy())
    joins, heights, _ = bounded.upgma_joins(sets(bits, counts), 8.0 * 3 * 3, 2)
    assert np.array_equal(np.sort(joins, 1), dj)
    assert np.allclose(heights, dh, rtol=0, atol=1e-12)


def test_beyond_the_matrix_budget_other_sources_and_methods_are_errors():
    seqs = read_sequences(N16)
    with pytest.raises(OptionError, match="distance matrix .* beyond .* use kmer distances"):
        build_guide_tree(seqs, distances="kmer", method="nj", matrix_bytes=100)
    with pytest.raises(OptionError, match="by upgma of triplet distances"):
        build_guide_tree(seqs, distances="triplet", method="upgma", matrix_bytes=100)
    with pytest.raises(OptionError, match="holds no 2 x 2 matrix"):
        build_guide_tree(seqs, distances="kmer", method="upgma", matrix_bytes=16)


def test_run_and_tree_use_the_bounded_tree_beyond_the_budget(monkeypatch, tmp_path, capsys):
    seqs = read_sequences(MSA16)
    dense = Aligner(threads=1, tree_distances="kmer").align(seqs)
    monkeypatch.setattr(tree_api, "MATRIX_BYTES", 8 * 6 ** 2)
    res = Aligner(threads=1, tree_distances="kmer").align(seqs)
    stage = next(s for s in res.stages if s.name == "guide tree")
    assert "bounded memory" in stage.method
    # this set's UPGMA tree has no join decided by a tie: the same tree, the same rows
    assert res.newick() == dense.newick()
    assert res.rows == dense.rows
    out = tmp_path / "t.nwk"
    assert cli.main(["tree", str(MSA16), "-o", str(out), "--tree-distances", "kmer",
                     "--method", "upgma", "-v"]) == 0
    assert "bounded memory" in capsys.readouterr().err
    assert cli.main(["tree", str(MSA16), "-o", str(tmp_path / "nj.nwk"), "--tree-distances",
                     "kmer", "--method", "nj"]) != 0
    err = capsys.readouterr().err
    assert "distance matrix" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "nj.nwk").exists()


# --------------------------------------------------------------------------- progress

def _recorder():
    calls = []
    return calls, lambda done, total, stage=None: calls.append((stage, done, total))


def _check_bars(calls):
    """Each stage's calls climb to their total: returns the stages in order."""
    stages = []
    for stage, done, total in calls:
        if not stages or stages[-1][0] != stage:
            stages.append([stage, []])
        stages[-1][1].append((done, total))
    for stage, bar in stages:
        dones = [d for d, _t in bar]
        assert dones == sorted(dones) and dones[-1] == bar[-1][1], stage
        assert len({t for _d, t in bar}) == 1, stage
    return [s for s, _b in stages]


def test_kmer_trees_report_progress_and_build_the_same_tree():
    seqs = read_sequences(MSA16)
    calls, progress = _recorder()
    quiet = build_guide_tree(seqs, distances="kmer", method="upgma")
    loud = build_guide_tree(seqs, distances="kmer", method="upgma", progress=progress)
    assert loud.newick() == quiet.newick()
    n = len(seqs)
    assert _check_bars(calls) == ["tree: k-mer distances"]
    assert calls[-1][2] == n * (n - 1) // 2
    calls.clear()
    bounded_quiet = build_guide_tree(seqs, distances="kmer", method="upgma", matrix_bytes=8 * 25)
    bounded_loud = build_guide_tree(seqs, distances="kmer", method="upgma", matrix_bytes=8 * 25,
                                    progress=progress)
    assert bounded_loud.newick() == bounded_quiet.newick()
    stages = _check_bars(calls)
    assert stages[0] == f"tree: {min(bounded.NEIGHBOURS, n - 1)} nearest neighbours"
    assert stages[-1] == "tree: distances between clusters"
    assert 0 < calls[-1][2] < n * (n - 1) // 2   # the pairs between clusters
    calls.clear()
    Aligner(threads=1, tree_distances="kmer").align(seqs, progress=progress)
    assert "tree: k-mer distances" in _check_bars(calls)
