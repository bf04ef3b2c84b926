"""The progressive aligner: profile DP against a brute-force reference, and alignments."""

from __future__ import annotations

import itertools
import random
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trimsa.errors import InputFormatError, OptionError
from trimsa.io import as_sequence_set
from trimsa.progressive import _cpu, engine
from trimsa.progressive.api import Aligner, align
from trimsa.scoring import Scoring
from trimsa.tree import GuideTree

DATA = Path(__file__).parent / "data"


# -- a brute-force reference for the profile DP --------------------------------
def all_paths(la, lb):
    """Every alignment path of two profiles (0 both, 1 A only, 2 B only)."""
    if la == 0 and lb == 0:
        yield ()
        return
    if la and lb:
        for p in all_paths(la - 1, lb - 1):
            yield p + (0,)
    if la:
        for p in all_paths(la - 1, lb):
            yield p + (1,)
    if lb:
        for p in all_paths(la, lb - 1):
            yield p + (2,)


def path_score(path, S, ra, rb, oa, ob, go, ge):
    """The score the model gives one path, computed column by column (gap scores ``go, ge <= 0``)."""
    la, lb = S.shape
    i = j = 0
    total = 0.0
    prev = 0
    for op in path:
        if op == 0:
            total += S[i, j]
            i += 1
            j += 1
        elif op == 1:
            if prev != 1:
                total += go * ra[i] * ob[j]
            total += ge * ra[i]
            i += 1
        else:
            if prev != 2:
                total += go * rb[j] * oa[i]
            total += ge * rb[j]
            j += 1
        prev = op
    return total


profiles = st.tuples(st.integers(0, 4), st.integers(0, 4), st.integers(0, 2**31 - 1))


@settings(max_examples=60, deadline=None)
@given(profiles, st.sampled_from([(-3.0, -1.0), (0.0, -1.0), (-5.0, -0.5)]))
def test_profile_dp_matches_brute_force(dims, costs):
    la, lb, seed = dims
    if la + lb == 0:
        return
    rng = np.random.default_rng(seed)
    S = rng.uniform(-2, 2, (la, lb)).astype(np.float32)
    ra = rng.uniform(0.05, 1, la).astype(np.float32)
    rb = rng.uniform(0.05, 1, lb).astype(np.float32)
    oa = rng.uniform(0, 1, la + 1).astype(np.float32)
    ob = rng.uniform(0, 1, lb + 1).astype(np.float32)
    go, ge = costs
    if seed % 2:  # scores through the extra matrix
        GA, FB, extra = np.zeros((la, 1), np.float32), np.zeros((lb, 1), np.float32), S
    else:  # scores as GA . FB with FB the identity
        GA, FB, extra = S.copy(), np.eye(lb, dtype=np.float32), np.zeros((0, 0), np.float32)
    out = np.empty(la + lb, np.int8)
    npath, score = _cpu.profile_dp(GA, FB, extra, ra, rb, oa, ob, np.float32(go), np.float32(ge),
                                   out)
    path = out[:npath]
    best = max(path_score(p, S, ra, rb, oa, ob, go, ge) for p in all_paths(la, lb))
    assert score == pytest.approx(best, abs=1e-3)
    # the path returned is a valid alignment path achieving the score
    assert int((path != 2).sum()) == la and int((path != 1).sum()) == lb
    assert path_score(tuple(path), S, ra, rb, oa, ob, go, ge) == pytest.approx(best, abs=1e-3)


def test_boundary_weights_are_the_terminal_factor_at_the_ends():
    sc = engine.ProfileScoring(np.zeros((2, 2), np.float32), -3.0, -1.0, 0.5)
    assert engine.boundary_weights(4, sc).tolist() == [0.5, 1, 1, 1, 0.5]


def test_path_maps():
    path = np.array([0, 1, 2, 0, 2], np.int8)
    ma, mb = np.empty(3, np.int64), np.empty(4, np.int64)
    _cpu.path_maps(path, ma, mb)
    assert ma.tolist() == [0, 1, 3]
    assert mb.tolist() == [0, 2, 3, 4]


# -- whole alignments ------------------------------------------------------------
def evolve(n, length, seed):
    """Random related DNA sequences (substitutions and short indels)."""
    rnd = random.Random(seed)
    root = [rnd.choice("ACGT") for _ in range(length)]
    out = []
    for i in range(n):
        s = list(root)
        for _ in range(rnd.randint(0, 6)):
            p = rnd.randrange(len(s))
            if rnd.random() < 0.5 and len(s) > 5:
                del s[p:p + rnd.randint(1, 3)]
            else:
                s[p:p] = [rnd.choice("ACGT") for _ in range(rnd.randint(1, 3))]
        for p in range(len(s)):
            if rnd.random() < 0.1:
                s[p] = rnd.choice("ACGT")
        out.append((f"s{i}", "".join(s)))
    return out


def check_alignment(res, pairs):
    assert res.names == tuple(n for n, _ in pairs)
    width = len(res.rows[0])
    assert all(len(r) == width for r in res.rows)
    assert [r.replace("-", "") for r in res.rows] == [s for _, s in pairs]
    if len(pairs) > 1 or width:
        m = np.array([list(r) for r in res.rows])
        assert not (m == "-").all(axis=0).any(), "all-gap column"


@pytest.mark.parametrize("n, seed", [(4, 1), (9, 2), (20, 3), (33, 4)])
def test_alignment_keeps_sequences(n, seed):
    pairs = evolve(n, 60, seed)
    res = align(pairs, threads=1)
    check_alignment(res, pairs)
    aln = res.alignment
    assert [r.id for r in aln] == [n for n, _ in pairs]
    assert len(res.tree.leaf_nodes()) == n
    assert set(res.timings) >= {"guide tree", "merges"}


def test_deterministic_across_runs_and_threads():
    pairs = evolve(40, 80, 7)
    a = align(pairs, threads=1).rows
    b = align(pairs, threads=1).rows
    c = align(pairs, threads=2).rows
    assert a == b == c


@pytest.mark.parametrize("pairs", [
    pytest.param([("only", "ACGTTGCA")], id="one"),
    pytest.param([("x", "ACGTTGCA"), ("y", "ACTTGCA")], id="two"),
    pytest.param([("x", "ACGTTGCA"), ("y", "ACTTGCA"), ("z", "ACGTTGGCA")], id="three"),
    pytest.param([("x", "A"), ("y", "ACGTACGTACGT"), ("z", "T"), ("w", "GGG")], id="unequal"),
    pytest.param([("x", "ACGT"), ("y", "ACGT"), ("z", "ACGT"), ("w", "ACGT")], id="identical"),
    pytest.param([("x", "ACNNT"), ("y", "ACRYT"), ("z", "acgt"), ("w", "ACGU")], id="ambiguous-case"),
])
def test_small_and_edge_cases(pairs):
    res = align(pairs)
    check_alignment(res, pairs)


def test_three_sequences_take_the_library_and_an_exact_alignment_by_default(monkeypatch):
    """Three sequences get the library, a guide tree, and the exact 3-way alignment of most
    library support; ``exact_triplet="off"`` (or a cube beyond the budget of "auto") sends
    them through the merges like any other number."""
    from trimsa.progressive import api

    pairs = [("x", "ACGTTGCAAT"), ("y", "ACTTGCAT"), ("z", "ACGTTGGCAT")]
    res = align(pairs)
    check_alignment(res, pairs)
    assert [s.name for s in res.stages] == ["read", "library", "guide tree", "exact 3-way"]
    assert res.stages[-1].device == "cpu" and res.stages[-1].cells == 11 * 9 * 11
    assert len(res.guide.leaves()) == 3 and res.guide.method == "upgma"
    off = Aligner(exact_triplet="off").align(pairs)
    check_alignment(off, pairs)
    assert [s.name for s in off.stages] == ["read", "library", "guide tree", "merges"]
    monkeypatch.setattr(api, "EXACT_TRIPLET_CELLS", 11 * 9 * 11 - 1)
    assert [s.name for s in align(pairs).stages][-1] == "merges"
    assert [s.name for s in Aligner(exact_triplet="library").align(pairs).stages][-1] == \
        "exact 3-way"
    none = Aligner(consistency=0).align(pairs)
    assert [s.name for s in none.stages] == ["read", "guide tree", "merges"]
    starved = dict(library="tree", max_library_cells=1)   # the tree's library is not built
    assert [s.name for s in Aligner(**starved).align(pairs).stages][-1] == "merges"
    with pytest.raises(OptionError, match="library was not built"):
        Aligner(exact_triplet="library", **starved).align(pairs)
    monkeypatch.setattr(api, "EXACT_TRIPLET_BYTES", 24 * (11 * 9 + 11 * 11 + 9 * 11) - 1)
    with pytest.raises(OptionError, match="bytes for the exact 3-way alignment"):
        Aligner(exact_triplet="library").align(pairs)
    monkeypatch.setattr(api, "EXACT_TRIPLET_CELLS", 1e12)   # auto: the bytes alone decide
    assert [s.name for s in align(pairs).stages][-1] == "merges"


