"""The triplet library (``Aligner(triplet_votes=...)``, :mod:`trimsa.progressive.triplets`):
its votes against the exact 3-way engine's own alignments, and its options."""

from __future__ import annotations

import numpy as np
import pytest

import trimsa
from trimsa.errors import OptionError
from trimsa.io import as_sequence_set
from trimsa.progressive import engine
from trimsa.progressive.api import Aligner, _library_distances
from trimsa.progressive.consistency import build_library
from trimsa.progressive.triplets import add_triplet_votes, pick_thirds

from .test_progressive import check_alignment, evolve


def _setup(pairs):
    seqs = as_sequence_set(pairs)
    aligner = Aligner()
    scoring = aligner.scoring(seqs)
    used, codes = aligner._compact(seqs)
    sc = engine.make_profile_scoring(scoring.table, used, scoring.gap_open, scoring.gap_extend,
                                     aligner.terminal)
    return seqs, scoring, codes, sc


def test_votes_of_a_band_over_the_whole_cube_are_the_exact_alignments():
    """With a band wider than the sequences and ``share = 1``, each residue's partners are
    the weighted shares of the exact 3-way alignments (the engine's public API) that put
    it in a column with them."""
    pairs = evolve(6, 24, 5)
    seqs, scoring, codes, sc = _setup(pairs)
    lib = build_library(codes, sc.table[:-1, :-1], sc.gap_open, sc.gap_extend, sc.term,
                        posterior=True)
    D = _library_distances(seqs, lib)
    info = add_triplet_votes(lib, seqs, codes, scoring, sc, D, thirds=4, width=100, share=1.0)
    assert info["triplets"] == 15 * 4 and info["thirds"] == 4
    for s, t in [(0, 1), (2, 5), (3, 4)]:
        thirds = pick_thirds(D, np.array([[s, t]]), 4)[0]
        want = {}
        total = 0.0
        for u in thirds:
            aln = trimsa.align_triplets(seqs, [[s, t, int(u)]], scoring=scoring)[0]
            w = 1.0 / (1.0 + D[s, u] + D[t, u])
            total += w
            x = y = 0
            for ca, cb in zip(aln.rows[0], aln.rows[1]):
                if ca != "-" and cb != "-":
                    want[(x, y)] = want.get((x, y), 0.0) + w
                x += ca != "-"
                y += cb != "-"
        maps, probs = lib.partners(s, t)
        got = {(x, int(y)): float(p) for x in range(maps.shape[0])
               for y, p in zip(maps[x], probs[x]) if y >= 0}
        assert got.keys() == {k for k, v in want.items() if v / total >= 0.01}
        for k, v in got.items():
            assert v == pytest.approx(want[k] / total, rel=1e-5)
        back_maps, back_probs = lib.partners(t, s)
        back = {(int(x), y): float(p) for y in range(back_maps.shape[0])
                for x, p in zip(back_maps[y], back_probs[y]) if x >= 0}
        assert back == pytest.approx(got)


def test_share_mixes_the_pairwise_probabilities_with_the_votes():
    pairs = evolve(5, 30, 8)
    seqs, scoring, codes, sc = _setup(pairs)

    def library():
        return build_library(codes, sc.table[:-1, :-1], sc.gap_open, sc.gap_extend, sc.term,
                             posterior=True)

    base, votes, mixed = library(), library(), library()
    D = _library_distances(seqs, base)
    add_triplet_votes(votes, seqs, codes, scoring, sc, D, thirds=2, width=8, share=1.0)
    add_triplet_votes(mixed, seqs, codes, scoring, sc, D, thirds=2, width=8, share=0.25)
    for s in range(5):
        for t in range(5):
            if s == t:
                continue
            want = {}
            for lib, f in ((base, 0.75), (votes, 0.25)):
                m, p = lib.partners(s, t)
                for x in range(m.shape[0]):
                    for y, q in zip(m[x], p[x]):
                        if y >= 0:
                            want[(x, int(y))] = want.get((x, int(y)), 0.0) + f * float(q)
            m, p = mixed.partners(s, t)
            got = {(x, int(y)): float(q) for x in range(m.shape[0])
                   for y, q in zip(m[x], p[x]) if y >= 0}
            # every kept partner has the mixed probability; those left out ranked lower
            for k, v in got.items():
                assert v == pytest.approx(want[k], abs=2e-6)
            for x in range(m.shape[0]):
                kept = [want[(x, int(y))] for y in m[x] if y >= 0]
                dropped = [v for (xx, y), v in want.items() if xx == x and y not in set(m[x])]
                if dropped and len(kept) == m.shape[1]:
                    assert max(dropped) <= min(kept) + 1e-6


