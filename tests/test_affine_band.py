"""Banded 3-way alignments (``align_triplets(..., bands=...)``): the best global
alignment among those whose path stays in the band, against the brute-force
reference restricted to the band, against the exact engine where the band is the
whole cube, and the checks of the bands themselves."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import trimsa
from trimsa.errors import OptionError
from trimsa.scoring import Scoring

from .affine_reference import all_alignments, natural_sp, rows_from_moves, slow_dp

DNA = np.where(np.eye(4, dtype=bool), 1, -1).astype(np.int32)
LETTERS = "ACGT"


def _random_path(rng, la, lb):
    """A random pairwise path through the (la + 1) x (lb + 1) table: moves 1 (a only),
    2 (b only), 3 (both)."""
    i = j = 0
    out = []
    while i < la or j < lb:
        choices = [m for m, ok in ((1, i < la), (2, j < lb), (3, i < la and j < lb)) if ok]
        m = int(rng.choice(choices))
        out.append(m)
        i += m & 1
        j += m >> 1
    return out


def _ranges(path, la, width, top):
    """Per row ``i`` of a pairwise path, the columns it visits widened by ``width``."""
    lo = np.full(la + 1, 10 ** 9, np.int64)
    hi = np.full(la + 1, -1, np.int64)
    i = j = 0
    lo[0] = hi[0] = 0
    for m in path:
        i += m & 1
        j += m >> 1
        lo[i] = min(lo[i], j)
        hi[i] = max(hi[i], j)
    return np.maximum(lo - width, 0), np.minimum(hi + width, top)


def _band(rng, la, lb, lc, width):
    jlo, jhi = _ranges(_random_path(rng, la, lb), la, width, lb)
    klo, khi = _ranges(_random_path(rng, la, lc), la, width, lc)
    return np.stack([jlo, jhi, klo, khi], axis=1)


def _full(la, lb, lc):
    return np.array([[0, lb, 0, lc]] * (la + 1), np.int64)


def _in_band(band, moves):
    i = j = k = 0
    for m in moves:
        i += m & 1
        j += (m >> 1) & 1
        k += (m >> 2) & 1
        if not (band[i, 0] <= j <= band[i, 1] and band[i, 2] <= k <= band[i, 3]):
            return False
    return True


def _codes(rows):
    return [[LETTERS.index(ch) if ch != "-" else -1 for ch in r] for r in rows]


def _path_of(rows):
    return [sum(1 << d for d in range(3) if rows[d][x] != "-") for x in range(len(rows[0]))]


def _strs(rng, lens):
    return ["".join(rng.choice(list(LETTERS), n)) for n in lens]


# -- the optimum within the band ---------------------------------------------------

@pytest.mark.parametrize("go,ge", [(-3, -1), (0, -2), (-1, -2), (-8, -1)])
def test_banded_optimum_is_the_best_alignment_in_the_band(go, ge):
    """Tiny inputs: every alignment is enumerated, those leaving the band dropped."""
    rng = np.random.default_rng(abs(go) * 10 + abs(ge))
    sc = Scoring.dna(gap_open=go, gap_extend=ge)
    for _ in range(25):
        lens = [int(x) for x in rng.integers(1, 4, 3)]
        strs = _strs(rng, lens)
        band = _band(rng, *lens, int(rng.integers(0, 2)))
        got = trimsa.align_triplets(list(zip("abc", strs)), [[0, 1, 2]], scoring=sc,
                                    bands=[band])[0]
        codes = [[LETTERS.index(ch) for ch in s] for s in strs]
        want = max(natural_sp(rows_from_moves(*codes, mv), DNA, go, ge)
                   for mv in all_alignments(*lens) if _in_band(band, mv))
        assert got.score == want
        assert natural_sp(_codes(got.rows), DNA, go, ge) == got.score
        assert _in_band(band, _path_of(got.rows))
        assert [r.replace("-", "") for r in got.rows] == strs


def test_banded_optimum_equals_the_slow_programme_restricted_to_the_band():
    rng = np.random.default_rng(7)
    sc = Scoring.dna(gap_open=-3, gap_extend=-1)
    for _ in range(6):
        lens = [int(x) for x in rng.integers(5, 10, 3)]
        strs = _strs(rng, lens)
        band = _band(rng, *lens, int(rng.integers(0, 3)))
        got = trimsa.align_triplets(list(zip("abc", strs)), [[0, 1, 2]], scoring=sc,
                                    bands=[band])[0]
        codes = [[LETTERS.index(ch) for ch in s] for s in strs]

        def allowed(i, j, k):
            return bool(band[i, 0] <= j <= band[i, 1] and band[i, 2] <= k <= band[i, 3])

        assert got.score == slow_dp(*codes, DNA, -3, -1, "global", allowed=allowed)
        assert _in_band(band, _path_of(got.rows))


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([(-3, -1), (0, -3), (-10, -1)]))
def test_whole_cube_band_gives_the_exact_alignment(seed, gaps):
    """A band that keeps every cell: the exact engine's alignment, row for row."""
    rng = np.random.default_rng(seed)
    go, ge = gaps
    lens = [int(x) for x in rng.integers(1, 40, 3)]
    recs = list(zip("abc", _strs(rng, lens)))
    sc = Scoring.dna(gap_open=go, gap_extend=ge)
    got = trimsa.align_triplets(recs, [[0, 1, 2]], scoring=sc, bands=[_full(*lens)])[0]
    want = trimsa.align_triplets(recs, [[0, 1, 2]], scoring=sc)[0]
    assert (got.score, got.rows) == (want.score, want.rows)