def test_two_sequences_take_the_library():
    pairs = [("x", "ACGTTGCAAT"), ("y", "ACTTGCAT")]
    res = align(pairs)
    check_alignment(res, pairs)
    assert [s.name for s in res.stages] == ["read", "library", "guide tree", "merges"]
    assert res.stages[1].items == 1


def _support(library, lengths, rows):
    """The library's support of the residue pairs that ``rows`` put in one column."""
    pos = [np.cumsum([ch != "-" for ch in r]) - 1 for r in rows]
    total = 0.0
    for s, t in ((0, 1), (0, 2), (1, 2)):
        C = library.scores(lengths[s], lengths[t], [s], [t], np.ones(3))
        for col in range(len(rows[0])):
            if rows[s][col] != "-" and rows[t][col] != "-":
                total += C[pos[s][col], pos[t][col]]
    return total


@pytest.mark.parametrize("seed", range(4))
def test_the_library_alignment_of_three_has_the_most_support(seed):
    """Its support is the brute-force optimum over all alignments of the same library
    (short sequences), and at least the merges' on longer ones."""
    from trimsa.progressive import engine
    from trimsa.progressive.pair_hmm import pair_hmm

    from .affine_reference import all_alignments

    rnd = random.Random(seed)
    tiny = [(f"s{i}", "".join(rnd.choice("ACGT") for _ in range(rnd.randint(1, 3))))
            for i in range(3)]
    for pairs, check_all in ((tiny, True), (evolve(3, 40, seed), False)):
        aligner = Aligner(device="cpu", threads=1)
        seqs = as_sequence_set(pairs)
        used, codes = aligner._compact(seqs)
        scoring = aligner.scoring(seqs)
        sc = engine.make_profile_scoring(scoring.table, used, scoring.gap_open,
                                         scoring.gap_extend, aligner.terminal)
        library = aligner._library(seqs, codes, sc, pair_hmm("auto", "dna", used), 1, None, [])
        library.set_witnesses(np.arange(3))
        L = seqs.lengths
        best = _support(library, L, aligner.align(pairs).rows)
        if check_all:
            strs = seqs.sequences
            top = 0.0
            for moves in all_alignments(*L):
                pos = [0, 0, 0]
                rows = [[], [], []]
                for m in moves:
                    for d in range(3):
                        rows[d].append(strs[d][pos[d]] if m >> d & 1 else "-")
                        pos[d] += m >> d & 1
                top = max(top, _support(library, L, ["".join(r) for r in rows]))
            assert best == pytest.approx(top, rel=1e-6)
        else:
            off = Aligner(device="cpu", exact_triplet="off").align(pairs).rows
            assert best >= _support(library, L, off) - 1e-6


def test_guide_tree_from_file_and_true_tree():
    res = Aligner(guide_tree=DATA / "msa16_tree.nwk").align(DATA / "msa16_input.fa")
    from Bio import SeqIO
    recs = [(r.id, str(r.seq)) for r in SeqIO.parse(DATA / "msa16_input.fa", "fasta")]
    check_alignment(res, recs)
    assert sorted(t.label for t in res.tree.taxon_namespace) == sorted(n for n, _ in recs)


def test_guide_tree_as_a_dendropy_tree_a_guide_tree_or_newick_text():
    import dendropy

    path = DATA / "msa16_tree.nwk"
    want = Aligner(guide_tree=path).align(DATA / "msa16_input.fa").rows
    text = path.read_text().strip()
    given = (dendropy.Tree.get(data=text, schema="newick", preserve_underscores=True),
             Aligner(guide_tree=path).align(DATA / "msa16_input.fa").guide, text)
    for tree in given:
        assert Aligner(guide_tree=tree).align(DATA / "msa16_input.fa").rows == want
    with pytest.raises(OptionError, match="got a int"):
        Aligner(guide_tree=5)
    with pytest.raises(InputFormatError, match="guide tree: not a Newick tree"):
        Aligner(guide_tree="(s0,(s1;").align(DATA / "msa16_input.fa")


@pytest.mark.parametrize("call, error, words", [
    (lambda: align(None), InputFormatError, "not a NoneType"),
    (lambda: align(5), InputFormatError, "not a int"),
    (lambda: align("ACGTACGTAC"), InputFormatError, "pass a list of them"),
    (lambda: align(evolve(3, 20, 1), progress=5), OptionError, "progress must be a function"),
], ids=["none", "number", "a-sequence-as-path", "progress-not-callable"])
def test_api_misuse_names_the_problem(call, error, words):
    with pytest.raises(error, match=words):
        call()


def test_guide_tree_must_cover_the_sequences(tmp_path):
    bad = tmp_path / "t.nwk"
    bad.write_text("(s0,(s1,s9));\n")
    with pytest.raises(InputFormatError, match="s9"):
        Aligner(guide_tree=bad).align(evolve(3, 20, 1) + [("s3", "ACGT")])


def test_accuracy_on_simulated_set():
    """On a 16-taxon AliSim set the alignment is close to the truth (SP >= 0.9)."""
    from Bio import SeqIO
    res = align(DATA / "msa16_input.fa")
    true = {r.id: str(r.seq) for r in SeqIO.parse(DATA / "msa16_true.fa", "fasta")}

    def pairs(rows):
        cols = {}
        for name, row in rows:
            k = 0
            for c, ch in enumerate(row):
                if ch != "-":
                    cols.setdefault(c, []).append((name, k))
                    k += 1
        return {(a, b) for v in cols.values() for a, b in itertools.combinations(sorted(v), 2)}

    t = pairs(true.items())
    e = pairs(zip(res.names, res.rows))
    assert len(t & e) / len(t) > 0.9 and len(t & e) / len(e) > 0.9


def test_aligner_repr_and_options():
    assert repr(Aligner()) == "Aligner()"
    assert repr(Aligner(threads=2, gap_open=-4)) == "Aligner(threads=2, gap_open=-4)"
    with pytest.raises(OptionError):
        Aligner(method="xx")
    with pytest.raises(OptionError):
        Aligner(threads=-1)
    with pytest.raises(OptionError):
        Aligner(gap_open=2)
    with pytest.raises(OptionError):
        Aligner(device="tpu")
    with pytest.raises(OptionError, match="either --gap or"):
        Aligner(gap=-2, gap_extend=-1)
    with pytest.raises(OptionError, match="must be an integer"):
        Aligner(gap_open=-2.5)


@pytest.mark.parametrize("options, n", [
    pytest.param(dict(device="gpu", guide_tree="t.nwk", consistency=0), 5, id="gpu-given-tree"),
])
def test_gpu_without_a_gpu_stage_is_an_error_before_any_work(options, n):
    with pytest.raises(OptionError, match="no stage of this alignment has a GPU path"):
        Aligner(**options).align(evolve(n, 30, 1))


@pytest.mark.parametrize("options, words", [
    pytest.param(dict(guide_tree="t.nwk", method="nj"), "used as it is", id="tree-and-method"),
    pytest.param(dict(tree_distances="quartet"), "distance source", id="unknown-source"),
    pytest.param(dict(consistency="a"), "consistency must be a number", id="text-weight"),
    pytest.param(dict(terminal=None), "terminal must be a number", id="no-terminal"),
    pytest.param(dict(consistency=float("nan")), "consistency must be a number", id="nan-weight"),
    pytest.param(dict(guide_tree=3), "guide_tree must be the path", id="tree-not-a-path"),
    pytest.param(dict(tree_distances="kmer", tree_time_budget=10),
                 r"applies to the triplet and pair-score guide",
                 id="budget-without-triplet-tree"),
    pytest.param(dict(tree_distances="triplet", tree_time_budget=0), "seconds > 0",
                 id="zero-budget"),
    pytest.param(dict(tree_distances="triplet", tree_time_budget=float("inf")), "seconds > 0",
                 id="infinite-budget"),
])
def test_aligner_refuses_options_no_stage_can_honour(options, words):
    with pytest.raises(OptionError, match=words):
        Aligner(**options)


