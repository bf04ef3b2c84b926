"""Tests of trimsa.tree: least squares, banded kernels, NJ/UPGMA, sampling, sources, CLI."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import dendropy
import numpy as np
import pytest
from dendropy.calculate import treecompare
from hypothesis import example, given, settings
from hypothesis import strategies as st

from trimsa import cli
from trimsa.errors import OptionError, TooFewSequencesError
from trimsa.io import as_sequence_set, read_sequences
from trimsa.scoring import Scoring
from trimsa.tree import (
    GuideTree,
    build_guide_tree,
    kmer_distances,
    ls_all_triplets,
    ls_triplets,
    neighbor_joining,
    sample_triplets,
    upgma,
)
from trimsa.triplet import all_triplets, band_pair_scores, band_triplet_scores, score_triplets

DATA = Path(__file__).parent / "data"
N16 = DATA / "tree_N16_h0.5.fa"        # copied from shared/data/sim/msa-N16-h0.5/input.fa


# -- helpers -----------------------------------------------------------------------

def random_tree(n, rng, *, ultrametric=False):
    """A random binary tree on taxa t0..t{n-1} with positive branch lengths.

    Built by joining random pairs of subtrees; ultrametric trees join at
    increasing heights.
    """
    tns = dendropy.TaxonNamespace([f"t{i}" for i in range(n)])
    nodes = [dendropy.Node(taxon=tns[i]) for i in range(n)]
    height = {id(x): 0.0 for x in nodes}
    h = 0.0
    while len(nodes) > 1:
        i, j = sorted(rng.choice(len(nodes), 2, replace=False))
        b, a = nodes.pop(j), nodes.pop(i)
        parent = dendropy.Node()
        if ultrametric:
            h += rng.uniform(0.05, 1.0)
            for c in (a, b):
                c.edge_length = h - height[id(c)]
            height[id(parent)] = h
        else:
            a.edge_length = rng.uniform(0.05, 1.0)
            b.edge_length = rng.uniform(0.05, 1.0)
        parent.add_child(a)
        parent.add_child(b)
        nodes.append(parent)
    return dendropy.Tree(seed_node=nodes[0], taxon_namespace=tns, is_rooted=ultrametric)


def patristic(tree, names):
    if isinstance(tree, GuideTree):
        tree = tree.to_dendropy()
    pdm = tree.phylogenetic_distance_matrix()
    tx = {t.label: t for t in tree.taxon_namespace}
    n = len(names)
    D = np.zeros((n, n))
    for i in range(n):
        for j in range(i + 1, n):
            D[i, j] = D[j, i] = pdm(tx[names[i]], tx[names[j]])
    return D


def rf(a, b, *, rooted=False):
    tns = a.taxon_namespace
    text = b.newick() if isinstance(b, GuideTree) else b.as_string(schema="newick")
    b2 = dendropy.Tree.get(data=text, schema="newick", taxon_namespace=tns,
                           rooting="force-rooted" if rooted else "force-unrooted")
    a2 = dendropy.Tree(a)
    a2.is_rooted = rooted
    a2.encode_bipartitions()
    b2.encode_bipartitions()
    return treecompare.symmetric_difference(a2, b2)


def random_seqs(n, length, seed):
    rng = np.random.default_rng(seed)
    base = rng.choice(list("ACGT"), length)
    out = []
    for i in range(n):
        s = base.copy()
        flip = rng.random(length) < 0.1 + 0.02 * i
        s[flip] = rng.choice(list("ACGT"), flip.sum())
        keep = rng.random(length) > 0.05
        out.append((f"s{i}", "".join(s[keep])))
    return out


# -- least squares -------------------------------------------------------------------

def dense_lstsq(n, scores):
    trip = all_triplets(n)
    iu, ju = np.triu_indices(n, 1)
    col = {(a, b): c for c, (a, b) in enumerate(zip(iu, ju))}
    A = np.zeros((len(trip), len(iu)))
    for r, (i, j, k) in enumerate(trip):
        A[r, col[i, j]] = A[r, col[i, k]] = A[r, col[j, k]] = 1
    x = np.linalg.lstsq(A, scores, rcond=None)[0]
    E = np.zeros((n, n))
    E[iu, ju] = x
    E[ju, iu] = x
    return E


@pytest.mark.parametrize("n", [3, 4, 5, 6, 9, 12])
def test_closed_form_equals_lstsq(n):
    rng = np.random.default_rng(n)
    scores = rng.normal(0, 50, n * (n - 1) * (n - 2) // 6)
    np.testing.assert_allclose(ls_all_triplets(n, scores), dense_lstsq(n, scores), atol=1e-8)


def model_scores(n, rng, mean, sd):
    """Random symmetric pair scores and the additive-model scores of all triplets."""
    s = rng.normal(mean, sd, (n, n))
    s = np.triu(s, 1) + np.triu(s, 1).T
    trip = all_triplets(n)
    return s, trip, s[trip[:, 0], trip[:, 1]] + s[trip[:, 0], trip[:, 2]] + s[trip[:, 1], trip[:, 2]]


def test_closed_form_recovers_exact_model():
    n = 10
    s, trip, S = model_scores(n, np.random.default_rng(1), 0, 10)
    np.testing.assert_allclose(ls_all_triplets(n, S), s, atol=1e-9)
    np.testing.assert_allclose(ls_triplets(n, trip, S), s, atol=1e-6)


def test_sparse_least_squares_solves_for_the_supported_pairs_alone():
    """Pairs in no triplet keep their prior: solving for the others alone gives what the
    damped least squares over every pair gives."""
    from scipy.sparse.linalg import lsqr

    from trimsa.tree.distances import _design, _pair_ids

    rng = np.random.default_rng(8)
    n = 40
    trip = np.unique(np.sort(rng.integers(0, n, (60, 3)), axis=1), axis=0)
    trip = trip[(trip[:, 0] < trip[:, 1]) & (trip[:, 1] < trip[:, 2])]
    S = rng.normal(size=len(trip)) * 5
    prior = rng.normal(size=(n, n))
    prior = prior + prior.T
    est = ls_triplets(n, trip, S, prior=prior, damp=0.1)
    iu, ju, _ = _pair_ids(n)
    A = _design(n, trip)
    base = prior[iu, ju]
    delta = lsqr(A, S - A @ base, damp=0.1, atol=1e-12, btol=1e-12, iter_lim=10000)[0]
    np.testing.assert_allclose(est[iu, ju], base + delta, atol=1e-8)
    unused = np.setdiff1d(np.arange(iu.size), A.indices)
    assert unused.size > 0 and np.array_equal(est[iu, ju][unused], base[unused])


def test_sampled_estimate_converges_to_full():
    n = 14
    rng = np.random.default_rng(5)
    s, full_trip, S_all = model_scores(n, rng, 100, 20)
    S_all = S_all + rng.normal(0, 5, len(full_trip))
    lookup = {tuple(t): v for t, v in zip(full_trip.tolist(), S_all)}
    full = ls_all_triplets(n, S_all)
    prior = s + rng.normal(0, 15, (n, n))
    prior = (prior + prior.T) / 2
    iu, ju = np.triu_indices(n, 1)
    errs = []
    for m in (1, 2, 4, 8, n - 2):
        trip, support = sample_triplets(-prior, m, 10 ** 9, seed=3)
        assert (support[iu, ju] >= m).all()
        S = np.array([lookup[tuple(t)] for t in trip.tolist()])
        est = ls_triplets(n, trip, S, prior=prior, damp=1e-3)
        errs.append(np.sqrt(np.mean((est - full)[iu, ju] ** 2)))
    assert errs[-1] < 1e-2
    assert errs[0] > errs[2] > errs[-1]


def test_sample_triplets_deterministic_and_valid():
    rng = np.random.default_rng(0)
    D = rng.random((20, 20))
    D = D + D.T
    a, sa = sample_triplets(D, 3, 500, seed=4)
    b, sb = sample_triplets(D, 3, 500, seed=4)
    c, _ = sample_triplets(D, 3, 500, seed=5)
    assert np.array_equal(a, b) and np.array_equal(sa, sb)
    assert not np.array_equal(a, c)
    assert (a[:, 0] < a[:, 1]).all() and (a[:, 1] < a[:, 2]).all()
    assert len({tuple(t) for t in a.tolist()}) == len(a)
    few, _ = sample_triplets(D, 3, 10, seed=4)
    assert len(few) == 10


# -- banded kernels --------------------------------------------------------------------

seq_st = st.text(alphabet="ACGT", min_size=1, max_size=14)


@settings(max_examples=40, deadline=None)
@given(st.lists(seq_st, min_size=3, max_size=3), st.integers(1, 6))
# two sequences of the same length: which one is A used to depend on the order given
@example(["AAAAAAAAA", "AAACAAAAAAAAAA", "ACCAAAAAAAAAAC"], 1)
def test_band_triplet_matches_exact(seqs, w):
    ss = as_sequence_set(seqs)
    exact = score_triplets(ss, [[0, 1, 2]])
    wide = band_triplet_scores(ss, [[0, 1, 2]], band=16)
    narrow = band_triplet_scores(ss, [[0, 1, 2]], band=w)
    assert wide[0] == exact[0]
    assert narrow[0] <= exact[0]
    # the score does not depend on the order of the three
    assert band_triplet_scores(ss, [[2, 0, 1]], band=w)[0] == narrow[0]


def _diagonal_band(la, lb, lc, w):
    """The band of the banded kernels written out from their definition: layer i of
    the longest sequence keeps |j - round(i lb / la)| <= w and the same for k."""
    rows = []
    for i in range(la + 1):
        cj = int(np.floor(i * lb / la + 0.5))
        ck = int(np.floor(i * lc / la + 0.5))
        rows.append((max(0, cj - w), min(lb, cj + w), max(0, ck - w), min(lc, ck + w)))
    return np.array(rows, dtype=np.int64)


@settings(max_examples=60, deadline=None)
@given(st.lists(seq_st, min_size=3, max_size=3), st.integers(1, 6), st.integers(-6, 0),
       st.integers(-4, -1), st.integers(-3, -1))
@example(["AAAAAAAAA", "AAACAAAAAAAAAA", "ACCAAAAAAAAAAC"], 1, -3, -1, -1)
def test_band_triplet_affine_matches_exact(seqs, w, go, ge, mismatch):
    from trimsa.triplet import _affine

    sc = Scoring.dna(match=2, mismatch=mismatch, gap_open=go, gap_extend=ge)
    ss = as_sequence_set(seqs)
    exact = score_triplets(ss, [[0, 1, 2]], scoring=sc)[0]
    assert band_triplet_scores(ss, [[0, 1, 2]], band=16, scoring=sc)[0] == exact
    narrow = band_triplet_scores(ss, [[0, 1, 2]], band=w, scoring=sc)[0]
    assert narrow <= exact
    for order in ([2, 0, 1], [1, 2, 0], [0, 2, 1]):
        assert band_triplet_scores(ss, [order], band=w, scoring=sc)[0] == narrow
    # the same band through the traced banded aligner, longest sequence first and ties
    # by index (the kernels' canonical order); its score is that of the path it traces
    order = sorted(range(3), key=lambda x: (-len(seqs[x]), x))
    a, b, c = (ss.codes[ss.offsets[x]:ss.offsets[x + 1]] for x in order)
    band = _diagonal_band(len(a), len(b), len(c), w)
    moves = np.zeros(len(a) + len(b) + len(c), dtype=np.uint8)
    score, n = _affine.align_band(a, b, c, sc.table, np.int32(go), np.int32(ge),
                                  band[:, 0].copy(), band[:, 1].copy(), band[:, 2].copy(),
                                  band[:, 3].copy(), moves, np.empty(0, dtype=np.uint64),
                                  np.empty((2, 0, 0, _affine.NS), dtype=np.int32))
    assert n > 0 and score == narrow
    rows = [[], [], []]
    pos = [0, 0, 0]
    for m in moves[:n]:
        for d, x in enumerate((a, b, c)):
            if (m >> d) & 1:
                rows[d].append(int(x[pos[d]]))
                pos[d] += 1
            else:
                rows[d].append(-1)
    assert pos == [len(a), len(b), len(c)]
    assert sc.sum_of_pairs(rows) == narrow


@settings(max_examples=40, deadline=None)
@given(st.lists(seq_st, min_size=2, max_size=2), st.integers(1, 6))
def test_band_pair_matches_biopython(seqs, w):
    from Bio.Align import PairwiseAligner

    sc = Scoring.dna()  # band_pair_scores uses the default scoring
    al = PairwiseAligner(mode="global", match_score=int(sc.table[0, 0]),
                         mismatch_score=int(sc.table[0, 1]), gap_score=sc.gap)
    ss = as_sequence_set(seqs)
    assert band_pair_scores(ss, [[0, 1]], band=16)[0] == al.score(*seqs)
    assert band_pair_scores(ss, [[0, 1]], band=w)[0] <= al.score(*seqs)


@settings(max_examples=60, deadline=None)
@given(st.lists(seq_st, min_size=2, max_size=2), st.integers(1, 6), st.integers(-6, 0),
       st.integers(-4, -1), st.integers(-3, -1))
def test_band_pair_affine_matches_biopython(seqs, w, go, ge, mismatch):
    from Bio.Align import PairwiseAligner

    # natural affine gaps: a run of L gaps scores go + ge L; Biopython scores the first
    # gap of a run with open_gap_score and each further one with extend_gap_score
    sc = Scoring.dna(match=2, mismatch=mismatch, gap_open=go, gap_extend=ge)
    al = PairwiseAligner(mode="global", match_score=2, mismatch_score=mismatch,
                         open_gap_score=go + ge, extend_gap_score=ge)
    ss = as_sequence_set(seqs)
    assert band_pair_scores(ss, [[0, 1]], band=16, scoring=sc)[0] == al.score(*seqs)
    assert band_pair_scores(ss, [[1, 0]], band=16, scoring=sc)[0] == al.score(*seqs)
    assert band_pair_scores(ss, [[0, 1]], band=w, scoring=sc)[0] <= al.score(*seqs)


# -- NJ and UPGMA ------------------------------------------------------------------------

@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("n", [4, 7, 25])
def test_nj_recovers_additive_tree(n, seed):
    rng = np.random.default_rng(seed)
    true = random_tree(n, rng)
    names = [f"t{i}" for i in rng.permutation(n)]
    D = patristic(true, names)
    for root in (True, False):
        est = neighbor_joining(D, names, root=root)
        assert rf(true, est) == 0
        # branch lengths are recovered too: same patristic distances
        np.testing.assert_allclose(patristic(est, names), D, atol=1e-9)


def slow_nj(D):
    """NJ in plain Python, one pair at a time: the first least Q in row-major scan order
    over the active slots, the new node in the first one's slot, the last slot moved into
    the second's, the row sums updated as the kernel updates them (the same rounding:
    with four nodes left the three pairings tie in exact arithmetic); the joins and
    lengths :func:`trimsa.tree._cpu.nj_joins` returns."""
    D = D.copy()
    n = len(D)
    node, act, joins, lengths = list(range(n)), list(range(n)), [], []
    r = {x: sum(D[x, y] for y in range(n) if y != x) for x in range(n)}
    while len(act) > 3:
        m = len(act)
        best, bi, bj = np.inf, 0, 1
        for p in range(m):
            for q in range(p + 1, m):
                val = (m - 2) * D[act[p], act[q]] - r[act[p]] - r[act[q]]
                if val < best:
                    best, bi, bj = val, p, q
        x, y = act[bi], act[bj]
        lx = 0.5 * D[x, y] + (r[x] - r[y]) / (2.0 * (m - 2))
        joins.append((node[x], node[y]))
        lengths.append((lx, D[x, y] - lx))
        act[bj] = act[-1]
        act.pop()
        dxy, rnew = D[x, y], 0.0
        for z in act:
            if z != x:
                dz = 0.5 * (D[x, z] + D[y, z] - dxy)
                r[z] += dz - D[x, z] - D[y, z]
                D[x, z] = D[z, x] = dz
                rnew += dz
        r[x] = rnew
        node[x] = n + len(joins) - 1
    return joins, lengths


@pytest.mark.parametrize("kind", ["random", "ties", "tree", "wide", "extreme"])
@pytest.mark.parametrize("n", [4, 5, 9, 40, 101, 150])
def test_nj_joins_equal_a_plain_python_nj(n, kind):
    """The pruned, threaded search gives the plain sequential scan's joins and lengths:
    on random distances, on small integers (many ties), on a tree's patristic distances
    (additive: ties of Q everywhere) and on distances of very different sizes and signs,
    some beyond float32's range (where a bound's rounding could matter)."""
    from trimsa import _numba
    from trimsa.tree import _cpu

    rng = np.random.default_rng(
        n + 1000 * ["random", "ties", "tree", "wide", "extreme"].index(kind))
    if kind == "tree":
        names = [f"t{i}" for i in range(n)]
        D = patristic(random_tree(n, rng, ultrametric=False), names) if n > 3 else \
            rng.random((n, n))
    elif kind == "ties":
        D = rng.integers(1, 4, (n, n)).astype(float)
    elif kind == "wide":
        D = rng.random((n, n)) * 10.0 ** rng.integers(-6, 7, (n, n)) - 0.5
    elif kind == "extreme":   # beyond float32's range, and tiny negatives
        D = rng.random((n, n)) * 10.0 ** rng.integers(-60, 45, (n, n)) - 1e-50
    else:
        D = rng.random((n, n))
    D = D + D.T
    np.fill_diagonal(D, 0.0)
    want_j, want_l = slow_nj(D)
    for threads in (1, 2):
        _numba.set_threads(threads)
        joins, lengths = _cpu.nj_joins(D.copy())
        assert [tuple(j[:2]) for j in joins[:-1]] == want_j
        np.testing.assert_allclose(lengths[:-1, :2], np.array(want_l).reshape(-1, 2),
                                   rtol=1e-9, atol=1e-9)
    _numba.set_threads(0)


@pytest.mark.parametrize("seed", range(6))
def test_upgma_on_ultrametric_distances(seed):
    rng = np.random.default_rng(seed)
    n = 12
    true = random_tree(n, rng, ultrametric=True)
    names = [f"t{i}" for i in rng.permutation(n)]
    D = patristic(true, names)
    est = upgma(D, names)
    assert est.method == "upgma" and len(est.children[est.root - n]) == 2
    assert rf(true, est, rooted=True) == 0
    np.testing.assert_allclose(patristic(est, names), D, atol=1e-9)


def test_newick_one_line_rooted_non_negative():
    rng = np.random.default_rng(2)
    n = 9
    D = rng.random((n, n)) * 3
    D = D + D.T
    names = ["a_b", "c", "d.e", "f-g", "h", "i", "j", "k", "l"]
    for tree in (neighbor_joining(D, names), upgma(D, names)):
        text = tree.newick()
        assert "\n" not in text and text.endswith(";") and "[&" not in text
        assert len(tree.children[tree.root - n]) == 2
        assert (tree.length >= 0).all()
        back = dendropy.Tree.get(data=text, schema="newick", preserve_underscores=True)
        assert sorted(t.label for t in back.taxon_namespace) == sorted(names)
        assert "-0" not in text.replace("f-g", "")


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 30), st.integers(1, 5), st.integers(0, 2**32 - 1))
@example(9, 1, 0)   # every distance equal: the tie rules decide everything
def test_upgma_equals_scipy_average_linkage(n, levels, seed):
    """Joins, their order and heights equal scipy's, ties included (distances on a few levels)."""
    from scipy.cluster.hierarchy import linkage
    from scipy.spatial.distance import squareform

    from trimsa.tree import _cpu

    rng = np.random.default_rng(seed)
    d = rng.integers(0, levels + 1, size=n * (n - 1) // 2) / levels
    Z = linkage(d, method="average")
    joins, heights = _cpu.upgma_joins(squareform(d))
    assert joins.tolist() == Z[:, :2].astype(int).tolist()
    assert heights.tolist() == (Z[:, 2] / 2).tolist()


def test_newick_writer_quotes_names_and_reads_back():
    names = ["plain", "with space", "o'quote", "semi;colon", "under_score"]
    t = GuideTree(names, [(0, 1), (2, 3), (5, 6, 4)], [1, 2, 0.5, 0.25, 1e-7, 3, 0.125, 0], 7)
    text = t.newick()
    assert text == ("((plain:1,'with space':2):3,('o''quote':0.5,'semi;colon':0.25):0.125,"
                    "under_score:1e-07);")
    back = GuideTree.read(_write(text), names)
    assert back.newick() == text
    assert GuideTree(["only"], [], [0.0], 0).newick() == "only;"
    # a double quote and an equals sign: dendropy reads them as Newick syntax unquoted
    odd = ['a"q', "b=1", "c"]
    t = GuideTree(odd, [(0, 1), (3, 2)], [1, 1, 1, 1, 0], 4)
    assert t.newick() == "(('a\"q':1,'b=1':1):1,c:1);"
    assert GuideTree.read(_write(t.newick()), odd).newick() == t.newick()
    assert sorted(x.taxon.label for x in t.to_dendropy().leaf_node_iter()) == sorted(odd)


def _write(text):
    import tempfile

    fh = tempfile.NamedTemporaryFile("w", suffix=".nwk", delete=False)
    fh.write(text)
    fh.close()
    return fh.name


def test_newick_writer_equals_dendropy_on_nj_trees():
    rng = np.random.default_rng(3)
    n = 11
    D = rng.random((n, n)) * 2
    D = D + D.T
    names = [f"t{i}" for i in range(n)]
    tree = neighbor_joining(D, names)
    want = tree.to_dendropy().as_string(
        schema="newick", suppress_rooting=True, unquoted_underscores=True,
        suppress_internal_node_labels=True, real_value_format_specifier=".6g").strip()
    assert tree.newick() == want


def test_kmer_source():
    seqs = random_seqs(9, 80, 2)
    d = kmer_distances(seqs, threads=2)
    assert d.source == "kmer" and d.info == {"k": 6, "device": "cpu"}
    assert np.allclose(d.matrix, d.matrix.T) and (np.diag(d.matrix) == 0).all()
    assert ((d.matrix >= 0) & (d.matrix <= 1)).all()
    assert np.array_equal(kmer_distances(seqs, threads=1).matrix, d.matrix)
    same = kmer_distances([("a", "ACGTACGTAC"), ("b", "ACGTACGTAC"), ("c", "TTTTTTTTTT")])
    assert same.matrix[0, 1] == 0 and same.matrix[0, 2] == 1
    gt = build_guide_tree(seqs, distances="kmer", method="upgma")
    assert gt.distances is not None and gt.distances.source == "kmer"
    assert "6-mer distances" in gt.summary()


def test_tree_matrix_errors():
    with pytest.raises(OptionError):
        neighbor_joining(np.zeros((3, 3)), ["a", "b"])
    with pytest.raises(OptionError):
        upgma(np.full((3, 3), np.nan), ["a", "b", "c"])


# -- build_guide_tree --------------------------------------------------------------------

def test_guide_tree_determinism_and_threads():
    seqs = random_seqs(12, 60, 0)
    kw = dict(triplets="sampled", m=2, band=8, time_budget=1000)
    a = build_guide_tree(seqs, distances="triplet", seed=1, threads=1, **kw)
    b = build_guide_tree(seqs, distances="triplet", seed=1, threads=2, **kw)
    c = build_guide_tree(seqs, distances="triplet", seed=1, threads=0, **kw)
    assert a.newick() == b.newick() == c.newick()
    assert np.array_equal(a.distances.matrix, b.distances.matrix)
    info = a.distances.info
    assert info["triplets"] == "sampled" and info["n_triplets"] > 0 and info["min_support"] >= 2
    assert info["pairs_supported"] == 12 * 11 // 2
    full = build_guide_tree(seqs, distances="triplet", triplets="all", band=8)
    assert full.distances.info["n_triplets"] == 12 * 11 * 10 // 6
    assert full.distances.info["min_support"] == 10
    assert {t.label for t in full.to_dendropy().taxon_namespace} == {f"s{i}" for i in range(12)}


def test_guide_tree_budget_limits_sampling():
    seqs = random_seqs(30, 80, 3)
    gt = build_guide_tree(seqs, distances="triplet", triplets="auto", band=4, time_budget=1e-3)
    info = gt.distances.info
    assert info["triplets"] == "sampled"
    assert info["n_triplets"] >= 1 and info["pairs_supported"] < 30 * 29 // 2


def test_guide_tree_exact_engine_small():
    seqs = random_seqs(6, 20, 4)
    gt = build_guide_tree(seqs, distances="triplet", triplets="all", band=None)
    assert gt.distances.info["engine"] == "exact"
    # the band covers the cube: exact
    gt2 = build_guide_tree(seqs, distances="triplet", triplets="all", band=64)
    np.testing.assert_allclose(gt.distances.info["estimates"], gt2.distances.info["estimates"])


def _two_clusters(rng, length=300):
    """a and c copies of one sequence, b and d of another, the two 25% apart."""
    root = rng.choice(list("ACGT"), length)

    def copy(s, rate):
        s = s.copy()
        flip = rng.random(s.size) < rate
        s[flip] = rng.choice(list("ACGT"), int(flip.sum()))
        return s

    x, y = copy(root, 0.25), copy(root, 0.25)
    return [(name, "".join(copy(src, 0.03))) for name, src in
            (("a", x), ("b", y), ("c", x), ("d", y))]


def _cherries(tree):
    """The pairs of leaves joined directly (the 4-leaf topology)."""
    t = dendropy.Tree.get(data=tree.newick(), schema="newick")
    return {frozenset(leaf.taxon.label for leaf in node.leaf_nodes())
            for node in t.internal_nodes() if len(node.leaf_nodes()) == 2}


@pytest.mark.parametrize("method", ["nj", "upgma"])
def test_four_sequences_take_the_cherries_the_triplets_leave_open_from_the_pairs(method):
    # every triplet of four sequences in two pairs holds one close pair: the triplet
    # scores cannot tell the three pairings apart (docs: UNDERDETERMINED)
    want = {frozenset("ac"), frozenset("bd")}
    for seqs in ([("a", "AAAA"), ("b", "CCCC"), ("c", "AAAA"), ("d", "CCCC")],
                 _two_clusters(np.random.default_rng(7)),
                 _two_clusters(np.random.default_rng(8))):
        gt = build_guide_tree(seqs, distances="triplet", method=method)
        assert gt.distances.info["pairwise_prior"]
        assert _cherries(gt) == want
        # the estimates still fit every triplet score exactly (the exact engine, under
        # run's affine scoring)
        est = gt.distances.info["estimates"]
        trip = all_triplets(4)
        assert gt.distances.info["engine"] == "exact"
        sc = score_triplets(seqs, trip, scoring=Scoring.dna(stage="progressive"))
        fit = est[trip[:, 0], trip[:, 1]] + est[trip[:, 0], trip[:, 2]] + est[trip[:, 1], trip[:, 2]]
        np.testing.assert_allclose(fit, sc, atol=1e-6)


@pytest.mark.gpu
def test_four_sequences_on_the_gpu_give_the_cpu_tree():
    seqs = _two_clusters(np.random.default_rng(9))
    gpu = build_guide_tree(seqs, distances="triplet", device="gpu", band=None)
    cpu = build_guide_tree(seqs, distances="triplet", device="cpu", band=None)
    assert gpu.distances.info["device"] == "gpu" and gpu.distances.info["pairwise_prior"]
    assert gpu.newick() == cpu.newick()
    assert _cherries(gpu) == {frozenset("ac"), frozenset("bd")}


@pytest.mark.gpu
@pytest.mark.parametrize("options", [dict(triplets="all"), dict(triplets="sampled", m=2)],
                         ids=["all", "sampled"])
def test_affine_triplet_distances_on_the_gpu_equal_the_cpus(options):
    seqs = random_seqs(9, 60, 3)
    sc = Scoring.dna(gap_open=-3, gap_extend=-1)
    gpu = build_guide_tree(seqs, distances="triplet", scoring=sc, device="gpu", band=None,
                           **options)
    cpu = build_guide_tree(seqs, distances="triplet", scoring=sc, device="cpu", band=None,
                           **options)
    assert gpu.distances.info["device"] == "gpu" and cpu.distances.info["device"] == "cpu"
    assert gpu.distances.info["engine"] == cpu.distances.info["engine"] == "exact"
    np.testing.assert_array_equal(gpu.distances.info["estimates"],
                                  cpu.distances.info["estimates"])
    assert gpu.newick() == cpu.newick()


@pytest.mark.parametrize("options", [dict(triplets="all", band=None),
                                     dict(triplets="all", band=4),
                                     dict(triplets="sampled", band=None, m=3),
                                     dict(triplets="sampled", band=4, m=3)],
                         ids=["all-exact", "all-band", "sampled-exact", "sampled-band"])
def test_triplet_progress_reports_every_block_and_changes_nothing(options, monkeypatch):
    from trimsa.tree import distances

    monkeypatch.setattr(distances, "PROGRESS_BLOCK", 7)
    seqs = random_seqs(14, 30, 2)
    calls = []
    quiet = build_guide_tree(seqs, distances="triplet", **options)
    shown = build_guide_tree(seqs, distances="triplet", progress=lambda *a: calls.append(a),
                             **options)
    np.testing.assert_array_equal(shown.distances.matrix, quiet.distances.matrix)
    assert shown.newick() == quiet.newick()
    info = shown.distances.info
    stages = ["tree: triplets"]
    if options["triplets"] == "sampled":   # the prior's pairs first, then the triplets
        stages.insert(0, "tree: pairwise prior")
        assert [c[2] for c in calls] == sorted((c[2] for c in calls), key=stages.index)
    assert {c[2] for c in calls} == set(stages)
    for stage, total in zip(stages, [info["prior_pairs"], info["n_triplets"]][-len(stages):]):
        mine = [c for c in calls if c[2] == stage]
        assert len(mine) > 1 and [c[1] for c in mine] == [total] * len(mine)
        done = [c[0] for c in mine]
        assert done == sorted(done) and done[-1] == total and len(set(done)) == len(done)


def test_triplet_distances_count_their_cells():
    import itertools

    seqs = random_seqs(9, 25, 6)
    L = [len(s) for _, s in seqs]
    want = sum(a * b * c for a, b, c in itertools.combinations(L, 3))
    full = build_guide_tree(seqs, distances="triplet", triplets="all", band=None)
    assert full.distances.info["cells"] == want
    sampled = build_guide_tree(seqs, distances="triplet", triplets="sampled", band=None,
                               m=2).distances.info
    assert 0 < sampled["cells"] < want
    # the banded kernel: (longest + 1) (2w + 1)^2 per triplet
    band = sum((max(t) + 1) * 9 ** 2 for t in itertools.combinations(L, 3))
    gt = build_guide_tree(seqs, distances="triplet", triplets="all", band=4)
    assert gt.distances.info["cells"] == band and f"; {band:.3g} triplet cells in" in gt.summary()
    d = build_guide_tree(seqs, distances="triplet", triplets="sampled", band=4, m=2).distances.info
    assert 0 < d["cells"] < band and d["cells"] % 81 == 0


def test_three_sequences_join_the_closest_pair_first():
    seqs = [("a", "ACGTTGCAAC"), ("b", "TTTTGGGGCC"), ("c", "ACGTTGCATC")]
    gt = build_guide_tree(seqs, distances="triplet", method="upgma")
    assert _cherries(gt) == {frozenset("ac")}
    assert not build_guide_tree(random_seqs(5, 30, 1),
                                distances="triplet").distances.info["pairwise_prior"]


def test_guide_tree_bad_options():
    seqs = random_seqs(5, 20, 0)
    with pytest.raises(TooFewSequencesError):
        build_guide_tree(seqs[:2], distances="triplet")
    with pytest.raises(OptionError):
        build_guide_tree(seqs, distances="triplet", m=4)
    with pytest.raises(OptionError):
        build_guide_tree(seqs, distances="triplet", method="ml")
    with pytest.raises(OptionError):
        build_guide_tree(seqs, distances="triplet", band=4, mode="local")
    with pytest.raises(OptionError, match="take no option 'band'"):
        build_guide_tree(seqs, distances="kmer", band=4)
    with pytest.raises(OptionError, match="distance source"):
        build_guide_tree(seqs, distances="ml")
    with pytest.raises(OptionError, match="band must be an integer"):
        build_guide_tree(seqs, distances="triplet", band="x")


def test_guide_tree_close_to_true_tree():
    true = dendropy.Tree.get(path=str(DATA / "tree_N16_h0.5.nwk"), schema="newick")
    gt = build_guide_tree(N16, distances="triplet", triplets="sampled", m=3)
    # 13 internal splits; pairwise-NJ and Clustal Omega get 0-1 wrong here
    assert rf(true, gt) <= 4


# -- CLI ------------------------------------------------------------------------------------

@pytest.fixture
def run_cli(capsys):
    def run(*argv):
        code = cli.main(["tree", *map(str, argv)])
        out = capsys.readouterr()
        return code, out.out, out.err

    return run


def small_fasta(tmp_path, n, length=40):
    p = tmp_path / "in.fa"
    p.write_text("".join(f">{name}\n{s}\n" for name, s in random_seqs(n, length, 7)))
    return p


def test_cli_writes_tree(run_cli, tmp_path):
    inp = small_fasta(tmp_path, 8)
    out = tmp_path / "t.nwk"
    code, _, err = run_cli(inp, "-o", out, "--band", "6", "-v", "--threads", "1",
                           "--tree-distances", "triplet")
    assert code == 0
    text = out.read_text()
    assert text.count("\n") == 1 and text.strip().endswith(";")
    tree = dendropy.Tree.get(data=text, schema="newick")
    assert {t.label for t in tree.taxon_namespace} == {f"s{i}" for i in range(8)}
    assert err.count("\n") == 1 and "triplets" in err
    code, _, _ = run_cli(inp, "-o", tmp_path / "u.nwk", "--method", "upgma", "--band", "6",
                         "--triplets", "sampled", "--m", "2", "--tree-distances", "triplet")
    assert code == 0
    # the default: pairwise scores, the same tree as the API's
    code, _, err = run_cli(inp, "-o", tmp_path / "p.nwk", "-v", "--band", "6")
    assert code == 0 and "banded pairwise scores (half-width 6" in err
    want = build_guide_tree(read_sequences(inp), band=6).newick()
    assert (tmp_path / "p.nwk").read_text() == want + "\n"


@pytest.mark.parametrize("case", ["two", "m_high", "m_zero", "missing", "threads", "budget"])
def test_cli_bad_input(run_cli, tmp_path, case):
    out = tmp_path / "t.nwk"
    inp = small_fasta(tmp_path, 2 if case == "two" else 5)
    extra = {"m_high": ["--m", "4"], "m_zero": ["--m", "0"], "threads": ["--threads", "-1"],
             "budget": ["--time-budget", "0"]}.get(case, [])
    if case == "missing":
        inp = tmp_path / "nope.fa"
    code, _, err = run_cli(inp, "-o", out, "--tree-distances", "triplet", *extra)
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("trimsa tree: error:")
    assert not out.exists()


@pytest.mark.parametrize("method", ["nj", "upgma"])
def test_three_sequence_tree_round_trips_through_run(run_cli, tmp_path, method):
    """With three sequences the NJ midpoint can fall on a sequence: it stays a leaf."""
    tree, out = tmp_path / "t.nwk", tmp_path / "aln.fa"
    assert run_cli(DATA / "trip3.fa", "-o", tree, "--method", method)[0] == 0
    text = tree.read_text().strip()
    back = GuideTree.read(tree, ["A", "B", "C"])
    assert back.newick() == text and len(back.children[back.root - 3]) == 2
    assert cli.main(["run", str(DATA / "trip3.fa"), "--guide-tree", str(tree), "-o", str(out)]) == 0


@pytest.mark.parametrize("n", [4, 5, 9, 17, 40])
def test_nj_midpoint_root_is_dendropys(n):
    """The NJ tree's midpoint rooting against dendropy's ``reroot_at_midpoint`` on the same
    unrooted tree (random distances, no ties): the same rooted clades and leaf depths."""
    rng = np.random.default_rng(n)
    X = rng.random((n, 4))
    D = np.sqrt(((X[:, None] - X[None]) ** 2).sum(-1)) + rng.random((n, n)) * 0.1
    D = (D + D.T) / 2
    np.fill_diagonal(D, 0.0)
    names = [f"t{i}" for i in range(n)]
    ours = neighbor_joining(D, names).to_dendropy()
    ref = neighbor_joining(D, names, root=False).to_dendropy()
    ref.is_rooted = True
    ref.reroot_at_midpoint(update_bipartitions=False, suppress_unifurcations=True)

    def clades_and_depths(tree):
        clades, depth = set(), {}
        for nd in tree.postorder_node_iter():
            if not nd.is_leaf():
                clades.add(frozenset(lf.taxon.label for lf in nd.leaf_iter()))
        for lf in tree.leaf_node_iter():
            depth[lf.taxon.label] = lf.distance_from_root()
        return clades, depth

    c1, d1 = clades_and_depths(ours)
    c2, d2 = clades_and_depths(ref)
    assert c1 == c2
    for name in names:
        assert d1[name] == pytest.approx(d2[name], abs=1e-9)


def test_nj_never_leaves_a_sequence_on_an_internal_node():
    # B sits at the centre of the star (branch 0): the midpoint of A-C is B's node
    D = np.array([[0, 2, 4], [2, 0, 2], [4, 2, 0]], float)
    t = neighbor_joining(D, ["A", "B", "C"])
    assert sorted(t.leaves()) == [0, 1, 2] and len(t.children[t.root - 3]) == 2
    np.testing.assert_allclose(patristic(t, ["A", "B", "C"]), D)
    # the root is the midpoint of the longest path, A-C: 2 from either end
    depth = {t.root: 0.0}
    for v in reversed(t.postorder()):
        for c in t.children[v - 3]:
            depth[c] = depth[v] + t.length[c]
    assert depth[0] == depth[2] == 2.0


@pytest.mark.skipif(shutil.which("clustalo") is None, reason="clustalo not installed")
@pytest.mark.parametrize("method", ["nj", "upgma"])
def test_clustalo_accepts_tree(run_cli, tmp_path, method):
    inp = small_fasta(tmp_path, 8)
    out = tmp_path / "t.nwk"
    assert run_cli(inp, "-o", out, "--method", method, "--band", "6")[0] == 0
    res = subprocess.run(["clustalo", "-i", str(inp), f"--guidetree-in={out}", "-o",
                          str(tmp_path / "aln.fa"), "--force"], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr


def test_gpu_device_goes_through_score_triplets(monkeypatch):
    """device="gpu" uses the exact engine via score_triplets(device="gpu") and the GPU rate."""
    from trimsa.triplet import _gpu, devices

    from .fakes import FakeDevices

    fake = FakeDevices(1)
    monkeypatch.setattr(_gpu, "available", lambda: "FakeGPU")
    monkeypatch.setattr(_gpu, "require", lambda: None)
    monkeypatch.setattr(devices.CupyBackend, "shared", classmethod(lambda cls, precision=None: fake))
    seqs = random_seqs(7, 15, 9)
    gt = build_guide_tree(seqs, distances="triplet", device="gpu", time_budget=10)
    info = gt.distances.info
    assert info["engine"] == "exact" and info["triplets"] == "all" and info["n_triplets"] == 35
    assert info["device"] == "gpu"
    assert sum(len(b[1]) for b in fake.batches) >= 35
    cpu = build_guide_tree(seqs, distances="triplet", device="cpu", band=None, triplets="all")
    np.testing.assert_allclose(info["estimates"], cpu.distances.info["estimates"])
    with pytest.raises(OptionError):
        build_guide_tree(seqs, distances="triplet", device="gpu", band=8)


def test_triplets_keep_a_share_of_the_budget_when_the_prior_overruns(monkeypatch):
    from trimsa.tree import distances

    assert distances.triplet_seconds(10.0, 3.0) == 7.0
    assert distances.triplet_seconds(10.0, 50.0) == distances.TRIPLET_SHARE * 10.0
    # a prior estimated to take longer than the whole budget still leaves triplets to score
    from trimsa.triplet import plan

    monkeypatch.setitem(plan.RATES, ("cpu", "band-pair"), plan.Rate(cells_per_s=10.0))
    d = distances.triplet_distances(random_seqs(12, 40, 3), triplets="sampled",
                                    time_budget=0.5, threads=1, band=None)
    assert d.info["n_triplets"] > 12


def test_a_prior_of_all_pairs_is_their_banded_scores():
    from trimsa.tree import distances

    seqs = as_sequence_set(random_seqs(10, 50, 2))
    sc = Scoring.dna(gap_open=-3, gap_extend=-1)
    prior, scored = distances.pairwise_prior(seqs, sc, 8, -0.4, 45, threads=1)
    iu, ju = np.triu_indices(10, 1)
    want = band_pair_scores(seqs, np.stack([iu, ju], 1), band=8, scoring=sc, threads=1)
    assert scored == 45
    np.testing.assert_array_equal(prior[iu, ju], want)
    np.testing.assert_array_equal(prior, prior.T)
    np.testing.assert_array_equal(np.diag(prior), distances.self_scores(seqs, sc))


def test_a_partial_prior_scores_near_pairs_and_fills_the_others_from_kmer_distances(
        monkeypatch):
    from trimsa.tree import distances

    n = 60
    seqs = as_sequence_set(random_seqs(n, 120, 6))
    sc = Scoring.dna(gap_open=-3, gap_extend=-1)
    rho = distances.random_rate(seqs, triplet=False, band=8, scoring=sc, threads=1)
    iu, ju = np.triu_indices(n, 1)
    prior, scored = distances.pairwise_prior(seqs, sc, 8, rho, 500, threads=1, seed=3)
    assert n + 200 <= scored <= 500 < iu.size
    again, _ = distances.pairwise_prior(seqs, sc, 8, rho, 500, threads=1, seed=3)
    np.testing.assert_array_equal(prior, again)
    np.testing.assert_array_equal(prior, prior.T)
    full = band_pair_scores(seqs, np.stack([iu, ju], 1), band=8, scoring=sc, threads=1)
    est = prior[iu, ju]
    assert np.count_nonzero(est == full) >= scored   # scored pairs keep their scores
    Dk = kmer_distances(seqs, threads=1).matrix
    masked = Dk + np.diag(np.full(n, np.inf))
    for i in range(n):   # each sequence's two nearest neighbours are scored
        for k in np.argsort(masked[i], kind="stable")[:2]:
            a, b = min(i, k), max(i, k)
            assert prior[a, b] == full[np.flatnonzero((iu == a) & (ju == b))[0]]
    L = seqs.lengths.astype(float)
    e = rho * (L[iu] + L[ju]) / 2
    self_sc = distances.self_scores(seqs, sc)
    top = (self_sc[iu] + self_sc[ju]) / 2 - e

    # without the per-sequence offsets (damped to nothing), the others' similarity
    # falls (weakly) with k-mer distance
    monkeypatch.setattr(distances, "PRIOR_DAMP", 1e12)
    plain, _ = distances.pairwise_prior(seqs, sc, 8, rho, 500, threads=1, seed=3)
    rest = plain[iu, ju] != full
    x = (plain[iu, ju] - e) / top
    order = np.argsort(Dk[iu, ju][rest], kind="stable")
    assert rest.sum() > iu.size // 2
    assert np.all(np.diff(x[rest][order]) <= 1e-9)
    # the offsets are one per sequence: what they add to a pair is c_i + c_j
    add = ((prior - plain)[iu, ju] / top)[rest]
    A = np.zeros((rest.sum(), n))
    A[np.arange(rest.sum()), iu[rest]] = A[np.arange(rest.sum()), ju[rest]] = 1
    c = np.linalg.lstsq(A, add, rcond=None)[0]
    np.testing.assert_allclose(A @ c, add, atol=1e-9)
    assert np.abs(add).max() > 1e-6


def test_a_sampled_design_keeps_its_prior_within_its_share_of_the_budget():
    from trimsa.tree import distances

    seqs = random_seqs(60, 120, 6)
    budget = 0.05
    d = distances.triplet_distances(seqs, triplets="sampled", time_budget=budget, threads=1)
    n, pairs = 60, 60 * 59 // 2
    cells = (np.mean([len(s) for _, s in seqs]) + 1) * (2 * 32 + 1)
    rate = distances._rate("cpu", "band-pair", 1)
    assert d.info["prior_pairs"] < pairs
    assert d.info["prior_pairs"] * cells / rate <= distances.PRIOR_SHARE * budget + 1e-9 \
        or d.info["prior_pairs"] <= n + 200   # the least a partial prior scores
    assert "from k-mer distances" in d.describe()
    assert distances.PRIOR_SHARE + distances.TRIPLET_SHARE == 1.0
    big = distances.triplet_distances(seqs, triplets="sampled", time_budget=1e4, threads=1,
                                      m=2)
    assert big.info["prior_pairs"] == pairs and "k-mer" not in big.describe()
    gt = build_guide_tree(seqs, distances="triplet", triplets="sampled", time_budget=budget,
                          threads=1)
    assert {t.label for t in gt.to_dendropy().taxon_namespace} == {f"s{i}" for i in range(n)}


def test_triplet_distances_check_their_memory_first(monkeypatch):
    from trimsa.errors import ResourceError
    from trimsa.tree import distances
    from trimsa.triplet import _checks

    seqs = random_seqs(30, 40, 2)
    need = distances.TRIPLET_ARRAYS * 8 * 30 * 30
    scored = []
    monkeypatch.setattr(distances, "band_pair_scores",
                        lambda *a, **k: scored.append(1) or np.zeros(0))
    monkeypatch.setattr(_checks, "available_memory", lambda: need - 1)
    with pytest.raises(ResourceError, match="triplets of 30 sequences"):
        build_guide_tree(seqs, distances="triplet", time_budget=1)
    assert not scored   # nothing was scored before the error
    monkeypatch.undo()
    monkeypatch.setattr(_checks, "available_memory", lambda: need)
    # (the banded kernel: the exact engine's own memory check would refuse so little)
    assert build_guide_tree(seqs, distances="triplet", time_budget=1, band=8).n == 30


def test_nj_float32_bounds_are_below_their_distances():
    from trimsa.tree import _cpu

    rng = np.random.default_rng(11)
    vals = np.concatenate([
        rng.random(2000) * 10.0 ** rng.integers(-320, 308, 2000),   # subnormal to huge
        -rng.random(2000) * 10.0 ** rng.integers(-320, 308, 2000),
        [0.0, -0.0, 1e-45, 2.1827476496979694e-43, -1e-50, 3.4028234663852886e38,
         3.4028235e38, 1e39, -1e39, 1.1754943508222875e-38, -1.1754943508222875e-38]])
    low = np.array([_cpu._f32_below(v) for v in vals], dtype=np.float64)
    assert np.all(low <= vals)
    normal = (np.abs(vals) >= 1.2e-38) & (np.abs(vals) <= 3.4e38)
    assert np.all(np.abs(vals[normal] - low[normal]) <= 2.0 ** -19 * np.abs(vals[normal]))


def test_nj_checks_its_memory_first(monkeypatch):
    from trimsa.errors import ResourceError
    from trimsa.tree import neighbor_joining
    from trimsa.triplet import _checks

    D = np.random.default_rng(3).random((20, 20))
    D = D + D.T
    names = [f"s{i}" for i in range(20)]
    need = 2 * 8 * 20 * 20
    monkeypatch.setattr(_checks, "available_memory", lambda: need - 1)
    with pytest.raises(ResourceError, match="neighbour joining of 20 sequences"):
        neighbor_joining(D, names)
    monkeypatch.setattr(_checks, "available_memory", lambda: need)
    assert neighbor_joining(D, names).n == 20


def test_a_sampled_design_does_not_depend_on_how_long_its_steps_took(monkeypatch):
    from trimsa.tree import distances

    seqs = random_seqs(30, 60, 5)
    first = distances.triplet_distances(seqs, triplets="sampled", time_budget=0.05, threads=1)
    slow_prior = distances.band_pair_scores

    def slow(*a, **k):
        import time
        time.sleep(0.2)
        return slow_prior(*a, **k)

    monkeypatch.setattr(distances, "band_pair_scores", slow)
    again = distances.triplet_distances(seqs, triplets="sampled", time_budget=0.05, threads=1)
    assert again.timings["prior"] > 0.2
    assert again.info["n_triplets"] == first.info["n_triplets"]
    np.testing.assert_array_equal(again.matrix, first.matrix)


def test_pruned_designs_stop_at_their_cells_not_their_seconds(monkeypatch):
    """On the CPU a sampled design of exact pruned triplets is scored block by block until
    the blocks' cells reach the budget: a prefix of the design, the exact scores of its
    triplets, the same on any thread count and however slow the blocks were."""
    from trimsa.tree import distances
    from trimsa.triplet import pruned

    seqs = as_sequence_set(random_seqs(24, 50, 3))
    sc = Scoring.dna(stage="progressive")
    D = np.abs(np.subtract.outer(np.arange(24.0), np.arange(24.0)))
    trip, _ = distances.sample_triplets(D, 3, 600, seed=1)
    monkeypatch.setattr(distances, "SWEEP_BLOCK", 16)   # of 24 sequences
    one = distances.scores_within(seqs, trip, sc, 0.01, 1)
    k = one.size
    assert k % 16 == 0 and 16 <= k < len(trip)
    np.testing.assert_array_equal(one, score_triplets(seqs, trip[:k], scoring=sc))
    # two threads, the same budget per thread: the same prefix
    np.testing.assert_array_equal(distances.scores_within(seqs, trip, sc, 0.005, 2), one)
    # at least one block, and every block with a budget that covers them all
    assert distances.scores_within(seqs, trip, sc, 0.0, 1).size == 16
    assert distances.scores_within(seqs, trip, sc, 1e9, 1).size == len(trip)
    slow = pruned.score_cpu

    def sleepy(*a, **k):
        import time
        time.sleep(0.05)
        return slow(*a, **k)

    monkeypatch.setattr(pruned, "score_cpu", sleepy)
    np.testing.assert_array_equal(distances.scores_within(seqs, trip, sc, 0.01, 1), one)
    # the design's support counts the triplets scored
    got = distances.triplet_distances(seqs, triplets="sampled", time_budget=0.05, threads=1)
    assert got.info["engine"] == "exact"
    assert got.info["n_triplets"] <= distances.SWEEP_HEADROOM * 0.05 * 3e9 / 51 ** 3 + 16


def test_check_matrix_symmetrizes_as_the_mean_with_the_transpose():
    from trimsa.tree.cluster import check_matrix

    rng = np.random.default_rng(11)
    for n in (2, 3, 17, 64):
        D = rng.random((n, n)) * 3
        got = check_matrix(D, [f"t{i}" for i in range(n)])
        np.testing.assert_array_equal(got, (D + D.T) / 2.0)
        assert got is not D and not np.shares_memory(got, D)


def test_band_wider_than_the_sequences_is_the_widest_band_and_seed_is_checked():
    from trimsa.errors import OptionError
    from trimsa.tree import distances

    seqs = random_seqs(6, 30, 9)
    longest = max(len(s) for _, s in seqs)
    wide = distances.triplet_distances(seqs, band=longest, device="cpu", threads=1)
    huge = distances.triplet_distances(seqs, band=10 ** 6, device="cpu", threads=1)
    assert wide.info["engine"] == huge.info["engine"] == f"band{longest}"
    np.testing.assert_array_equal(wide.matrix, huge.matrix)
    with pytest.raises(OptionError, match="seed must be >= 0"):
        distances.triplet_distances(seqs, seed=-1, device="cpu")


@pytest.mark.parametrize("options, words", [
    (dict(distances="kmer", threads="a"), "threads must be an integer"),
    (dict(distances="kmer", matrix_bytes="a"), "matrix_bytes must be a number"),
    (dict(distances="triplet", damp="a"), "damp must be a number"),
    (dict(distances="triplet", damp=float("nan")), "damp must be a number"),
    (dict(distances="triplet", time_budget=-1.0), "time_budget must be a number"),
])
def test_build_guide_tree_names_a_bad_option(options, words):
    from trimsa.errors import OptionError

    with pytest.raises(OptionError, match=words):
        build_guide_tree(random_seqs(5, 30, 2), **options)


# -- pair-score distances ---------------------------------------------------------------

def test_pair_scores_with_a_full_band_are_exact_affine_global_scores():
    """The estimates are Biopython's global scores under the same natural affine gaps (a
    run of L gaps: open + extend L), the distances their score deficits."""
    from Bio.Align import PairwiseAligner

    from trimsa.tree import distances

    seqs = as_sequence_set(random_seqs(7, 36, 11))
    sc = Scoring.dna(2, -1, gap_open=-4, gap_extend=-1)
    d = distances.pair_score_distances(seqs, scoring=sc, band=100, threads=1)
    al = PairwiseAligner(mode="global", match_score=2, mismatch_score=-1, open_gap_score=-5,
                         extend_gap_score=-1)
    est = d.info["estimates"]
    for i in range(7):
        for j in range(i + 1, 7):
            assert est[i, j] == est[j, i] == al.score(seqs.sequences[i], seqs.sequences[j])
    assert d.info["band"] == int(seqs.lengths.max()) and d.info["prior_pairs"] == 21
    assert np.allclose(d.matrix, d.matrix.T) and np.all(np.diag(d.matrix) == 0)
    # less similar pairs are further apart
    x = est[np.triu_indices(7, 1)] / seqs.lengths.mean()
    D = d.matrix[np.triu_indices(7, 1)]
    assert np.corrcoef(x, D)[0, 1] < -0.9


def test_pair_score_default_tree_and_its_options():
    seqs = as_sequence_set(random_seqs(12, 40, 3))
    gt = build_guide_tree(seqs, band=8, threads=1)
    assert gt.distances.source == "pair-score" and gt.method == "nj"
    assert gt.distances.info["cells"] == sum(
        (max(a, b) + 1) * 17 for a, b in zip(*(seqs.lengths[k] for k in np.triu_indices(12, 1))))
    assert "pairwise cells" in gt.summary()
    # each stage's time, in the order they ran, adding up to the total
    assert list(gt.timings) == ["pairs", "distances", "nj"]
    stages = re.search(r" in ([0-9.]+) s \(pairs ([0-9.]+) s, distances ([0-9.]+) s, "
                       r"nj ([0-9.]+) s\)$", gt.summary())
    assert stages and abs(float(stages[1]) - sum(map(float, stages.groups()[1:]))) <= 0.15
    # the same tree on one or two threads, and again
    again = build_guide_tree(seqs, band=8, threads=2)
    np.testing.assert_array_equal(gt.distances.matrix, again.distances.matrix)
    # a budget below all pairs: some scored (at least n near ones and 200 at random), the
    # others from k-mer distances; deterministic
    calls = []
    many = as_sequence_set(random_seqs(30, 40, 4))
    part = build_guide_tree(many, band=8, threads=1, time_budget=1e-4,
                            progress=lambda *a: calls.append(a))
    info = part.distances.info
    assert 200 <= info["prior_pairs"] < 435 and info["cells"] is None
    assert "the others' from k-mer distances" in part.distances.describe()
    assert calls and {c[2] for c in calls} == {"tree: pairwise scores"}
    assert calls[-1][0] == calls[-1][1] == info["prior_pairs"]
    np.testing.assert_array_equal(part.distances.matrix, build_guide_tree(
        many, band=8, threads=1, time_budget=1e-4).distances.matrix)
    # two sequences are enough
    assert build_guide_tree(random_seqs(2, 30, 5)).n == 2


@pytest.mark.parametrize("options, words", [
    (dict(band=0), "band must be an integer >= 1"),
    (dict(band=2.5), "band must be an integer >= 1"),
    (dict(transform="log"), "unknown distance transform"),
    (dict(seed=-1), "seed must be >= 0"),
    (dict(time_budget=0.0), "time budget must be positive"),
    (dict(m=3), "pair-score distances take no option 'm'"),
    (dict(scheduler="tcp://localhost:8786"), "take no option 'scheduler'"),
])
def test_pair_score_bad_options(options, words):
    with pytest.raises(OptionError, match=words):
        build_guide_tree(random_seqs(5, 30, 2), distances="pair-score", **options)


@pytest.mark.parametrize("extra, words", [
    (["--m", "2"], "--m applies to triplet distances, not to --tree-distances pair-score"),
    (["--mode", "local"], "--mode applies to triplet distances"),
    (["--tree-distances", "kmer", "--band", "4"], "--band applies to pair-score and triplet"),
])
def test_cli_pair_score_options(run_cli, tmp_path, extra, words):
    out = tmp_path / "t.nwk"
    code, _, err = run_cli(small_fasta(tmp_path, 5), "-o", out, *extra)
    assert code == 2 and words in err and err.count("\n") == 1
    assert not out.exists()


def test_cli_pair_score_exact_band(run_cli, tmp_path):
    inp = small_fasta(tmp_path, 6)
    out = tmp_path / "t.nwk"
    code, _, err = run_cli(inp, "-o", out, "--band", "exact", "-v")
    longest = int(read_sequences(inp).lengths.max())
    assert code == 0 and f"half-width {longest}," in err


def test_newick_writes_no_negative_zero_lengths():
    """Feng-Doolittle distances of identical sequences are -ln(1) = -0.0; UPGMA's
    branch lengths between them are then -0.0, which Newick should read 0."""
    seqs = [("a", "ACGTACGTAC"), ("b", "ACGTACGTAC"), ("c", "ACGTACGTAC"), ("d", "ACGAACGTTC")]
    text = build_guide_tree(seqs, transform="fd", method="upgma", threads=1).newick()
    assert "-0" not in text and ":0," in text


def test_pair_scores_on_the_gpu_without_cupy_say_what_to_install(monkeypatch):
    import sys

    from trimsa.errors import BackendUnavailableError

    monkeypatch.setitem(sys.modules, "cupy", None)
    with pytest.raises(BackendUnavailableError, match="CuPy"):
        build_guide_tree(random_seqs(5, 30, 2), device="gpu")
    assert build_guide_tree(random_seqs(5, 30, 2), device="auto").distances.info["device"] \
        == "cpu"


def _random_set(rng, n, alphabet, lo, hi):
    return [(f"r{i}", "".join(rng.choice(list(alphabet), int(rng.integers(lo, hi + 1)))))
            for i in range(n)]


@pytest.mark.gpu
@pytest.mark.parametrize("protein", [False, True], ids=["dna", "protein"])
def test_band_pair_scores_on_the_gpu_equal_the_cpus(protein):
    """Random sets of lengths 1-300 (equal lengths, a pair with itself, both orders),
    linear and affine gaps, bands from 1 to wider than the sequences."""
    rng = np.random.default_rng(17 + protein)
    letters = "ACDEFGHIKLMNPQRSTVWY" if protein else "ACGT"
    for trial in range(6):
        twin = "".join(letters[k % len(letters)] for k in range(4 + trial))
        twins = [("same1", twin), ("same2", twin)]
        seqs = as_sequence_set(_random_set(rng, 24, letters, 1, 300) + twins)
        n = len(seqs)
        pairs = rng.integers(0, n, size=(400, 2))
        pairs = np.concatenate([pairs, pairs[:, ::-1], [[n - 2, n - 1], [n - 1, n - 2], [0, 0]]])
        if protein:
            sc = Scoring.for_alphabet(seqs.alphabet, stage="progressive") if trial % 2 else \
                Scoring.for_alphabet(seqs.alphabet, gap=-4)
        else:
            sc = Scoring.dna(2, -1, gap_open=-5, gap_extend=-1) if trial % 2 else \
                Scoring.dna(1, -1, gap=-3)
        for band in (1, 3, 32, 400):
            cpu = band_pair_scores(seqs, pairs, band=band, scoring=sc, threads=2)
            gpu = band_pair_scores(seqs, pairs, band=band, scoring=sc, device="gpu")
            np.testing.assert_array_equal(gpu, cpu)


@pytest.mark.gpu
@pytest.mark.parametrize("budget", [240.0, 1e-7], ids=["all-pairs", "partial"])
def test_pair_score_distances_on_the_gpu_equal_the_cpus(budget):
    """The same pairs give the same distances; a budget this small scores the least
    set of pairs (n near ones and 200 at random) at either device's rate."""
    seqs = as_sequence_set(random_seqs(40, 80, 5))
    gpu = build_guide_tree(seqs, device="gpu", time_budget=budget)
    cpu = build_guide_tree(seqs, device="cpu", time_budget=budget, threads=2)
    assert gpu.distances.info["device"] == "gpu" and cpu.distances.info["device"] == "cpu"
    assert gpu.distances.info["prior_pairs"] == cpu.distances.info["prior_pairs"]
    np.testing.assert_array_equal(gpu.distances.matrix, cpu.distances.matrix)
    assert gpu.newick() == cpu.newick()