def test_banded_batch_on_threads_equals_one_at_a_time_and_stays_below_the_optimum():
    rng = np.random.default_rng(11)
    recs = list(zip([f"s{i}" for i in range(8)], _strs(rng, rng.integers(20, 60, 8))))
    seqs = recs
    sc = Scoring.dna(gap_open=-3, gap_extend=-1)
    trip = np.array([rng.choice(8, 3, replace=False) for _ in range(30)])
    lens = np.array([len(recs[i][1]) for i in range(8)])
    bands = [_band(rng, *lens[t], int(rng.integers(0, 6))) for t in trip]
    many = trimsa.align_triplets(seqs, trip, scoring=sc, bands=bands, threads=2)
    exact = trimsa.align_triplets(seqs, trip, scoring=sc)
    for t in range(len(trip)):
        one = trimsa.align_triplets(seqs, trip[t:t + 1], scoring=sc, bands=bands[t:t + 1],
                                    threads=1)[0]
        assert (one.score, one.rows) == (many[t].score, many[t].rows)
        assert many[t].score <= exact[t].score
        assert _in_band(bands[t], _path_of(many[t].rows))


def test_protein_band():
    rng = np.random.default_rng(3)
    aa = "ACDEFGHIKLMNPQRSTVWY"
    recs = [(n, "".join(rng.choice(list(aa), int(rng.integers(10, 30))))) for n in "abc"]
    sc = Scoring.protein(gap_open=-10, gap_extend=-1)
    lens = [len(s) for _, s in recs]
    got = trimsa.align_triplets(recs, [[0, 1, 2]], scoring=sc, bands=[_full(*lens)])[0]
    want = trimsa.align_triplets(recs, [[0, 1, 2]], scoring=sc)[0]
    assert (got.score, got.rows) == (want.score, want.rows)
    narrow = trimsa.align_triplets(recs, [[0, 1, 2]], scoring=sc,
                                   bands=[_band(rng, *lens, 1)])[0]
    assert narrow.score <= want.score
    rows = []
    for r in narrow.rows:
        row = np.full(len(r), -1, np.int64)
        row[[x for x, ch in enumerate(r) if ch != "-"]] = sc.alphabet.encode(r.replace("-", ""))
        rows.append(row)
    assert sc.sum_of_pairs(rows) == narrow.score


# -- the checks ----------------------------------------------------------------------

RECS = [("a", "ACGT"), ("b", "ACG"), ("c", "ACGTT")]