def test_tree_time_budget_reaches_the_triplet_tree():
    pairs = evolve(12, 40, 5)
    full = Aligner(tree_distances="triplet", device="cpu", gap=-2).align(pairs)
    assert full.guide.distances.info["triplets"] == "all"
    tight = Aligner(tree_distances="triplet", device="cpu", gap=-2,
                    tree_time_budget=1e-6).align(pairs)
    check_alignment(tight, pairs)
    info = tight.guide.distances.info
    assert info["triplets"] == "sampled" and info["n_triplets"] < full.guide.distances.info[
        "n_triplets"]


def test_triplet_distances_take_the_run_scoring_affine_or_linear():
    from trimsa.tree.distances import ls_all_triplets
    from trimsa.triplet import DEFAULT_BAND, all_triplets, band_triplet_scores, score_triplets

    pairs = evolve(6, 40, 2)
    # the default affine gaps: the estimates are the least-squares fit of the exact affine
    # triplet scores (bound-pruned cubes on the CPU) under the run's scoring
    res = Aligner(tree_distances="triplet", device="cpu").align(pairs)
    check_alignment(res, pairs)
    info = res.guide.distances.info
    assert info["engine"] == "exact" and info["triplets"] == "all"
    assert "exact triplets, gaps -3 / -1 on the cpu" in res.guide.summary()
    sc = Scoring.dna(stage="progressive")
    assert not sc.linear
    scores = score_triplets(pairs, all_triplets(6), scoring=sc)
    est = ls_all_triplets(6, scores)
    iu, ju = np.triu_indices(6, 1)
    np.testing.assert_allclose(info["estimates"][iu, ju], est[iu, ju], atol=1e-9)
    assert not np.allclose(est, ls_all_triplets(
        6, score_triplets(pairs, all_triplets(6), scoring=Scoring.dna(gap=-2))))
    res = Aligner(tree_distances="triplet", device="cpu", gap=-2, method="nj").align(pairs)
    check_alignment(res, pairs)
    assert res.guide.distances.source == "triplet"
    assert res.guide.distances.info["device"] == "cpu"
    assert res.guide.distances.info["gaps"] == "-2"
    # two sequences: one tree, no triplet to score; the stage says so
    two = Aligner(tree_distances="triplet", device="cpu", gap=-2).align(pairs[:2])
    check_alignment(two, pairs[:2])
    tree_stage = [s for s in two.stages if s.name == "guide tree"]
    assert tree_stage and tree_stage[0].items == 0 and "two sequences" in tree_stage[0].method


def test_write_formats(tmp_path):
    from Bio import AlignIO

    pairs = evolve(5, 40, 3)
    res = align(pairs)
    for fmt, bio in [("fasta", "fasta"), ("clustal", "clustal"), ("phylip", "phylip-relaxed"),
                     ("stockholm", "stockholm"), ("nexus", "nexus")]:
        out = tmp_path / f"a.{fmt}"
        res.write(out, fmt)
        back = AlignIO.read(out, bio)
        assert [r.id for r in back] == list(res.names)
        assert [str(r.seq) for r in back] == list(res.rows)
    with pytest.raises(OptionError):
        res.write(tmp_path / "x", "msf")
    assert not (tmp_path / "x").exists()


def test_tree_weights_share_branches():
    # ((a:1,b:1):2,c:3): a and b share the branch of length 2
    t = GuideTree("abc", [(0, 1), (3, 2)], np.array([1.0, 1.0, 3.0, 2.0, 0.0]), 4)
    assert engine.tree_weights(t).tolist() == [2.0, 2.0, 3.0]


def test_binary_resolves_multifurcations():
    t = GuideTree("abcd", [(0, 1, 2, 3)], np.zeros(5), 4).binary()
    assert all(len(c) == 2 for c in t.children)
    assert len(t.postorder()) == 3


# -- the consistency library ------------------------------------------------------
def test_library_maps_are_mutual_inverses_and_match_pairwise_dp():
    from trimsa.progressive.consistency import build_library

    rng = np.random.default_rng(5)
    codes = [rng.integers(0, 4, rng.integers(3, 15)) for _ in range(5)]
    table = np.where(np.eye(4, dtype=bool), 1.0, -1.0)
    lib = build_library(codes, table, -3.0, -1.0, 0.5)
    for s in range(5):
        for t in range(5):
            if s == t:
                continue
            mst = lib.map(s, t)
            mts = lib.map(t, s)
            for x, y in enumerate(mst):
                if y >= 0:
                    assert mts[y] == x
            assert sorted(y for y in mst if y >= 0) == [y for y in mst if y >= 0]
            # the same pairing as the profile DP on one-hot profiles
            fa = np.zeros((codes[s].size, 5), np.float32)
            fa[np.arange(codes[s].size), codes[s]] = 1
            fb = np.zeros((codes[t].size, 5), np.float32)
            fb[np.arange(codes[t].size), codes[t]] = 1
            sc = engine.make_profile_scoring(table, np.arange(4), -3.0, -1.0, 0.5)
            path, _score, ma, mb = engine.align_profiles(fa, fb, sc)
            if s < t:
                expect = [-1] * codes[s].size
                inv = {c: j for j, c in enumerate(mb)}
                for x, c in enumerate(ma):
                    expect[x] = inv.get(c, -1)
                assert list(mst) == expect


@pytest.mark.parametrize("witnesses", [None, [2], [0, 3], []])
def test_consistency_scores_against_slow_reference(witnesses):
    from trimsa.progressive.consistency import build_library

    rng = np.random.default_rng(9)
    codes = [rng.integers(0, 4, rng.integers(4, 9)) for _ in range(4)]
    table = np.where(np.eye(4, dtype=bool), 1.0, -1.0)
    lib = build_library(codes, table, -3.0, -1.0, 0.5, witnesses=witnesses)
    wit = [0, 1, 2, 3] if witnesses is None else witnesses
    w = np.array([1.0, 2.0, 0.5, 1.5])
    mem_a, mem_b = np.array([0, 2]), np.array([1, 3])
    la, lb = codes[0].size, codes[1].size
    # put A's rows and B's rows in columns: each sequence's residues in order
    lib.pos[:] = np.concatenate([np.arange(c.size) for c in codes])
    la = max(codes[0].size, codes[2].size)
    lb = max(codes[1].size, codes[3].size)
    got = lib.scores(la, lb, mem_a, mem_b, w)

    def amap(s, t):
        return lib.map(s, t)

    ref = np.zeros((la, lb))
    wa, wb = w[mem_a].sum(), w[mem_b].sum()
    for s in mem_a:
        for t in mem_b:
            voters = [u for u in wit if u not in (s, t)]
            f = w[s] * w[t] / (wa * wb) / (1 + len(voters))
            for x, y in enumerate(amap(s, t)):
                if y >= 0:
                    ref[x, y] += f * lib.identity(s, t)
            for u in voters:
                for x, z in enumerate(amap(s, u)):
                    if z >= 0 and amap(u, t)[z] >= 0:
                        ref[x, amap(u, t)[z]] += f * min(lib.identity(s, u), lib.identity(u, t))
    assert np.allclose(got, ref, atol=1e-5)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10 ** 6), st.integers(1, 6), st.booleans())