def test_run_with_triplet_votes_states_the_stage_and_is_deterministic():
    pairs = evolve(8, 60, 3)
    one = Aligner(triplet_votes=0.5, threads=1).align(pairs)
    two = Aligner(triplet_votes=0.5, threads=2).align(pairs)
    check_alignment(one, pairs)
    assert one.rows == two.rows
    stage = [s for s in one.stages if s.name == "triplets"][0]
    assert stage.items == 28 * 2 and stage.device == "cpu"
    assert "band of 16" in stage.line() and "0.5 of the library's votes" in stage.line()
    # three sequences: one third each
    res = Aligner(triplet_votes=1.0).align(pairs[:3])
    check_alignment(res, pairs[:3])
    assert [s.items for s in res.stages if s.name == "triplets"] == [3]


def test_pick_thirds_takes_the_nearest_to_both():
    rng = np.random.default_rng(2)
    X = rng.random((9, 2))
    D = np.sqrt(((X[:, None] - X[None]) ** 2).sum(-1))
    pairs = np.array([[0, 1], [3, 7], [2, 8]])
    got = pick_thirds(D, pairs, 3)
    for (s, t), row in zip(pairs, got):
        others = [u for u in range(9) if u not in (s, t)]
        want = sorted(others, key=lambda u: (D[s, u] + D[t, u], u))[:3]
        assert row.tolist() == want


@pytest.mark.parametrize("options, words", [
    (dict(triplet_votes=1.5), r"within \[0, 1\]"),
    (dict(triplet_thirds=3), "triplet_votes=0 turns off"),
    (dict(triplet_width=4), "triplet_votes=0 turns off"),
    (dict(triplet_votes=0.5, triplet_thirds=0), "integer >= 1"),
    (dict(triplet_votes=0.5, triplet_width=-1), "integer >= 0"),
    (dict(triplet_votes=0.5, consistency=0), "consistency=0"),
    (dict(triplet_votes=0.5, library="tree"), "library of all pairs"),
])
def test_triplet_vote_options_that_cannot_be_honoured_are_errors(options, words):
    with pytest.raises(OptionError, match=words):
        Aligner(**options)


def test_triplet_votes_without_the_library_of_all_pairs_are_an_error_before_any_work():
    with pytest.raises(OptionError, match="fewer than three"):
        Aligner(triplet_votes=0.5).align(evolve(2, 20, 1))
    with pytest.raises(OptionError, match="beyond its budget"):
        Aligner(triplet_votes=0.5, max_library_cells=10).align(evolve(5, 20, 1))


def test_triplet_votes_over_their_budget_are_an_error(monkeypatch):
    from trimsa.progressive import triplets

    monkeypatch.setattr(triplets, "TRIPLET_CELLS", {"cpu": 1000.0, "gpu": 1000.0})
    with pytest.raises(OptionError, match="beyond the budget"):
        Aligner(triplet_votes=0.5).align(evolve(5, 40, 1))


@pytest.mark.gpu
def test_triplet_votes_on_the_gpu_equal_the_cpu(gpu_memory):
    pairs = evolve(12, 150, 9)
    cpu = Aligner(triplet_votes=0.5, device="cpu").align(pairs)
    gpu = Aligner(triplet_votes=0.5, device="gpu").align(pairs)
    assert gpu.rows == cpu.rows
    assert [s.device for s in gpu.stages if s.name == "triplets"] == ["gpu"]


def test_gpu_triplet_votes_need_affine_gaps():
    with pytest.raises(OptionError, match="affine gaps"):
        Aligner(triplet_votes=0.5, device="gpu", gap=-3).align(evolve(4, 20, 1))


def test_triplet_votes_take_fewer_thirds_within_their_budget(monkeypatch):
    from trimsa.progressive import triplets
    from trimsa.progressive.consistency import all_pairs

    pairs = evolve(6, 40, 2)
    per = triplets.triplet_cells(as_sequence_set(pairs).lengths, all_pairs(6), 1, 16)
    monkeypatch.setattr(triplets, "TRIPLET_CELLS", {"cpu": 1.5 * per, "gpu": 1.5 * per})
    res = Aligner(triplet_votes=0.5, device="cpu").align(pairs)
    stage = [s for s in res.stages if s.name == "triplets"][0]
    assert stage.items == 15 and "(1 of 2 thirds: the budget)" in stage.method
    res = Aligner(triplet_votes=0.5, device="cpu").align(pairs[:3])
    assert "the budget" not in [s for s in res.stages if s.name == "triplets"][0].method