@pytest.mark.parametrize("band,message", [
    (np.zeros((4, 4), np.int64), "shape (5, 4)"),
    (np.array([[0, 3, 0, 5]] * 5, float), "integers"),
    (np.array([[0, 3, 0, 5]] * 4 + [[0, 2, 0, 5]]), "end at j = 3"),
    (np.array([[1, 3, 0, 5]] * 5), "start at j = 0"),
    (np.array([[0, 3, 0, 5]] * 4 + [[0, 4, 0, 5]]), "within 0..3"),
    (np.array([[0, 1, 0, 5], [0, 1, 0, 5], [3, 3, 0, 5], [3, 3, 0, 5], [3, 3, 0, 5]]),
     "skip past"),
    (np.array([[0, 3, 0, 5], [0, 3, 2, 5], [0, 3, 1, 5], [0, 3, 1, 5], [0, 3, 1, 5]]),
     "move back"),
])
def test_bad_bands_are_errors_that_say_where(band, message):
    with pytest.raises(OptionError, match="triplet 0") as err:
        trimsa.align_triplets(RECS, [[0, 1, 2]], bands=[band])
    assert message in str(err.value)


def test_bands_take_global_mode_on_the_cpu_one_per_triplet():
    band = _full(4, 3, 5)
    with pytest.raises(OptionError, match="global"):
        trimsa.align_triplets(RECS, [[0, 1, 2]], mode="local", bands=[band])
    with pytest.raises(OptionError, match="2 given for 1"):
        trimsa.align_triplets(RECS, [[0, 1, 2]], bands=[band, band])


# -- GPU (the same alignments as on the CPU) ------------------------------------------

def _bands_for(rng, seqs, trip, widths):
    out = []
    for t in trip:
        lens = [int(seqs.lengths[x]) for x in t]
        w = int(rng.choice(widths))
        out.append(_full(*lens) if w < 0 else _band(rng, *lens, w))
    return out


@pytest.mark.gpu
@pytest.mark.parametrize("kind", ["dna", "protein", "long"])
def test_gpu_banded_alignments_equal_cpu(kind, gpu_memory):
    from trimsa.io import as_sequence_set

    rng = np.random.default_rng(["dna", "protein", "long"].index(kind))

    def strings(lengths, letters, alphabet):
        return as_sequence_set([(f"s{q}", "".join(rng.choice(list(letters), int(n))))
                                for q, n in enumerate(lengths)], alphabet)

    if kind == "protein":
        seqs = strings(rng.integers(1, 120, 12), "ACDEFGHIKLMNPQRSTVWYBZX", "protein")
        scorings = [Scoring.protein(gap_open=-10, gap_extend=-1)]
        widths = [-1, 0, 1, 3, 8, 20]
    elif kind == "dna":
        seqs = strings(rng.integers(1, 160, 12), "ACGTRYSWKMBDHVN", "dna")
        scorings = [Scoring.dna(gap_open=go, gap_extend=ge) for go, ge in ((-3, -1), (-1, -2),
                                                                          (-8, -1))]
        widths = [-1, 0, 1, 2, 5, 16, 40]
    else:   # several strips and chunks per band, uneven lengths
        seqs = strings(rng.integers(300, 900, 6), "ACGT", "dna")
        scorings = [Scoring.dna(gap_open=-3, gap_extend=-1)]
        widths = [0, 4, 16, 33]
    trip = rng.integers(0, len(seqs), (200 if kind != "long" else 24, 3))
    for sc in scorings:
        bands = _bands_for(rng, seqs, trip, widths)
        gpu = trimsa.align_triplets(seqs, trip, scoring=sc, bands=bands, device="gpu")
        cpu = trimsa.align_triplets(seqs, trip, scoring=sc, bands=bands, device="cpu")
        for g, c in zip(gpu, cpu):
            assert (g.rows, g.score) == (c.rows, c.score)