def test_sparse_consistency_scores_against_slow_reference(seed, keep, posterior):
    """A library of some pairs: each pair of A x B is averaged over its own votes (its
    alignment when held, and every witness path through held alignments), and the sum
    is normalised by the weights of the pairs that have any vote. Alignments vote with
    the weight of their identity; posteriors with weight 1, spread over the partners of
    each residue by their probabilities."""
    from trimsa.progressive.consistency import all_pairs, build_library

    rng = np.random.default_rng(seed)
    n = 6
    codes = [rng.integers(0, 4, rng.integers(3, 8)) for _ in range(n)]
    table = np.where(np.eye(4, dtype=bool), 1.0, -1.0)
    every = all_pairs(n)
    pairs = every[rng.random(len(every)) < keep / 6]
    wit = sorted(rng.choice(n, rng.integers(0, n + 1), replace=False).tolist())
    lib = build_library(codes, table, -3.0, -1.0, 0.5, pairs=pairs, witnesses=wit,
                        posterior=posterior)
    held = {(int(a), int(b)) for a, b in pairs} | {(int(b), int(a)) for a, b in pairs}
    w = rng.uniform(0.5, 2.0, n)
    perm = rng.permutation(n)
    mem_a, mem_b = perm[:3], perm[3:]
    la = max(codes[s].size for s in mem_a)
    lb = max(codes[t].size for t in mem_b)
    got = lib.scores(la, lb, mem_a, mem_b, w)
    # the same support split over parts (one per member of A), on two threads
    from trimsa.progressive import consistency

    assert consistency.score_parts(3, 3, la) == 1
    saved = consistency.SCORE_PART_PAIRS, consistency.SCORE_PART_ROWS
    consistency.SCORE_PART_PAIRS, consistency.SCORE_PART_ROWS = 1, 1
    try:
        assert consistency.score_parts(3, 3, la) == la
        split = lib.scores(la, lb, mem_a, mem_b, w, threads=2)
    finally:
        consistency.SCORE_PART_PAIRS, consistency.SCORE_PART_ROWS = saved
    assert np.array_equal(split, got)

    def pairings(s, t):
        """{(x, y): probability} of the library's alignment of s and t."""
        cols, probs = lib.partners(s, t)
        return {(x, int(y)): float(p) for x in range(cols.shape[0])
                for y, p in zip(cols[x], probs[x]) if y >= 0}

    def trust(s, t):
        """The weight of a pair's votes: posteriors carry their own confidence."""
        return 1.0 if posterior else lib.identity(s, t)

    ref = np.zeros((la, lb))
    norm = 0.0
    for s in mem_a:
        for t in mem_b:
            votes = []   # (weight, {(x, y): probability})
            if (s, t) in held:
                votes.append((trust(s, t), pairings(s, t)))
            for u in wit:
                if u not in (s, t) and (s, u) in held and (u, t) in held:
                    path = {}
                    for (x, z), p in pairings(s, u).items():
                        for (z2, y), q in pairings(u, t).items():
                            if z2 == z:
                                path[x, y] = path.get((x, y), 0.0) + p * q
                    votes.append((min(trust(s, u), trust(u, t)), path))
            if not votes:
                continue
            norm += w[s] * w[t]
            for idn, m in votes:
                for (x, y), p in m.items():
                    ref[x, y] += w[s] * w[t] * idn * p / len(votes)
    if norm > 0:
        ref /= norm
    assert np.allclose(got, ref, atol=1e-5)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10 ** 6), st.integers(2, 9), st.sampled_from([None, 0, 1, 3]),
       st.booleans())
def test_separable_scores_equal_the_general_sum(seed, n, most, split):
    """A library of every pair voting with posteriors: the votes through each witness
    summed over each cluster once (``Library.separable``) give the support of the
    general sum over pairs of sequences, to float32 rounding, on columns with gaps, and
    the same bits however the rows are split and on any number of threads."""
    from trimsa.progressive import consistency

    rng = np.random.default_rng(seed)
    codes = [rng.integers(0, 4, rng.integers(2, 12)) for _ in range(n)]
    table = np.where(np.eye(4, dtype=bool), 1.0, -1.0)
    wit = consistency.pick_witnesses(n, rng.permutation(n), most)
    lib = consistency.build_library(codes, table, -3.0, -1.0, 0.5, witnesses=wit,
                                    posterior=True)
    assert lib.separable()
    w = rng.uniform(0.5, 2.0, n)
    k = int(rng.integers(1, n))
    perm = rng.permutation(n)
    mem_a, mem_b = perm[:k], perm[k:]
    la = max(codes[s].size for s in mem_a) + 4
    lb = max(codes[t].size for t in mem_b) + 4
    for members, width in ((mem_a, la), (mem_b, lb)):   # residues in columns, with gaps
        for s in members:
            o = lib.offsets[s]
            lib.pos[o:o + codes[s].size] = np.sort(rng.choice(width, codes[s].size,
                                                              replace=False))
    got = lib.scores(la, lb, mem_a, mem_b, w)
    general = consistency.Library.separable
    try:
        consistency.Library.separable = lambda self: False
        ref = lib.scores(la, lb, mem_a, mem_b, w)
    finally:
        consistency.Library.separable = general
    assert np.abs(ref).max() > 0
    assert np.allclose(got, ref, rtol=1e-5, atol=1e-7)
    if split:
        saved = consistency.SCORE_PART_PAIRS, consistency.SCORE_PART_ROWS
        consistency.SCORE_PART_PAIRS, consistency.SCORE_PART_ROWS = 1, 1
        try:
            assert consistency.score_parts(k, n - k, la) > 1
            again = lib.scores(la, lb, mem_a, mem_b, w, threads=3)
        finally:
            consistency.SCORE_PART_PAIRS, consistency.SCORE_PART_ROWS = saved
        assert np.array_equal(again, got)


def test_separable_needs_every_pair_and_one_trust():
    from trimsa.progressive import consistency

    rng = np.random.default_rng(3)
    codes = [rng.integers(0, 4, 6) for _ in range(4)]
    table = np.where(np.eye(4, dtype=bool), 1.0, -1.0)
    full = consistency.build_library(codes, table, -3.0, -1.0, 0.5, posterior=True)
    assert full.separable()
    some = consistency.build_library(codes, table, -3.0, -1.0, 0.5, posterior=True,
                                     pairs=consistency.all_pairs(4)[:-1])
    assert not some.separable()
    voted = consistency.build_library(codes, table, -3.0, -1.0, 0.5, posterior=False)
    assert voted.nbr_trust.min() < voted.nbr_trust.max()  # identities differ here
    assert not voted.separable()


def _slow_posteriors(a, b, odds, gaps, allowed=None):
    """Match posteriors of a global pair HMM with a short and a long gap state per
    sequence (``gaps`` = open / extend of each) by plain forward-backward over full
    tables (the start behaves as a match state; gap residues have odds 1), over the paths
    that stay in the cells ``allowed`` (``(len(a) + 1, len(b) + 1)`` bools; default:
    all)."""
    la, lb = len(a), len(b)
    if allowed is None:
        allowed = np.ones((la + 1, lb + 1), bool)
    opens, exts = (gaps[0], gaps[2]), (gaps[1], gaps[3])
    mm = 1 - 2 * sum(opens)
    fM = np.zeros((la + 1, lb + 1))
    fX = np.zeros((2, la + 1, lb + 1))  # a residue of a against a gap, short / long
    fY = np.zeros((2, la + 1, lb + 1))
    fM[0, 0] = 1.0
    for i in range(la + 1):
        for j in range(lb + 1):
            if not allowed[i, j]:
                fM[i, j] = 0.0
                continue
            if i and j:
                into = mm * fM[i - 1, j - 1] + sum(
                    (1 - exts[g]) * (fX[g, i - 1, j - 1] + fY[g, i - 1, j - 1]) for g in (0, 1))
                fM[i, j] = odds[a[i - 1], b[j - 1]] * into
            for g in (0, 1):
                if i:
                    fX[g, i, j] = opens[g] * fM[i - 1, j] + exts[g] * fX[g, i - 1, j]
                if j:
                    fY[g, i, j] = opens[g] * fM[i, j - 1] + exts[g] * fY[g, i, j - 1]
    z = fM[la, lb] + fX[:, la, lb].sum() + fY[:, la, lb].sum()
    bM = np.zeros((la + 2, lb + 2))
    bX = np.zeros((2, la + 2, lb + 2))
    bY = np.zeros((2, la + 2, lb + 2))
    for i in range(la, -1, -1):
        for j in range(lb, -1, -1):
            if not allowed[i, j]:
                continue
            if i == la and j == lb:
                bM[i, j] = 1.0
                bX[:, i, j] = bY[:, i, j] = 1.0
                continue
            m = odds[a[i], b[j]] * bM[i + 1, j + 1] if i < la and j < lb else 0.0
            bM[i, j] = mm * m
            for g in (0, 1):
                x = bX[g, i + 1, j] if i < la else 0.0
                y = bY[g, i, j + 1] if j < lb else 0.0
                bM[i, j] += opens[g] * (x + y)
                bX[g, i, j] = (1 - exts[g]) * m + exts[g] * x
                bY[g, i, j] = (1 - exts[g]) * m + exts[g] * y
    assert np.isclose(bM[0, 0], z, rtol=1e-9)
    return (fM * bM[:la + 1, :lb + 1] / z)[1:, 1:]


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10 ** 6), st.integers(1, 40), st.integers(1, 40),
       st.floats(0.3, 0.95), st.floats(0.005, 0.2), st.floats(0.3, 0.95),
       st.sampled_from([0.0, 0.004, 0.03]), st.floats(0.5, 0.97), st.integers(-1, 6))
