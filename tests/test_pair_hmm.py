"""The pair HMMs of the library's posteriors (``progressive/pair_hmm.py``)."""

from __future__ import annotations

import numpy as np
import pytest

from trimsa.alphabet import DNA
from trimsa.errors import OptionError
from trimsa.progressive import Aligner
from trimsa.progressive import pair_hmm as ph


def test_trained_emissions_are_a_joint_distribution():
    p = ph.DNA_ODDS * np.outer(ph.DNA_BACKGROUND, ph.DNA_BACKGROUND)
    assert np.isclose(p.sum(), 1.0, atol=1e-5) and np.allclose(p, p.T)
    assert np.isclose(ph.DNA_BACKGROUND.sum(), 1.0, atol=1e-5)
    d1, e1, d2, e2 = ph.DNA_GAPS
    assert 0 < 2 * (d1 + d2) < 1 and 0 < e1 < e2 < 1   # a short and a long gap


def test_ambiguity_codes_score_as_their_sets_of_bases():
    odds = ph.dna_odds()
    code = {c: i for i, c in enumerate(DNA.letters)}
    assert np.allclose(odds[:4, :4], ph.DNA_ODDS)
    assert np.allclose(odds, odds.T)
    p = ph.DNA_ODDS * np.outer(ph.DNA_BACKGROUND, ph.DNA_BACKGROUND)
    A, C, G, T = range(4)
    q = ph.DNA_BACKGROUND
    # R = A or G, Y = C or T
    want = (p[A, C] + p[A, T] + p[G, C] + p[G, T]) / ((q[A] + q[G]) * (q[C] + q[T]))
    assert np.isclose(odds[code["R"], code["Y"]], want)
    want = (p[A, A] + p[A, G] + p[G, A] + p[G, G]) / (q[A] + q[G]) ** 2
    assert np.isclose(odds[code["R"], code["R"]], want)
    # N pairs with anything as often as the emissions' marginal says
    assert np.isclose(odds[code["N"], A], p[:, A].sum() / q[A])


def test_choice_by_alphabet_and_codes():
    used = np.array([0, 2, 3, 14])   # A, G, T, N
    hmm = ph.pair_hmm("auto", "dna", used)
    assert hmm.name == "trained" and hmm.odds.shape == (4, 4)
    assert np.array_equal(hmm.odds, ph.dna_odds()[np.ix_(used, used)])
    assert hmm.odds.flags.c_contiguous and np.array_equal(hmm.gaps, ph.DNA_GAPS)
    assert ph.pair_hmm("auto", "protein", np.arange(5)) is ph.FITTED
    assert ph.pair_hmm("fitted", "dna", used) is ph.FITTED
    with pytest.raises(OptionError, match="DNA and RNA, not protein"):
        ph.pair_hmm("trained", "protein", np.arange(5))
    with pytest.raises(OptionError, match="pair HMM must be one of"):
        ph.pair_hmm("viterbi", "dna", used)


def test_aligner_checks_the_pair_hmm_option():
    with pytest.raises(OptionError, match="pair HMM"):
        Aligner(pair_hmm="hmm")
    with pytest.raises(OptionError, match="consistency=0 or library_votes='alignment'"):
        Aligner(pair_hmm="trained", consistency=0)
    with pytest.raises(OptionError, match="consistency=0 or library_votes='alignment'"):
        Aligner(pair_hmm="fitted", library_votes="alignment")


def test_trained_and_fitted_libraries_differ_and_fitted_is_the_default_of_build_library():
    from trimsa.progressive import consistency

    rng = np.random.default_rng(4)
    base = rng.integers(0, 4, 120)
    codes = []
    for _ in range(5):
        c = base.copy()
        hit = rng.random(c.size) < 0.25
        c[hit] = rng.integers(0, 4, hit.sum())
        p = int(rng.integers(10, 100))
        codes.append(np.concatenate([c[:p], c[p + int(rng.integers(1, 12)):]]))
    table = np.where(np.eye(4, dtype=bool), 1.0, -1.0).astype(np.float32)
    args = (codes, table, -3.0, -1.0, 0.5)
    plain = consistency.build_library(*args, posterior=True)
    fitted = consistency.build_library(*args, posterior=True, hmm=ph.FITTED)
    trained = consistency.build_library(*args, posterior=True,
                                        hmm=ph.pair_hmm("trained", "dna", np.arange(4)))
    assert np.array_equal(plain.probs, fitted.probs) and np.array_equal(plain.maps, fitted.maps)
    assert not np.array_equal(trained.probs, fitted.probs)
    assert trained.n_posterior == trained.n_pairs
    with pytest.raises(ValueError, match="over 4 codes, the table over 3"):
        consistency.build_library([c % 3 for c in codes], table[:3, :3], -3.0, -1.0, 0.5,
                                  posterior=True,
                                  hmm=ph.pair_hmm("trained", "dna", np.arange(4)))