@pytest.mark.gpu
def test_gpu_banded_batches_by_memory(gpu_memory):
    from trimsa import alphabet
    from trimsa.triplet import _checks, _gpu_affine

    from .fakes import random_set

    rng = np.random.default_rng(4)
    seqs = random_set(rng, rng.integers(50, 200, 8), alphabet.DNA)
    trip = rng.integers(0, len(seqs), (40, 3)).astype(np.int32)
    sc = Scoring.dna(gap_open=-3, gap_extend=-1)
    bands = _bands_for(rng, seqs, trip, [2, 8])
    rows, off = _checks.check_bands(bands, trip, seqs.lengths)
    whole = _gpu_affine.align_banded(seqs, trip, rows, off, sc)
    free = _gpu_affine._free_bytes()
    frac = (_gpu_affine.warp_bytes(200, 200) * 2 + 8 * 200 * 17 * 17) / free
    split = _gpu_affine.align_banded(seqs, trip, rows, off, sc, mem_fraction=frac)
    for x, y in zip(whole, split):
        assert np.array_equal(x, y)
    with pytest.raises(MemoryError, match="banded affine GPU traceback"):
        _gpu_affine.align_banded(seqs, trip, rows, off, sc, mem_fraction=1e-9)


def test_gpu_banded_tracebacks_need_affine_gaps():
    with pytest.raises(OptionError, match="GPU tracebacks take affine gaps"):
        trimsa.align_triplets(RECS, [[0, 1, 2]], bands=[_full(4, 3, 5)], device="gpu",
                              scoring=Scoring.dna(gap=-3))


@pytest.mark.gpu
def test_gpu_banded_leaves_triplets_beyond_the_score_bound_to_the_cpu(gpu_memory):
    from trimsa.io import as_sequence_set

    # scores up to 3 x 6002 x 2001 (the gaps): beyond the bound of the kernel's keys
    seqs = as_sequence_set([("a", "A"), ("b", "C"), ("c", "G" * 6000), ("d", "ACGTAC"),
                            ("e", "ACTTAC"), ("f", "AGGTAC")], "dna")
    sc = Scoring.dna(match=1, mismatch=-1, gap_open=-1000, gap_extend=-1000)
    trip = [[0, 1, 2], [3, 4, 5]]
    bands = [_full(1, 1, 6000), _full(6, 6, 6)]
    gpu = trimsa.align_triplets(seqs, trip, scoring=sc, bands=bands, device="gpu")
    cpu = trimsa.align_triplets(seqs, trip, scoring=sc, bands=bands, device="cpu")
    assert [(g.rows, g.score) for g in gpu] == [(c.rows, c.score) for c in cpu]


def test_gpu_path_splits_and_merges_triplets_in_input_order(monkeypatch):
    """``align_banded(device="gpu")`` sends the triplets within the score bound to the
    GPU and the others to the CPU, and puts the results back in input order: with the
    GPU stood in for by the CPU batch and every other triplet "beyond the bound", the
    result is the CPU's."""
    from trimsa.io import as_sequence_set
    from trimsa.triplet import _gpu_affine, api

    rng = np.random.default_rng(12)
    seqs = as_sequence_set(list(zip([f"s{i}" for i in range(7)],
                                    _strs(rng, rng.integers(5, 40, 7)))))
    sc = Scoring.dna(gap_open=-3, gap_extend=-1)
    trip = np.array([rng.choice(7, 3, replace=False) for _ in range(11)])
    bands = [_band(rng, *(int(seqs.lengths[x]) for x in t), int(rng.integers(0, 4)))
             for t in trip]
    monkeypatch.setattr(_gpu_affine, "traceable",
                        lambda lens, sc: np.arange(len(lens)) % 2 == 0)
    monkeypatch.setattr(_gpu_affine, "align_banded",
                        lambda seqs, trip, rows, off, sc: api._banded_cpu(seqs, trip, rows, off,
                                                                          sc, 1))
    got = api.align_banded(seqs, trip, bands, sc, 1, "gpu")
    want = api.align_banded(seqs, trip, bands, sc, 1, "cpu")
    for x, y in zip(got, want):
        assert np.array_equal(x, y)