def test_posterior_slots_against_slow_forward_backward(seed, la, lb, ident, delta, eps,
                                                       delta2, eps2, width):
    from trimsa.progressive import _cpu

    rng = np.random.default_rng(seed)
    a = rng.integers(0, 4, la)
    b = np.where(rng.random(lb) < 0.6, np.resize(a, lb), rng.integers(0, 4, lb))
    table = np.where(np.eye(4, dtype=bool), 1.0, -1.0).astype(np.float32)
    odds = _cpu.match_odds(table, ident)
    gaps = np.array([delta, eps, delta2, eps2])
    # the band around the pair's alignment path, as the library takes it
    tb, path = np.empty((la + 1) * (lb + 1), np.uint8), np.empty(la + lb, np.int8)
    npath, _score = _cpu.seq_viterbi(a, b, table, np.float32(-2.0), np.float32(-0.5),
                                     np.float32(1.0), tb, path)
    lo, hi = np.empty(la + 1, np.int64), np.empty(la + 1, np.int64)
    cells = _cpu.path_band(path, npath, lb, width, lo, hi)
    allowed = np.zeros((la + 1, lb + 1), bool)
    i, j = 0, 0
    on_path = [(0, 0)]
    for step in path[:npath]:
        i, j = i + (step != _cpu.B_ONLY), j + (step != _cpu.A_ONLY)
        on_path.append((i, j))
    for i, j in on_path:
        allowed[i, max(j - width, 0):j + width + 1] = True
    if width < 0:
        allowed[:] = True
    for i in range(la + 1):
        assert allowed[i, lo[i]:hi[i] + 1].all() and allowed[i].sum() == hi[i] - lo[i] + 1
    assert cells == allowed.sum()
    P = _slow_posteriors(a, b, odds, gaps, allowed)
    k, floor = 3, 0.01
    ca, pa = np.full((la, k), -1, np.int32), np.zeros((la, k), np.float32)
    cb, pb = np.full((lb, k), -1, np.int32), np.zeros((lb, k), np.float32)
    fM = np.full(cells, np.nan, np.float32)
    assert _cpu.posterior_slots(a, b, odds, gaps, floor, lo, hi, fM, ca, pa, cb, pb)
    for M, cols, probs in ((P, ca, pa), (P.T, cb, pb)):
        for x in range(M.shape[0]):
            want = np.sort(M[x][M[x] >= floor])[::-1][:k]
            kept = cols[x] >= 0
            assert kept.sum() == want.size
            assert np.allclose(probs[x][kept], want, atol=1e-5)
            assert np.allclose(M[x][cols[x][kept]], probs[x][kept], atol=1e-5)
        assert M.sum(axis=1).max() <= 1 + 1e-9


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10 ** 6), st.integers(1, 30), st.integers(1, 30),
       st.sampled_from([4, 5, 21]), st.sampled_from([0.0, -1.0, -2.5]),
       st.sampled_from([-0.5, -1.0, -2.0]), st.sampled_from([0.0, 0.5, 1.0]))
def test_seq_viterbi_is_profile_dp_of_two_sequences(seed, la, lb, k, go, ge, term):
    """The sequence aligner of the library takes the same path, score and ties as the
    profile aligner given one-hot profiles of the two sequences."""
    from trimsa.progressive import _cpu

    rng = np.random.default_rng(seed)
    a = rng.integers(0, k, la)
    b = np.where(rng.random(lb) < 0.6, np.resize(a, lb), rng.integers(0, k, lb))
    table = rng.integers(-3, 4, (k, k)).astype(np.float32)
    table = (table + table.T) / 2
    go, ge, term = np.float32(go), np.float32(ge), np.float32(term)
    FB = np.zeros((lb, k), np.float32)
    FB[np.arange(lb), b] = 1.0
    oa, ob = np.ones(la + 1, np.float32), np.ones(lb + 1, np.float32)
    oa[[0, la]] = term
    ob[[0, lb]] = term
    want = np.empty(la + lb, np.int8)
    n, score = _cpu.profile_dp(table[a], FB, np.zeros((0, 0), np.float32),
                               np.ones(la, np.float32), np.ones(lb, np.float32), oa, ob, go, ge,
                               want)
    got = np.empty(la + lb, np.int8)
    m, got_score = _cpu.seq_viterbi(a, b, table, go, ge, term,
                                    np.empty((la + 1) * (lb + 1), np.uint8), got)
    assert (m, got_score) == (n, score) and np.array_equal(got[:m], want[:n])


def test_gap_params_count_runs_of_both_sequences():
    from trimsa.progressive import _cpu

    # a: residues 1-2 and 5 face gaps (2 runs, 3 positions); b (7 residues): 3-4 and 6
    # are aligned to nothing (2 runs, 3 positions); 4 aligned pairs
    delta, eps = _cpu.gap_params(np.array([0, -1, -1, 1, 2, -1, 5]), 7)
    assert np.isclose(delta, (4 + 1) / (2 * 4 + 20)) and np.isclose(eps, 1 - (4 + 1) / (6 + 2))
    # no gaps: the pseudocounts alone
    assert np.allclose(_cpu.gap_params(np.arange(50), 50), (1 / (2 * 50 + 20), 1 - 1 / 2))


def test_match_odds_give_the_asked_identity():
    from trimsa.progressive import _cpu

    for table in (np.where(np.eye(4, dtype=bool), 1.0, -1.0),
                  np.where(np.eye(5, dtype=bool), 3.0, -2.0)):
        k = table.shape[0]
        for ident in (0.4, 0.7, 0.95):
            odds = _cpu.match_odds(table, ident)
            p = odds / k ** 2
            assert np.isclose(p.sum(), 1.0) and np.isclose(np.trace(p), ident, atol=1e-6)


def test_tree_pairs_join_both_sides_of_every_merge():
    from trimsa.progressive.consistency import tree_pairs

    res = align(evolve(40, 30, 4), consistency=0, threads=1)
    t = res.guide.binary()
    for per in (1, 3, 16):
        pairs = tree_pairs(t, per)
        assert np.array_equal(pairs, tree_pairs(t, per))
        assert (pairs[:, 0] < pairs[:, 1]).all() and len({tuple(p) for p in pairs}) == len(pairs)
        held = {tuple(p) for p in pairs.tolist()}
        for v in t.postorder():
            a, b = t.children[v - t.n]
            A, B = leaves_below(t, a), leaves_below(t, b)
            joins = sum((min(x, y), max(x, y)) in held for x in A for y in B)
            assert joins >= min(per, len(A) * len(B))


def leaves_below(t, v):
    if v < t.n:
        return [v]
    return [x for c in t.children[v - t.n] for x in leaves_below(t, c)]


def test_tree_library_is_used_beyond_the_budget_of_all_pairs():
    pairs = evolve(60, 40, 12)
    # all pairs: 1770 of about 1600 cells each; a budget for fewer of them
    res = align(pairs, max_library_cells=2e6, threads=1)
    check_alignment(res, pairs)
    lib = {s.name: s for s in res.stages}["library"]
    assert "per merge of the guide tree" in lib.method and 0 < lib.items < 1770
    assert lib.cells <= 2e6
    tree = {s.name: s for s in res.stages}["guide tree"]
    assert tree.unit == "triplets" and tree.method.startswith("upgma of") and tree.items > 0
    forced = align(pairs, library="tree", pairs_per_merge=4, threads=1)
    check_alignment(forced, pairs)
    assert "up to 4 per merge" in {s.name: s for s in forced.stages}["library"].method
    # fewer than the fewest pairs per merge worth it: no library, and -v says so
    small = {s.name: s for s in align(pairs, max_library_cells=3e5, threads=1).stages}
    assert small["library"].items == 0 and small["library"].method.startswith("none")
    with pytest.raises(OptionError, match="pairs_per_merge applies to the tree"):
        Aligner(library="all", pairs_per_merge=8)


def test_the_tree_library_has_its_own_budget(monkeypatch, tmp_path):
    from trimsa.progressive import api

    pairs = evolve(40, 40, 5)
    # the maps of all pairs do not fit their budget: auto takes the tree's library, whose
    # own budget holds 128 pairs per merge
    monkeypatch.setattr(api, "LIBRARY_BYTES", 1000)
    res = align(pairs, threads=1)
    lib = {s.name: s for s in res.stages}["library"]
    assert "up to 128 per merge" in lib.method and lib.items > 0
    # over the tree's budget: halved to the floor, then no library, and -v says why
    monkeypatch.setattr(api, "TREE_LIBRARY_BYTES", 1000)
    lib = {s.name: s for s in align(pairs, threads=1).stages}["library"]
    assert lib.items == 0 and "beyond the tree library's budget" in lib.method
    # then, with a given guide tree, no stage would use a GPU that was asked for
    tree = tmp_path / "t.nwk"
    tree.write_text(res.newick())
    with pytest.raises(OptionError, match="no stage of this alignment has a GPU path"):
        Aligner(device="gpu", threads=1, guide_tree=str(tree)).align(pairs)
    assert Aligner().cell_budget("all") == api.LIBRARY_CELLS
    assert Aligner().cell_budget("tree") == api.TREE_LIBRARY_CELLS
    assert Aligner().cell_budget("tree", 100) == api.TREE_LIBRARY_CELLS
    assert Aligner().cell_budget("tree", 10 ** 5) == 10 ** 5 * api.TREE_LIBRARY_CELLS_PER_SEQUENCE
    assert Aligner().cell_budget("all", 10 ** 5) == api.LIBRARY_CELLS
    assert Aligner(max_library_cells=5e6).cell_budget("tree") == 5e6
    with pytest.raises(OptionError, match="max_library_cells must be a number > 0"):
        Aligner(max_library_cells=0)


def test_over_the_maps_budget_the_partners_halve_before_the_pairs(monkeypatch):
    from trimsa.progressive import api, consistency

    pairs = evolve(40, 40, 5)
    monkeypatch.setattr(api, "LIBRARY_BYTES", 1000)
    seqs = as_sequence_set(pairs)
    full = align(pairs, threads=1)
    btree = full.guide.binary()
    need = {per: consistency.pairs_cost(seqs.lengths, consistency.tree_pairs(btree, per), 1)[1]
            for per in (128, 64)}
    assert need[64] < need[128]
    # 128 per merge fit with 2 partners, not with 4
    monkeypatch.setattr(api, "TREE_LIBRARY_BYTES", 2 * need[128])
    res = align(pairs, threads=1)
    lib = {s.name: s for s in res.stages}["library"]
    assert "up to 128 per merge" in lib.method and "2 posterior partners per residue" in lib.method
    # 128 per merge fit with 1 partner only: taken before 64 per merge with more
    monkeypatch.setattr(api, "TREE_LIBRARY_BYTES", need[128])
    lib = {s.name: s for s in align(pairs, threads=1).stages}["library"]
    assert "up to 128 per merge" in lib.method and "1 posterior partner per residue" in lib.method
    # less than that: the pairs halve
    monkeypatch.setattr(api, "TREE_LIBRARY_BYTES", need[64])
    lib = {s.name: s for s in align(pairs, threads=1).stages}["library"]
    assert "up to 64 per merge" in lib.method and "1 posterior partner per residue" in lib.method
    with pytest.raises(ValueError, match="slots must be a positive integer"):
        consistency.library_slots(True, 0)
    with pytest.raises(ValueError, match="without posteriors keeps 1 partner"):
        consistency.library_slots(False, 2)


def test_fewer_partners_keep_the_most_probable_of_more():
    from trimsa.progressive import consistency

    for seed in range(4):
        rng = np.random.default_rng(seed)
        codes = [rng.integers(0, 4, int(rng.integers(20, 80))) for _ in range(6)]
        table = np.where(np.eye(4, dtype=bool), 2.0, -1.0)
        four = consistency.build_library(codes, table, -3.0, -1.0, 0.5, posterior=True)
        for k in (1, 2):
            few = consistency.build_library(codes, table, -3.0, -1.0, 0.5, posterior=True,
                                            slots=k)
            assert np.array_equal(few.maps, four.maps[:, :k])
            assert np.array_equal(few.probs, four.probs[:, :k])


def test_library_votes_posterior_and_alignment(monkeypatch):
    from trimsa.progressive import consistency

    pairs = evolve(10, 60, 21)
    post = align(pairs, threads=1)
    aln = align(pairs, library_votes="alignment", threads=1)
    check_alignment(post, pairs)
    check_alignment(aln, pairs)
    lib_post = {s.name: s for s in post.stages}["library"].method
    assert "posteriors" in lib_post and "posteriors" not in \
        {s.name: s for s in aln.stages}["library"].method
    codes = [np.frombuffer(s.encode(), np.uint8) % 4 for _, s in pairs]
    table = np.where(np.eye(4, dtype=bool), 1.0, -1.0)
    with_post = consistency.build_library(codes, table, -3.0, -1.0, 0.5, posterior=True)
    assert with_post.n_posterior == with_post.n_pairs == 45
    assert with_post.probs.shape[1] == consistency.POSTERIOR_SLOTS
    assert (with_post.probs[:, 0] < 1.0).any() and np.allclose(with_post.nbr_trust, 1.0)
    # the narrowest band (the path's own cells) still gives every pair posteriors
    monkeypatch.setattr(consistency, "POSTERIOR_BAND", 0)
    narrow = consistency.build_library(codes, table, -3.0, -1.0, 0.5, posterior=True)
    assert narrow.n_posterior == 45 and narrow.probs.sum(axis=1).max() <= 1 + 1e-5
    with pytest.raises(OptionError, match="unknown library votes"):
        Aligner(library_votes="viterbi")
    with pytest.raises(OptionError, match="consistency=0 turns off"):
        Aligner(library_votes="alignment", consistency=0)


def test_consistency_off_and_on_both_keep_sequences():
    pairs = evolve(12, 50, 11)
    a = align(pairs, consistency=0)
    b = align(pairs, consistency=3)
    check_alignment(a, pairs)
    check_alignment(b, pairs)
    assert "library" in b.timings and "library" not in a.timings
    lib = {s.name: s for s in align(pairs, max_library_cells=10).stages}["library"]
    assert lib.items == 0 and lib.method.startswith("none")
    check_alignment(align(pairs, max_witnesses=3), pairs)


def test_pick_witnesses_spreads_along_the_order():
    from trimsa.progressive.consistency import pick_witnesses

    order = [5, 3, 9, 0, 1, 2, 4, 6, 7, 8]
    assert pick_witnesses(10, order, None).tolist() == list(range(10))
    assert pick_witnesses(10, order, 2).tolist() == [5, 8]
    assert pick_witnesses(10, order, 0).tolist() == []


def test_top_level_api_accepts_records_pairs_and_paths(tmp_path):
    import trimsa
    from Bio.Seq import Seq
    from Bio.SeqRecord import SeqRecord

    pairs = evolve(6, 40, 21)
    recs = [SeqRecord(Seq(s), id=n, description="") for n, s in pairs]
    path = tmp_path / "in.fa"
    path.write_text("".join(f">{n}\n{s}\n" for n, s in pairs))
    a = trimsa.align(pairs)
    b = trimsa.Aligner().align(recs)
    c = trimsa.Aligner().align(str(path))
    assert a.rows == b.rows == c.rows
    assert isinstance(a, trimsa.AlignmentResult)


def test_protein_input():
    pairs = [("p1", "MKTAYIAKQRQISFVKSHFSRQ"), ("p2", "MKTAYIAKQRQISFVKSHFSRQLEER"),
             ("p3", "MKTAYIAKQISFVKSHFSRQ"), ("p4", "MRTAYIAKQRQISFVKAHFSRQ")]
    res = align(pairs)
    check_alignment(res, pairs)
    assert res.alphabet == "protein"
    assert res.alignment[0].annotations["molecule_type"] == "protein"


def test_oversized_dp_is_refused(monkeypatch):
    from trimsa.errors import TrimsaError

    monkeypatch.setattr(engine, "MAX_DP_CELLS", 100)
    with pytest.raises(TrimsaError, match="traceback"):
        align([("a", "ACGT" * 5), ("b", "ACGA" * 5), ("c", "ACG"), ("d", "ACGTT" * 4)],
              consistency=0)
    # the same error from a merge run on a thread of the pool (more than 3 merges)
    with pytest.raises(TrimsaError, match="traceback"):
        align(evolve(12, 30, 3), consistency=0, threads=2)


# -- three sequences: the exact engine ------------------------------------------------------

@pytest.mark.parametrize("seed", range(6))
def test_three_sequences_get_an_optimal_alignment(seed):
    from .affine_reference import natural_sp, rows_to_codes, slow_dp

    pairs = evolve(3, 9, seed)
    res = Aligner(device="cpu", exact_triplet="sum-of-pairs").align(pairs)
    check_alignment(res, pairs)
    table = [[1 if x == y else -1 for y in range(4)] for x in range(4)]   # run's DNA defaults
    codes = [rows_to_codes([s], "ACGT")[0] for _, s in pairs]
    best = slow_dp(*codes, table, -3, -1, "global")
    assert natural_sp(rows_to_codes(res.rows, "ACGT"), table, -3, -1) == best
    assert [s.name for s in res.stages] == ["read", "guide tree", "exact 3-way"]
    progressive = Aligner(device="cpu", exact_triplet="off").align(pairs)
    check_alignment(progressive, pairs)
    assert "exact 3-way" not in progressive.timings
    assert natural_sp(rows_to_codes(progressive.rows, "ACGT"), table, -3, -1) <= best


def test_three_sequences_take_the_run_scoring():
    from .affine_reference import natural_sp, rows_to_codes, slow_dp

    pairs = evolve(3, 10, 11)
    res = Aligner(device="cpu", match=2, mismatch=-3, gap_open=-4, gap_extend=-2,
                  exact_triplet="sum-of-pairs").align(pairs)
    table = [[2 if x == y else -3 for y in range(4)] for x in range(4)]
    codes = [rows_to_codes([s], "ACGT")[0] for _, s in pairs]
    assert (natural_sp(rows_to_codes(res.rows, "ACGT"), table, -4, -2)
            == slow_dp(*codes, table, -4, -2, "global"))
    linear = Aligner(device="auto", gap=-2, exact_triplet="sum-of-pairs").align(pairs)   # CPU tracebacks
    assert (natural_sp(rows_to_codes(linear.rows, "ACGT"), [[1 if x == y else -1 for y in range(4)]
                                                           for x in range(4)], 0, -2)
            == slow_dp(*codes, [[1 if x == y else -1 for y in range(4)] for x in range(4)], 0, -2,
                       "global"))


def test_exact_triplet_takes_its_names():
    for bad in ("yes", True, False):
        with pytest.raises(OptionError, match="exact_triplet"):
            Aligner(exact_triplet=bad)
    with pytest.raises(OptionError, match="consistency=0"):
        Aligner(exact_triplet="library", consistency=0)


# -- the guide tree's distances ---------------------------------------------------------------

def test_auto_tree_from_triplets_within_the_rest_of_the_run():
    """``auto``: the triplet tree when its budget (the rest of the run's estimate, or
    ``tree_time_budget``) buys at least one triplet per sequence; else the tree it had, and
    the stage says why."""
    from trimsa.tree import distances
    from trimsa.tree.distances import affordable_triplets, n_all_triplets

    pairs = evolve(40, 80, 7)
    seqs = as_sequence_set(pairs)
    aligner = Aligner(threads=1, device="cpu")
    source, budget, why = aligner.tree_choice(seqs)
    assert source == "triplet" and budget == pytest.approx(aligner.rest_seconds(seqs, 1))
    res = aligner.align(pairs)
    check_alignment(res, pairs)
    stage = next(s for s in res.stages if s.name == "guide tree")
    assert stage.unit == "triplets" and stage.items == res.guide.distances.info["n_triplets"]
    assert "the rest of the run's estimate" in stage.method and "exact triplets" in stage.method
    # at least the one per sequence the estimate promised, at most the design's headroom
    most = affordable_triplets(seqs, aligner.scoring(seqs), budget)
    assert 40 <= stage.items <= distances.SWEEP_HEADROOM * most
    # all of them where they fit
    big = Aligner(threads=1, device="cpu", tree_time_budget=1e4)
    assert big.tree_choice(seqs)[0] == "triplet"
    assert affordable_triplets(seqs, big.scoring(seqs), 1e4) == n_all_triplets(40)
    # too small a budget: the library's tree, and why
    small = Aligner(threads=1, device="cpu", tree_time_budget=1e-6)
    source, _, why = small.tree_choice(seqs)
    assert source == "pairwise" and why.startswith("not from triplets: 40 triplets")
    stage = next(s for s in small.align(pairs).stages if s.name == "guide tree")
    assert stage.unit == "pairs" and "not from triplets" in stage.method
    # three sequences have one tree; explicit sources are left alone
    assert Aligner(threads=1).tree_choice(as_sequence_set(pairs[:3]))[0] == "pairwise"
    assert Aligner(tree_distances="kmer").tree_choice(seqs) == ("kmer", None, "")


def test_fallback_tree_comes_from_the_library_when_it_is_built(monkeypatch):
    """Where ``auto`` does not take the triplet tree (here: never), the library's pairwise
    distances give it when the library aligns all pairs."""
    from trimsa.progressive import api

    monkeypatch.setattr(api, "TRIPLET_TREE_MIN_SEQUENCES", 10 ** 9)
    pairs = evolve(12, 50, 21)
    res = align(pairs, threads=1)
    d = res.guide.distances
    assert d.source == "pairwise" and res.guide.method == "upgma"
    assert {"library", "guide tree", "merges"} <= set(res.timings)
    D = d.matrix
    assert np.allclose(D, D.T) and np.all(np.diag(D) == 0) and D.min() >= 0
    assert D.max() <= -0.75 * np.log(0.01 / 0.75) + 1e-12   # p capped at 0.74
    # the library's weight does not change its alignments, so neither the tree
    off = Aligner(threads=1, tree_distances="pairwise", consistency=0).align(pairs)
    assert np.array_equal(off.guide.distances.matrix, D)
    assert "merges" in off.timings and off.newick() == res.newick()
    # no library (weight 0): k-mer distances; the tree's library (all pairs cost too
    # many cells): banded pairwise scores
    assert align(pairs, threads=1, consistency=0).guide.distances.source == "kmer"
    assert align(pairs, threads=1, max_library_cells=10).guide.distances.source == "pair-score"


def test_auto_tree_beside_the_trees_library(monkeypatch):
    """Where the library aligns the tree's pairs and ``auto`` does not take the triplet tree
    (here: never), it takes UPGMA of the banded pairwise scores of every pair (the tree
    ``build_guide_tree`` gives), within both limits, and the k-mer tree beyond either."""
    from trimsa.progressive import api
    from trimsa.tree import build_guide_tree
    from trimsa.tree.distances import DEFAULT_TIME_BUDGET, _rate, pair_score_cells

    monkeypatch.setattr(api, "TRIPLET_TREE_MIN_SEQUENCES", 10 ** 9)

    seqs = as_sequence_set(DATA / "msa16_input.fa")
    res = Aligner(threads=1, library="tree").align(seqs)
    d = res.guide.distances
    assert d.source == "pair-score" and d.info["prior_pairs"] == d.info["pairs"] == 120
    want = build_guide_tree(seqs, distances="pair-score", method="upgma", threads=1)
    assert res.newick() == want.newick()
    stage = next(s for s in res.stages if s.name == "guide tree")
    assert (stage.items, stage.unit, stage.cells) == (120, "pairs", pair_score_cells(
        seqs.lengths)) and "banded pairwise scores" in stage.method
    # the same tree however many threads score the pairs
    assert Aligner(threads=2, library="tree").align(seqs).newick() == res.newick()
    # beyond the limits, k-mer distances
    for name, value in (("PAIR_SCORE_TREE_SEQUENCES", 15),
                        ("PAIR_SCORE_TREE_CELLS", pair_score_cells(seqs.lengths) - 1)):
        with monkeypatch.context() as m:
            m.setattr(api, name, value)
            assert Aligner(threads=1, library="tree").distance_source(seqs) == "kmer"
    # a fragment or a long sequence (a length beyond 0.7-1.5 of the median): k-mer distances
    recs = list(zip(seqs.names, seqs.sequences))
    median = float(np.median(seqs.lengths))
    low, high = api.PAIR_SCORE_TREE_LENGTHS
    cut = int(np.ceil(low * median))
    long = int(np.floor(high * median))
    short, longest = int(np.argmin(seqs.lengths)), int(np.argmax(seqs.lengths))
    for at, size, want in ((short, cut, "pair-score"), (short, cut - 1, "kmer"),
                           (longest, long, "pair-score"), (longest, long + 1, "kmer")):
        changed = list(recs)   # the shortest cut, or the longest grown: the median stays
        changed[at] = (recs[at][0], (recs[at][1] * 2)[:size])
        assert float(np.median([len(x) for _, x in changed])) == median
        assert Aligner(threads=1, library="tree").distance_source(
            as_sequence_set(changed)) == want
    # the default budget scores every pair within the cells limit at one CPU thread's rate
    # (the budget's estimate takes each pair's mean length, at most its longer one's)
    assert DEFAULT_TIME_BUDGET * _rate("cpu", "band-pair", 1) >= api.PAIR_SCORE_TREE_CELLS
    # chosen explicitly, with or without a budget
    given = Aligner(threads=1, tree_distances="pair-score", tree_time_budget=5).align(seqs)
    assert given.guide.distances.source == "pair-score"


def test_pairwise_distances_follow_identity():
    base = "ACGTTGCAAGGCTTACGATCGATCGGATCCAGTACGATGCA"
    far = "".join("T" if ch == "A" else ch for ch in base)   # about a quarter differs
    pairs = [("a", base), ("b", base), ("c", base[:-1] + "C"), ("d", far)]
    D = align(pairs, threads=1, tree_distances="pairwise").guide.distances.matrix
    assert D[0, 1] == 0
    assert 0 < D[0, 2] < D[0, 3]
    p = 1 / len(base)   # one substitution, no gap: Jukes-Cantor of p
    assert D[0, 2] == pytest.approx(-0.75 * np.log(1 - 4 * p / 3))


def test_pairwise_distances_beyond_the_library_budget_are_an_error():
    with pytest.raises(OptionError, match="pairwise guide-tree distances need all 10 pairwise"):
        Aligner(tree_distances="pairwise", max_library_cells=10).align(evolve(5, 30, 3))
    with pytest.raises(OptionError, match="library='all' needs all 10 pairwise"):
        Aligner(library="all", max_library_cells=10).align(evolve(5, 30, 3))
    with pytest.raises(OptionError, match="library='tree' draws its pairs"):
        Aligner(library="tree", tree_distances="pairwise")


def test_progress_names_each_long_stage():
    calls = []
    Aligner(threads=1).align(evolve(8, 40, 5), progress=lambda d, t, s: calls.append((s, d, t)))
    stages = [c[0] for c in calls]
    assert stages[0] == "library" and stages[-1] == "merges"
    assert calls[-1][1:] == (7, 7)
    assert ("library", 28, 28) in calls


@pytest.mark.gpu
@pytest.mark.parametrize("seed", range(3))
def test_three_sequences_on_the_gpu_equal_the_cpu(seed):
    from trimsa.triplet import _gpu

    if _gpu.available() is None:
        pytest.skip("no CuPy or no GPU")
    pairs = evolve(3, 60 + 30 * seed, seed)
    gpu = Aligner(device="gpu", exact_triplet="sum-of-pairs").align(pairs)
    cpu = Aligner(device="cpu", exact_triplet="sum-of-pairs").align(pairs)
    assert gpu.rows == cpu.rows
    assert gpu.stages[-1].device == "gpu" and cpu.stages[-1].device == "cpu"
    # the default: the library (built on the GPU here) and the exact support alignment
    gpu = Aligner(device="gpu").align(pairs)
    assert gpu.rows == Aligner(device="cpu").align(pairs).rows
    assert gpu.stages[1].device == "gpu" and gpu.stages[-1].name == "exact 3-way"


def test_alignment_does_not_depend_on_threads(monkeypatch):
    """The library's support of a merge is split into bands of rows, each cell summed in
    the same order, so one thread and several give the same alignment."""
    from trimsa.progressive import consistency

    monkeypatch.setattr(consistency, "SCORE_PART_PAIRS", 2)
    monkeypatch.setattr(consistency, "SCORE_PART_ROWS", 4)
    pairs = evolve(24, 40, 5)
    one = align(pairs, threads=1)
    two = align(pairs, threads=2)
    check_alignment(one, pairs)
    assert one.rows == two.rows


def _moves_support(moves, Cab, Cac, Cbc):
    i = j = k = 0
    total = 0.0
    for m in moves:
        di, dj, dk = m & 1, (m >> 1) & 1, (m >> 2) & 1
        total += (Cab[i, j] if di and dj else 0) + (Cac[i, k] if di and dk else 0) \
            + (Cbc[j, k] if dj and dk else 0)
        i, j, k = i + di, j + dj, k + dk
    assert (i, j, k) == (Cab.shape[0], Cab.shape[1], Cac.shape[1])
    return total


@pytest.mark.parametrize("seed", range(3))
def test_support_alignment_is_the_brute_force_optimum_whole_or_split(seed):
    """Every cube size (1 splits down to single layers) gives the optimum of all
    alignments of tiny inputs, and the same support as the full cube on larger ones."""
    from trimsa.progressive.consistency import support_alignment

    from .affine_reference import all_alignments

    rng = np.random.default_rng(seed)
    for _ in range(40):
        la, lb, lc = (int(x) for x in rng.integers(0, 4, 3))
        C = [rng.random(s) * (rng.random(s) < 0.5) for s in ((la, lb), (la, lc), (lb, lc))]
        top = max(_moves_support(m, *C) for m in all_alignments(la, lb, lc))
        for cube in (1, 8, 1 << 26):
            moves, total = support_alignment(*C, cube=cube)
            assert _moves_support(moves, *C) == pytest.approx(top) and total == pytest.approx(top)
    for _ in range(6):
        la, lb, lc = (int(x) for x in rng.integers(0, 30, 3))
        C = [rng.random(s) * (rng.random(s) < 0.3) for s in ((la, lb), (la, lc), (lb, lc))]
        _, full = support_alignment(*C)
        for cube in (1, 100):
            moves, total = support_alignment(*C, cube=cube)
            assert total == pytest.approx(full) and _moves_support(moves, *C) == pytest.approx(full)
    with pytest.raises(ValueError, match="do not fit"):
        support_alignment(np.zeros((2, 3)), np.zeros((2, 4)), np.zeros((4, 3)))


def test_result_writes_to_file_objects_and_rna_as_nexus_and_checks_its_format(tmp_path):
    import io

    from Bio import AlignIO

    rna = [("a", "ACGUACGUUA"), ("b", "ACGUUCGUUA"), ("c", "ACGAACGUA")]
    res = Aligner(device="cpu").align(rna)
    buf = io.StringIO()
    res.write(buf, "nexus")   # an open file: as write_to; RNA declared as such
    back = AlignIO.read(io.StringIO(buf.getvalue()), "nexus")
    assert [str(r.seq) for r in back] == list(res.rows)
    with pytest.raises(OptionError, match="unknown output format 'foo'"):
        Aligner(device="cpu").align(rna, format="foo")
    import trimsa

    with pytest.raises(OptionError, match="unknown output format 'foo'"):
        trimsa.align(rna, device="cpu", format="foo")
    seen = []
    out = trimsa.align(rna, device="cpu", format="phylip",
                       progress=lambda *a: seen.append(a[-1]))
    assert out.rows == res.rows and seen   # three sequences: the library's progress
