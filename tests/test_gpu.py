"""GPU triplet kernels: bit-identical to the CPU engine; planning checked without a GPU."""

from __future__ import annotations

import sys
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trimsa import alphabet as _alphabet
from trimsa.errors import BackendUnavailableError
from trimsa.scoring import Scoring
from trimsa.triplet import _cpu, _gpu_plan as plan
from tests.fakes import random_set

MODES = (0, 1, 2)


def cpu_scores(seqs, trip, mode, sc):
    out = np.empty(trip.shape[0], dtype=np.int64)
    _cpu.score_batch(seqs.codes, seqs.offsets, trip.astype(np.int32), sc.table,
                     np.int32(sc.gap), mode, mode, out, 8)
    return out


# -- CPU-side: planning ---------------------------------------------------------

@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 40), min_size=3, max_size=12), st.integers(0, 2**31 - 1))
def test_order_matches_cpu_ordering(lengths, seed):
    rng = np.random.default_rng(seed)
    lengths = np.array(lengths)
    trip = rng.integers(0, lengths.size, size=(30, 3))
    idx, lens = plan.order(lengths, trip)
    for t in range(trip.shape[0]):
        s = list(trip[t])
        ln = [lengths[x] for x in s]
        for x, y in ((0, 1), (1, 2), (0, 1)):   # the swaps of _cpu.score_batch
            if ln[x] > ln[y]:
                s[x], s[y] = s[y], s[x]
                ln[x], ln[y] = ln[y], ln[x]
        assert list(idx[t]) == [s[2], s[0], s[1]]
        assert list(lens[t]) == [ln[2], ln[0], ln[1]]


def brute_bound(table, gap):
    """Largest |column score| over every move and residue, padding code included."""
    ext = plan.extended_tables(table, gap)[0]
    k = ext.shape[0]
    best = 0
    for x in range(k):
        for y in range(k):
            for z in range(k):
                for mv in range(1, 8):
                    s = 0
                    r = [(x if mv & 1 else None), (y if mv & 2 else None), (z if mv & 4 else None)]
                    for u, v in ((0, 1), (0, 2), (1, 2)):
                        if r[u] is not None and r[v] is not None:
                            s += ext[r[u], r[v]]
                        elif r[u] is not None or r[v] is not None:
                            s += gap
                    best = max(best, abs(s))
    return best


@pytest.mark.parametrize("sc", [Scoring.dna(), Scoring.dna(5, -4, -7), Scoring.dna(1, -1, 0)])
def test_column_bound_covers_every_column(sc):
    m = plan.column_bound(sc.table, sc.gap)
    assert m >= brute_bound(sc.table, sc.gap)
    assert m <= 3 * int(np.abs(plan.extended_tables(sc.table, sc.gap)).max()) + 2 * abs(sc.gap)


def test_fits_bound_is_exact_threshold():
    m = 7
    # (nl + jpad + kpad) * M + 2 M <= 32767  <=>  nl + jpad + kpad <= 32767 // 7 - 2
    edge = 32767 // m - 2
    assert plan.fits(edge - 20, 10, 10, m)
    assert not plan.fits(edge - 19, 10, 10, m)
    # the sentinel: NEG + M must be below every real value
    neg = plan.neg_sentinel(m, 16)
    b = edge * m
    assert neg + m < -b and neg - m >= -32768 and b + m <= 32767


def test_plan_covers_each_triplet_once_and_routes_overflow():
    rng = np.random.default_rng(1)
    hi = np.where(rng.random(3000) < 0.5, 60, 1200)
    lens = np.sort(rng.integers(0, hi[:, None], size=(3000, 3)), axis=1)[:, [2, 0, 1]]
    m = plan.column_bound(Scoring.dna(40, -30, -50).table, -50)
    for mode in MODES:
        for prec in plan.PRECISIONS:
            launches, trivial = plan.plan(lens, mode, m, prec)
            seen = np.concatenate([ln.items[ln.items >= 0] for ln in launches] + [np.flatnonzero(trivial)])
            assert np.array_equal(np.sort(seen), np.arange(lens.shape[0]))
            g = 1 if mode == 0 else 0
            for ln in launches:
                if ln.bits == 16:
                    assert prec != "int32"
                    for row in ln.items:
                        r = row[row >= 0]
                        jp, kp = plan.padded(lens[r, 1].max(), lens[r, 2].max(), ln.shape)
                        assert plan.fits(lens[r, 0].max() + g, jp, kp, m)
                else:
                    assert ln.lanes == 1
            if prec == "int32":
                assert all(ln.bits == 32 for ln in launches)
            else:
                assert any(ln.bits == 32 for ln in launches)   # long ones overflow 16 bits
                assert any(ln.bits == 16 for ln in launches)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**31 - 1), st.sampled_from(MODES), st.sampled_from(plan.PRECISIONS),
       st.sampled_from([(1, -1, -3), (40, -30, -50), (5, -4, -7)]))
def test_plan_batch_equals_the_reference(seed, mode, prec, scores):
    # the GIL-free planner must make the same launches as order() + plan()
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 40))
    lengths = rng.integers(0, rng.choice([8, 60, 300, 1200]), size=n)
    trip = rng.integers(0, n, size=(int(rng.integers(1, 400)), 3))
    m = plan.column_bound(Scoring.dna(*scores).table, scores[2])
    idx, lens = plan.order(lengths, trip)
    launches, trivial = plan.plan(lens, mode, m, prec)
    idx2, lens2, launches2, trivial2 = plan.plan_batch(lengths, trip, mode, m, prec)
    assert np.array_equal(idx, idx2) and idx2.dtype == np.int32
    assert np.array_equal(lens, lens2) and np.array_equal(trivial, trivial2)
    assert [(a.shape, a.bits) for a in launches] == [(b.shape, b.bits) for b in launches2]
    for a, b in zip(launches, launches2):
        assert np.array_equal(a.items, b.items)
        slots, dst = plan.slot_rows(b.items, idx2)
        full = a.items.ravel() >= 0
        assert np.array_equal(dst, np.where(full, a.items.ravel(), -1))
        assert np.array_equal(slots[full], idx[a.items.ravel()[full]])
        assert (slots[~full] == -1).all()


def test_plan_batch_pair_over_the_bound_goes_to_32_bit():
    # each triplet alone fits 16 bits with M = 60, their pair (max of each extent) does not
    lengths = np.array([300, 40, 80, 150, 100, 140])
    trip = np.array([[0, 1, 2], [3, 4, 5]])
    for planner in ("reference", "fast"):
        if planner == "reference":
            launches, _ = plan.plan(plan.order(lengths, trip)[1], 0, 60, "auto")
        else:
            launches = plan.plan_batch(lengths, trip, 0, 60, "auto")[2]
        assert [(ln.bits, ln.items.tolist()) for ln in launches] == [(32, [[1], [0]])]


@pytest.mark.parametrize("mode", MODES)
def test_compact_alphabet_keeps_every_score(mode):
    # the kernels see only the letters that occur; the CPU engine scores the same either way
    rng = np.random.default_rng(mode)
    sc = Scoring.dna(2, -1, -2)
    letters = np.array([0, 3, 7, 14])                      # A, T and two IUPAC codes
    lens = rng.integers(0, 30, size=12)
    offsets = np.r_[0, np.cumsum(lens)].astype(np.int64)
    codes = letters[rng.integers(0, 4, size=int(offsets[-1]))].astype(np.uint8)
    small, table = plan.compact_alphabet(codes, sc.table)
    assert table.shape == (4, 4) and small.max() == 3
    np.testing.assert_array_equal(table[small[:, None], small[None, :]], sc.table[codes[:, None], codes[None, :]])
    trip = rng.integers(0, 12, size=(60, 3))
    full = cpu_scores(SimpleNamespace(codes=codes, offsets=offsets), trip, mode, sc)
    part = cpu_scores(SimpleNamespace(codes=small, offsets=offsets), trip, mode,
                      SimpleNamespace(table=table, gap=sc.gap))
    np.testing.assert_array_equal(full, part)
    # every letter used: nothing to do
    assert plan.compact_alphabet(np.arange(15, dtype=np.uint8), sc.table)[1] is sc.table


def test_profile_bytes_per_group_and_parity():
    # 4 x 8 threads of 8 x 8 tiles: 4 groups per block, 2 parities, 96 entries per letter
    assert plan.profile_bytes((8, 8, 4, 8), 16, 5) == 4 * 2 * 5 * 96 * 4
    assert plan.profile_bytes((8, 8, 4, 8), 32, 5) == 4 * 2 * 5 * 96 * 4
    assert plan.profile_bytes((4, 4, 2, 2), 16, 5) == 32 * 2 * 5 * 16 * 4
    assert plan.profile_bytes((8, 8, 1, 1), 16, 5) == 0


def test_choose_shape_cheapest_cover():
    def cost(c):
        return c[0] * c[1] * c[2] * c[3] * plan.TILE_COST.get((c[0], c[1]), 1.0)

    for rows in range(0, 40):
        for cols in range(rows, 70):
            s = plan.choose_shape(np.array([rows]), np.array([cols]))[0]
            covers = [c for c in plan.CONFIGS[:-1]
                      if max(rows, 1) <= c[0] * c[2] and max(cols, 1) <= c[1] * c[3]]
            if covers:
                assert plan.CONFIGS[s] in covers and s != plan.MULTI
                assert cost(plan.CONFIGS[s]) == min(cost(c) for c in covers)
            else:
                assert s == plan.MULTI


def test_scratch_only_for_multi_region():
    lens = np.array([[10, 5, 8], [900, 300, 700]])
    m = plan.column_bound(Scoring.dna().table, -2)
    launches, _ = plan.plan(lens, 0, m, "int32")
    by = {ln.shape: ln for ln in launches}
    small = [ln for ln in launches if ln.shape != plan.MULTI][0]
    assert plan.scratch_words(small, lens, 0) == (0, 0, 0)
    words, nl, kw = plan.scratch_words(by[plan.MULTI], lens, 0)
    tj, tk, p, q = plan.CONFIGS[plan.MULTI]
    assert nl == 901 and kw >= 701 and words == 2 * nl * (kw + p * tj + 1)


def test_import_error_path(monkeypatch):
    from trimsa.triplet import _gpu

    monkeypatch.setitem(sys.modules, "cupy", None)
    assert _gpu.available() is None
    with pytest.raises(BackendUnavailableError) as e:
        _gpu.require()
    msg = str(e.value)
    assert "CuPy" in msg and "install" in msg and "\n" not in msg


# -- GPU: bit-identical to the CPU ----------------------------------------------

def _gpu_or_skip():
    from trimsa.triplet import _gpu

    if _gpu.available() is None:
        pytest.skip("no CuPy or no GPU")
    return _gpu


@pytest.mark.gpu
@pytest.mark.parametrize("prec", ["int32", "int16"])
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("kind", ["dna", "protein"])
def test_gpu_equals_cpu_mixed(kind, mode, prec):
    _gpu = _gpu_or_skip()
    rng = np.random.default_rng()
    alpha = _alphabet.get(kind)
    sc = Scoring.dna() if kind == "dna" else Scoring.protein("BLOSUM62")
    lens = np.concatenate([rng.integers(1, 301, size=60), [1, 2, 3, 500, 700]])
    seqs = random_set(rng, lens, alpha)
    trip = rng.integers(0, len(seqs), size=(800, 3))
    trip[:5] = [[60, 61, 62], [61, 61, 61], [63, 64, 0], [62, 63, 1], [0, 0, 0]]
    st_ = {}
    got = _gpu.score_triplets(seqs, trip, mode, sc, precision=prec, stats=st_)
    assert np.array_equal(got, cpu_scores(seqs, trip, mode, sc))
    bits = {ln["bits"] for ln in st_["launches"]}
    assert (bits == {32}) if prec == "int32" else (16 in bits)


@pytest.mark.gpu
@pytest.mark.parametrize("mode", MODES)
def test_gpu_profile_kernel_equals_cpu(mode):
    # short DNA items of groups of 16 and 32 threads: the launches that take the
    # A-residue profile (16 bits, staged); mixed lengths, so pairs and planes are padded
    _gpu = _gpu_or_skip()
    rng = np.random.default_rng()
    lens = np.concatenate([rng.integers(20, 65, size=40), [64, 64, 33, 17]])
    seqs = random_set(rng, lens, _alphabet.get("dna"))
    trip = rng.integers(0, len(seqs), size=(3000, 3))
    sc = Scoring.dna(2, -1, -2)
    st_ = {}
    got = _gpu.score_triplets(seqs, trip, mode, sc, precision="int16", stats=st_)
    assert np.array_equal(got, cpu_scores(seqs, trip, mode, sc))
    assert any(ln.get("profile") for ln in st_["launches"])


@pytest.mark.gpu
@pytest.mark.parametrize("mode", MODES)
def test_gpu_tall_tiles_equal_cpu(mode):
    # 32-bit launches of small alphabets take 16 x 8 tiles whose B x C scores come from the
    # profile: an asymmetric table (so that a transposed read would show), short items
    # (one region, staged) and longer ones (several regions, unstaged), mixed lengths
    _gpu = _gpu_or_skip()
    rng = np.random.default_rng()
    dna = Scoring.dna()
    table = dna.table.copy()
    acgt = [dna.alphabet.encode(x)[0] for x in "ACGT"]
    for x in acgt:
        for y in acgt:
            table[x, y] = rng.integers(-6, 7)
    sc = Scoring(dna.alphabet, table, 0, -4)
    assert not np.array_equal(sc.table, sc.table.T)
    lens = np.concatenate([rng.integers(8, 65, size=40), rng.integers(65, 300, size=12), [64, 32, 200]])
    seqs = random_set(rng, lens, _alphabet.get("dna"))
    short = np.flatnonzero(lens <= 64)
    for trip in (short[rng.integers(0, short.size, size=(1200, 3))], rng.integers(0, len(seqs), size=(300, 3))):
        st_ = {}
        got = _gpu.score_triplets(seqs, trip, mode, sc, precision="int32", stats=st_)
        assert np.array_equal(got, cpu_scores(seqs, trip, mode, sc))
        tall = [ln for ln in st_["launches"] if ln["shape"][0] > 8]
        assert tall and all(ln["profile"] and ln["bits"] == 32 for ln in tall)
        if trip.shape[0] == 1200:
            # planes of <= 32 x 33..64 cells: the one-region tall configuration
            assert any(tuple(ln["shape"]) == (16, 8, 2, 8) for ln in tall)


@pytest.mark.gpu
@pytest.mark.parametrize("prec", ["int32", "int16"])
@pytest.mark.parametrize("scores", [(5, -4, -1), (2, -1, -1), (3, -1, 0)])
def test_gpu_semiglobal_far_faces_with_padding(scores, prec):
    # cheap gaps make moves through padding score positively (match + 2 gap > 0):
    # the semiglobal readout folds padded cells of the far faces unmasked, which
    # is exact only because such a path never beats its projection onto the face
    # (gap scores are never positive: Scoring refuses them)
    _gpu = _gpu_or_skip()
    rng = np.random.default_rng()
    sc = Scoring.dna(*scores)
    lens = np.concatenate([rng.integers(1, 120, size=50), [1, 2, 33, 64, 65, 200]])
    seqs = random_set(rng, lens, _alphabet.get("dna"))
    trip = rng.integers(0, len(seqs), size=(600, 3))
    got = _gpu.score_triplets(seqs, trip, 1, sc, precision=prec)
    assert np.array_equal(got, cpu_scores(seqs, trip, 1, sc))


@pytest.mark.gpu
@pytest.mark.parametrize("scores, imad", [((2, -1, -2), True), ((3, -9, -2), False)])
@pytest.mark.parametrize("mode", MODES)
def test_gpu_16_bit_kernels_with_and_without_the_imad_update(mode, scores, imad):
    # short items (planes of one region: staged launches, with and without the profile),
    # then longer ones (unstaged, several regions, some split); the IMAD update (S16x2N)
    # is taken for staged semiglobal launches, and only where every shifted score is >= 0
    _gpu = _gpu_or_skip()
    rng = np.random.default_rng()
    sc = Scoring.dna(*scores)
    lens = np.concatenate([rng.integers(1, 33, size=40), rng.integers(33, 260, size=10), [32, 17]])
    seqs = random_set(rng, lens, _alphabet.get("dna"))
    short = np.flatnonzero(lens <= 32)
    for trip, staged in ((short[rng.integers(0, short.size, size=(1500, 3))], True),
                         (rng.integers(0, len(seqs), size=(300, 3)), None)):
        st_ = {}
        got = _gpu.score_triplets(seqs, trip, mode, sc, precision="int16", stats=st_)
        assert np.array_equal(got, cpu_scores(seqs, trip, mode, sc))
        l16 = [ln for ln in st_["launches"] if ln["bits"] == 16]
        grouped = [ln["stage"] and ln["shape"][2] * ln["shape"][3] > 1 for ln in l16]
        assert l16 and [ln["imad"] for ln in l16] == [imad and mode == 1 and g for g in grouped]
        if staged:
            assert all(ln["stage"] for ln in l16) and any(grouped)


@pytest.mark.gpu
@pytest.mark.parametrize("mode", MODES)
def test_gpu_overflow_routes_to_32_bits(mode):
    _gpu = _gpu_or_skip()
    rng = np.random.default_rng()
    sc = Scoring.dna(match=60, mismatch=-40, gap=-70)
    seqs = random_set(rng, rng.integers(150, 600, size=8), _alphabet.get("dna"))
    trip = rng.integers(0, 8, size=(40, 3))
    st_ = {}
    got = _gpu.score_triplets(seqs, trip, mode, sc, precision="int16", stats=st_)
    assert np.array_equal(got, cpu_scores(seqs, trip, mode, sc))
    assert 32 in {ln["bits"] for ln in st_["launches"]}
    # identical sequences: the global score is 3 * match * L, far beyond 16 bits
    same = random_set(rng, [400], _alphabet.get("dna"))
    trip = np.array([[0, 0, 0]])
    assert _gpu.score_triplets(same, trip, 0, sc, precision="int16")[0] == 3 * 60 * 400


@pytest.mark.gpu
@pytest.mark.parametrize("prec", ["int32", "int16"])
@pytest.mark.parametrize("mode", MODES)
def test_gpu_split_columns_equal_cpu(mode, prec):
    _gpu = _gpu_or_skip()
    rng = np.random.default_rng()
    seqs = random_set(rng, rng.integers(100, 700, size=6), _alphabet.get("protein"))
    sc = Scoring.protein("BLOSUM62")
    trip = rng.integers(0, 6, size=(5, 3))
    st_ = {}
    got = _gpu.score_triplets(seqs, trip, mode, sc, precision=prec, stats=st_)
    assert any(ln["split"] for ln in st_["launches"])
    assert np.array_equal(got, cpu_scores(seqs, trip, mode, sc))
    again = _gpu.score_triplets(seqs, trip, mode, sc, precision=prec, split="never")
    assert np.array_equal(again, got)


@pytest.mark.gpu
def test_gpu_through_api():
    _gpu_or_skip()
    from trimsa.triplet import score_triplets

    rng = np.random.default_rng()
    seqs = random_set(rng, rng.integers(1, 80, size=12), _alphabet.get("dna"))
    for mode in ("global", "semiglobal", "local"):
        assert np.array_equal(score_triplets(seqs, mode=mode, device="gpu"),
                              score_triplets(seqs, mode=mode, device="cpu"))


# -- CPU-side: the 16-bit rule against an emulation of wrapping arithmetic ------

def _wrap16(x):
    return ((x + 32768) & 0xFFFF) - 32768


def _global_sweep(a, b, c, ext, gap, rows, cols, wrap):
    """Global score over a padded (rows+1) x (cols+1) plane, adding as ``wrap`` does.

    Cells outside the grid and the layer before the first are the kernel's
    sentinel; residues past a sequence's end are the padding code. Every
    ``H + column score`` goes through ``wrap`` (identity: exact integers).
    """
    m = plan.column_bound(ext[:-1, :-1], gap)
    neg = plan.neg_sentinel(m, 16)
    pad = ext.shape[0] - 1
    la, lb, lc = len(a), len(b), len(c)
    ra = list(a) + [pad] * 0
    rb = list(b) + [pad] * (rows - lb)
    rc = list(c) + [pad] * (cols - lc)
    prev = [[neg] * (cols + 1) for _ in range(rows + 1)]
    out = None
    for i in range(la + 1):
        cur = [[neg] * (cols + 1) for _ in range(rows + 1)]
        x = ra[i - 1] if i else pad
        for j in range(rows + 1):
            y = rb[j - 1] if j else pad
            for k in range(cols + 1):
                z = rc[k - 1] if k else pad
                if i == j == k == 0:
                    cur[0][0] = 0
                    continue
                best = None
                for di, dj, dk in ((1, 1, 1), (1, 1, 0), (1, 0, 1), (0, 1, 1), (1, 0, 0), (0, 1, 0), (0, 0, 1)):
                    pi, pj, pk = i - di, j - dj, k - dk
                    if pj < 0 or pk < 0:
                        h = neg
                    elif pi < 0:
                        h = neg
                    else:
                        h = (prev if di else cur)[pj][pk]
                    s = 0
                    for u, v, du, dv in ((x, y, di, dj), (x, z, di, dk), (y, z, dj, dk)):
                        s += ext[u, v] if du and dv else (gap if du or dv else 0)
                    t = wrap(h + s)
                    best = t if best is None else max(best, t)
                cur[j][k] = best
        prev = cur
        if i == la:
            out = cur[lb][lc]
    return out


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**31 - 1))
def test_16_bit_rule_exact_when_it_fits(seed):
    rng = np.random.default_rng(seed)
    match = int(rng.integers(100, 500))
    sc = Scoring.dna(match, -int(rng.integers(50, 400)), -int(rng.integers(50, 400)))
    ext = plan.extended_tables(sc.table, sc.gap)[0]
    m = plan.column_bound(sc.table, sc.gap)
    a, b, c = (list(rng.integers(0, 4, size=int(rng.integers(0, 5)))) for _ in range(3))
    rows, cols = len(b) + int(rng.integers(0, 3)), len(c) + int(rng.integers(0, 3))
    exact = _global_sweep(a, b, c, ext, sc.gap, len(b), len(c), lambda v: v)
    if plan.fits(len(a) + 1, rows, cols, m):
        assert _global_sweep(a, b, c, ext, sc.gap, rows, cols, _wrap16) == exact


class _Imad16:
    """The low half of a 32-bit IMAD ``v + x`` on two packed 16-bit values (``S16x2N``).

    Returns the half's wrapped sum, and counts the additions whose low half
    carries into the high one (a carry would change the other triplet's value).
    """

    def __init__(self):
        self.carries = 0

    def __call__(self, v, x):
        if (v & 0xFFFF) + (x & 0xFFFF) > 0xFFFF:
            self.carries += 1
        return _wrap16(v + x)


def _shifted_cell(prev, cur, j, k, x, za, yb, zc, wrap, imad=None):
    """The kernel's update of one inner cell of ``H'``, operation by operation (in its order).

    ``imad``: the IMAD update of the staged ``S16x2N`` and 32-bit kernels, which
    adds ``x_ac`` and ``x_ab`` through ``imad``: ``dg + x_ac`` (shared with the cell
    below), ``lf + x_ac``, ``max(dg + x_ac + x_bc, up) + x_ab``.
    """
    xab, xac, xbc = x[za, yb], x[za, zc], x[yb, zc]
    if imad is None:
        d = wrap(prev[j - 1][k - 1] + xbc)
        lf = max(wrap(prev[j][k - 1] + xac), prev[j][k])
        m = max(wrap(d + xac), prev[j - 1][k])
        m = max(wrap(m + xab), lf)
    else:
        d = imad(prev[j - 1][k - 1], xac)
        lf = imad(prev[j][k - 1], xac)
        m = max(wrap(d + xbc), prev[j - 1][k])
        m = max(imad(m, xab), lf, prev[j][k])
    m = max(wrap(cur[j - 1][k - 1] + xbc), m)
    return max(m, cur[j - 1][k], cur[j][k - 1])


def _global_sweep_shifted(a, b, c, ext, gap, rows, cols, wrap, imad=None):
    """The global kernel's sweep of ``H' = H - 2*gap*(i+j+k)``, operation by operation.

    The same padded plane as :func:`_global_sweep`; every addition goes
    through ``wrap``, in the kernel's order (``H' + x_bc``, then ``+ x_ac``, then ``+ x_ab``;
    with ``imad``, the IMAD update of :func:`_shifted_cell`). Returns ``H(la, lb, lc)``.
    """
    neg = plan.neg_sentinel(plan.global_bound(ext[:-1, :-1], gap), 16)
    x = ext.astype(np.int64) - 2 * gap           # a symmetric table: one orientation
    pad = ext.shape[0] - 1
    la, lb, lc = len(a), len(b), len(c)
    rb = list(b) + [pad] * (rows - lb)
    rc = list(c) + [pad] * (cols - lc)
    prev = [[neg] * (cols + 1) for _ in range(rows + 1)]
    for i in range(la + 1):
        z = a[i - 1] if i else pad
        cur = [[0] * (cols + 1) for _ in range(rows + 1)]
        for j in range(rows + 1):
            for k in range(cols + 1):
                if j == 0 and k == 0:
                    cur[0][0] = 0                                # H(i,0,0) = 2*gap*i
                elif j == 0:
                    cur[0][k] = max(wrap(prev[0][k - 1] + x[z, rc[k - 1]]), prev[0][k], cur[0][k - 1])
                elif k == 0:
                    cur[j][0] = max(wrap(prev[j - 1][0] + x[z, rb[j - 1]]), prev[j][0], cur[j - 1][0])
                else:
                    cur[j][k] = _shifted_cell(prev, cur, j, k, x, z, rb[j - 1], rc[k - 1], wrap, imad)
        prev = cur
    return prev[lb][lc] + 2 * gap * (la + lb + lc)


@pytest.mark.parametrize("sc", [Scoring.dna(), Scoring.dna(5, -4, -7), Scoring.dna(1, -1, 0),
                                Scoring.dna(40, -30, -50)])
def test_global_bound_covers_every_shifted_column(sc):
    # brute force over residues: |x3| <= 3 MI, |x2| <= 2 MI; MC covers x3, x2 and x_ab + x_ac
    mi, mc = plan.global_bound(sc.table, sc.gap)
    x = plan.extended_tables(sc.table, sc.gap)[0].astype(np.int64) - 2 * sc.gap
    k = x.shape[0]
    for p_ in range(k):
        for q_ in range(k):
            assert abs(x[p_, q_]) <= 2 * mi and abs(x[p_, q_]) <= mc
            for r_ in range(k):
                x3 = x[p_, q_] + x[p_, r_] + x[q_, r_]
                assert abs(x3) <= 3 * mi and abs(x3) <= mc
                assert abs(x[p_, q_] + x[p_, r_]) <= mc


@pytest.mark.parametrize("sc", [Scoring.dna(), Scoring.dna(5, -4, -7), Scoring.dna(40, -30, -50),
                                Scoring.dna(1, -9, -1)])
def test_local_bound_covers_the_partial_sums(sc):
    # brute force: MI = M bounds every column score; MC also bounds what the kernel adds
    # to one cell value in a step: x, x_bc + x_ac - 2g and x_ab + x_ac + x_bc - 2g (x = sub)
    mi, mc = plan.bound(sc.table, sc.gap, 2)
    assert mi == plan.column_bound(sc.table, sc.gap) <= mc
    x = plan.extended_tables(sc.table, sc.gap)[0].astype(np.int64)
    k = x.shape[0]
    for a_ in range(k):
        for b_ in range(k):
            assert abs(x[a_, b_]) <= mc
            for c_ in range(k):
                assert abs(x[b_, c_] + x[a_, c_] - 2 * sc.gap) <= mc
                assert abs(x[a_, b_] + x[a_, c_] + x[b_, c_] - 2 * sc.gap) <= mc


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**31 - 1))
def test_shifted_global_sweep_is_exact_and_16_bit_exact_when_it_fits(seed):
    rng = np.random.default_rng(seed)
    sc = Scoring.dna(int(rng.integers(1, 500)), -int(rng.integers(0, 400)), int(rng.integers(-400, 1)))
    ext = plan.extended_tables(sc.table, sc.gap)[0]
    a, b, c = (list(rng.integers(0, 4, size=int(rng.integers(0, 5)))) for _ in range(3))
    rows, cols = len(b) + int(rng.integers(0, 3)), len(c) + int(rng.integers(0, 3))
    exact = _global_sweep(a, b, c, ext, sc.gap, len(b), len(c), lambda v: v)
    # the shift is exact in unbounded integers, on the padded plane too
    assert _global_sweep_shifted(a, b, c, ext, sc.gap, rows, cols, lambda v: v) == exact
    if plan.fits(len(a) + 1, rows, cols, plan.bound(sc.table, sc.gap, 0)):
        assert _global_sweep_shifted(a, b, c, ext, sc.gap, rows, cols, _wrap16) == exact
        _assert_imad_exact(lambda imad: _global_sweep_shifted(a, b, c, ext, sc.gap, rows, cols, _wrap16,
                                                              imad=imad), sc, 0, exact)


def _assert_imad_exact(sweep, sc, mode, exact):
    """Where :func:`plan.imad_ok` takes the table, the IMAD update (``S16x2N``) in 16 bits
    gives the exact score and never carries from the low half into the high one."""
    if plan.imad_ok(plan.extended_tables(sc.table, sc.gap, mode), sc.gap, mode):
        imad = _Imad16()
        assert sweep(imad) == exact
        assert imad.carries == 0


@pytest.mark.parametrize("scores, ok", [((1, -1, -3), True), ((2, -1, -2), True), ((5, -4, -2), True),
                                        ((5, -4, -1), False), ((1, -9, -1), False), ((1, -1, 0), False)])
def test_imad_ok_is_every_shifted_score_nonnegative(scores, ok):
    sc = Scoring.dna(*scores)
    for mode in (0, 1):
        tabs = plan.extended_tables(sc.table, sc.gap, mode)
        x = tabs.astype(np.int64) - 2 * sc.gap
        assert plan.imad_ok(tabs, sc.gap, mode) == ok == bool((x >= 0).all())
    assert not plan.imad_ok(plan.extended_tables(sc.table, sc.gap, 2), sc.gap, 2)
    # BLOSUM62 (lowest -4) with gap -4 or worse: every x = sub - 2 gap >= 0
    prot = Scoring.protein("BLOSUM62")
    assert plan.imad_ok(plan.extended_tables(prot.table, -4, 0), -4, 0)
    assert not plan.imad_ok(plan.extended_tables(prot.table, -1, 0), -1, 0)


def test_imad_update_carries_with_a_negative_score():
    # the rule is needed: with x_mismatch = -9 - 2 * (-1) < 0, small values of H' cross
    # zero under the IMAD update, and the low half carries into the high one
    sc = Scoring.dna(1, -9, -1)
    ext = plan.extended_tables(sc.table, sc.gap)[0]
    a, b, c = [0, 1, 2, 3], [1, 2, 3, 0], [2, 3, 0, 1]
    exact = _global_sweep(a, b, c, ext, sc.gap, 4, 4, lambda v: v)
    imad = _Imad16()
    assert _global_sweep_shifted(a, b, c, ext, sc.gap, 4, 4, _wrap16, imad=imad) == exact
    assert imad.carries > 0 and not plan.imad_ok(plan.extended_tables(sc.table, sc.gap), sc.gap, 0)


def test_shifted_16_bit_rule_rejects_a_real_overflow():
    sc = Scoring.dna(900, -900, -900)
    ext = plan.extended_tables(sc.table, sc.gap)[0]
    a = [0, 1, 2, 3] * 3 + [0]
    exact = _global_sweep(a, a, a, ext, sc.gap, 13, 13, lambda v: v)
    assert _global_sweep_shifted(a, a, a, ext, sc.gap, 13, 13, _wrap16) != exact
    assert not plan.fits(14, 13, 13, plan.bound(sc.table, sc.gap, 0))


def _one_triplet_cpu(a, b, c, mode, sc):
    """The CPU engine's score of one triplet of code lists (the reference of the emulations)."""
    seqs = SimpleNamespace(codes=np.array(a + b + c, dtype=np.uint8),
                           offsets=np.array([0, len(a), len(a) + len(b), len(a + b + c)], dtype=np.int64))
    return int(cpu_scores(seqs, np.array([[0, 1, 2]]), mode, sc)[0])


def _random_sweep_case(seed, mode):
    """``(rng, scoring, a, b, c, rows, cols, CPU score)``: a random DNA triplet, ``a`` the
    longest (the kernel's layers, so the padding stays in the plane), on a padded plane."""
    rng = np.random.default_rng(seed)
    sc = Scoring.dna(int(rng.integers(1, 500)), -int(rng.integers(0, 400)), -int(rng.integers(0, 400)))
    b, c = (list(rng.integers(0, 4, size=int(rng.integers(1, 6)))) for _ in range(2))
    a = list(rng.integers(0, 4, size=int(rng.integers(max(len(b), len(c)), 7))))
    rows, cols = len(b) + int(rng.integers(0, 10)), len(c) + int(rng.integers(0, 10))
    return rng, sc, a, b, c, rows, cols, _one_triplet_cpu(a, b, c, mode, sc)


def _semiglobal_sweep_shifted(a, b, c, ext, gap, rows, cols, wrap, tile=8, layers=None, imad=None):
    """The semiglobal kernel's sweep of ``H'`` and its Horner folds, operation by operation.

    ``ext`` is the semiglobal table (:func:`plan.extended_tables` with mode 1,
    whose padding residue adds 0 to ``H'``). ``a`` is swept layer by layer over
    a padded ``rows x cols`` plane of ``b`` x ``c`` (and ``layers - len(a)``
    padding layers, as the shorter triplet of a 16-bit pair sees them); the
    zero faces past a sequence's end repeat its last value. As in the kernel,
    only the plane's last row and column are folded (they hold the far faces
    j = len(b) and k = len(c)), in segments of ``tile`` cells from the
    segment's end, ``t = max(t + 2g, H'[x])``, then ``t + 2g * (...)`` with
    the face's own index; the layer ``len(a)`` is folded row by row, and
    layers past it are not folded. ``imad``: the IMAD update (:func:`_shifted_cell`).
    """
    w = 2 * gap
    x = ext.astype(np.int64) - w
    pad = ext.shape[0] - 1
    la, lb, lc = len(a), len(b), len(c)
    rb = list(b) + [pad] * (rows - lb)
    rc = list(c) + [pad] * (cols - lc)
    ra = list(a) + [pad] * ((layers or la) - la)
    prev = [[-w * (min(j, lb) + min(k, lc)) for k in range(cols + 1)] for j in range(rows + 1)]
    best = 0

    def fold(vals, idx0):
        # segments of the kernel's tiles: cells idx0 + 1 .. idx0 + n with their H'
        out = None
        for s0 in range(0, len(vals), tile):
            seg = vals[s0:s0 + tile]
            t = seg[-1]
            for v in reversed(seg[:-1]):
                t = max(wrap(t + w), v)
            v = wrap(t + w * (idx0 + s0 + 1))
            out = v if out is None else max(out, v)
        return out

    for i, z in enumerate(ra, start=1):
        cur = [[0] * (cols + 1) for _ in range(rows + 1)]
        for j in range(rows + 1):
            for k in range(cols + 1):
                if j == 0 or k == 0:
                    cur[j][k] = -w * (i + min(j, lb) + min(k, lc))
                    continue
                cur[j][k] = _shifted_cell(prev, cur, j, k, x, z, rb[j - 1], rc[k - 1], wrap, imad)
        if i <= la:
            best = max(best, fold(cur[rows][1:], i + lb), fold([cur[j][cols] for j in range(1, rows + 1)], i + lc))
        if i == la:
            for j in range(1, rows + 1):
                best = max(best, fold(cur[j][1:], i + j))
        prev = cur
    return best


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**31 - 1))
def test_shifted_semiglobal_sweep_is_exact_and_16_bit_exact_when_it_fits(seed):
    rng, sc, a, b, c, rows, cols, exact = _random_sweep_case(seed, 1)
    ext = plan.extended_tables(sc.table, sc.gap, 1)[0]
    layers = len(a) + int(rng.integers(0, 3))
    # the shift, the transparent padding and the Horner folds are exact in unbounded integers
    assert _semiglobal_sweep_shifted(a, b, c, ext, sc.gap, rows, cols, lambda v: v, layers=layers) == exact
    if plan.fits(layers, rows, cols, plan.bound(sc.table, sc.gap, 1)):
        assert _semiglobal_sweep_shifted(a, b, c, ext, sc.gap, rows, cols, _wrap16, layers=layers) == exact
        _assert_imad_exact(lambda imad: _semiglobal_sweep_shifted(a, b, c, ext, sc.gap, rows, cols, _wrap16,
                                                                  layers=layers, imad=imad), sc, 1, exact)


def test_semiglobal_padding_needs_its_own_score():
    # with the padding scoring min(gap, 0), as in the other modes, the last row of a padded
    # plane would not hold the far face: this case then scores above the CPU engine
    sc = Scoring.dna(1, -1, -2)
    a, b, c = [3, 0, 1, 3, 1], [3, 3], [0]
    exact = _one_triplet_cpu(a, b, c, 1, sc)
    good = plan.extended_tables(sc.table, sc.gap, 1)[0]
    bad = plan.extended_tables(sc.table, sc.gap, 0)[0]
    assert _semiglobal_sweep_shifted(a, b, c, good, sc.gap, 5, 4, lambda v: v) == exact
    assert _semiglobal_sweep_shifted(a, b, c, bad, sc.gap, 5, 4, lambda v: v) > exact


def _local_sweep(a, b, c, ext, gap, rows, cols, wrap):
    """The local kernel's sweep of ``H`` (zero faces, floor 0), operation by operation.

    ``a`` is swept layer by layer over a padded ``rows x cols`` plane; every
    addition goes through ``wrap`` in the kernel's order, with ``x = sub`` and
    ``2g`` held back until a cell's last operation: ``M = max(max(H + x_bc +
    (x_ac - 2g), up) + x_ab, max(left + x_ac, H))``, then ``max(max3(max(diag +
    x_bc, M), up, left) + 2g, 0)``; the best cell of the whole padded sweep is
    the score, as the kernel folds it.
    """
    w = 2 * gap
    x = ext.astype(np.int64)
    pad = ext.shape[0] - 1
    rb = list(b) + [pad] * (rows - len(b))
    rc = list(c) + [pad] * (cols - len(c))
    prev = [[0] * (cols + 1) for _ in range(rows + 1)]
    best = 0
    for z in a:
        cur = [[0] * (cols + 1) for _ in range(rows + 1)]
        for j in range(1, rows + 1):
            for k in range(1, cols + 1):
                xab, xac, xbc = x[z, rb[j - 1]], x[z, rc[k - 1]], x[rb[j - 1], rc[k - 1]]
                d = wrap(prev[j - 1][k - 1] + xbc)
                m = max(wrap(d + wrap(xac - w)), prev[j - 1][k])
                low = max(wrap(prev[j][k - 1] + xac), prev[j][k])
                m = max(wrap(m + xab), low)
                y = max(wrap(cur[j - 1][k - 1] + xbc), m, cur[j - 1][k], cur[j][k - 1])
                cur[j][k] = max(wrap(y + w), 0)
                best = max(best, cur[j][k])
        prev = cur
    return best


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**31 - 1))
def test_local_sweep_is_exact_and_16_bit_exact_when_it_fits(seed):
    _, sc, a, b, c, rows, cols, exact = _random_sweep_case(seed, 2)
    ext = plan.extended_tables(sc.table, sc.gap)[0]
    # the operation order and the unmasked padding are exact in unbounded integers
    assert _local_sweep(a, b, c, ext, sc.gap, rows, cols, lambda v: v) == exact
    if plan.fits(len(a), rows, cols, plan.bound(sc.table, sc.gap, 2)):
        assert _local_sweep(a, b, c, ext, sc.gap, rows, cols, _wrap16) == exact


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**31 - 1), st.sampled_from([0, 1, 2]))
def test_sweeps_exact_at_the_edge_of_the_16_bit_rule(seed, mode):
    # scores scaled to the largest factor the rule accepts, so that values come close to
    # the 16-bit range: a rule that allowed more would be caught wrapping here
    rng = np.random.default_rng(seed)
    base = (int(rng.integers(1, 6)), -int(rng.integers(0, 6)), -int(rng.integers(1, 6)))
    b, c = (list(rng.integers(0, 4, size=int(rng.integers(1, 6)))) for _ in range(2))
    a = list(rng.integers(0, 4, size=int(rng.integers(max(len(b), len(c)), 8))))
    rows, cols = len(b) + int(rng.integers(0, 10)), len(c) + int(rng.integers(0, 10))
    # global sweeps one layer more; semiglobal sees a 16-bit pair's padding layers too
    nl = len(a) + (1 if mode == 0 else int(rng.integers(0, 3)) if mode == 1 else 0)
    mi, mc = plan.bound(Scoring.dna(*base).table, base[2], mode)
    f = 32767 // ((nl + rows + cols) * mi + 2 * mc)
    sc = Scoring.dna(*(f * x for x in base))
    assert plan.fits(nl, rows, cols, plan.bound(sc.table, sc.gap, mode))
    ext = plan.extended_tables(sc.table, sc.gap)[0]
    if mode == 0:
        exact = _global_sweep(a, b, c, ext, sc.gap, len(b), len(c), lambda v: v)
        assert _global_sweep_shifted(a, b, c, ext, sc.gap, rows, cols, _wrap16) == exact
        _assert_imad_exact(lambda imad: _global_sweep_shifted(a, b, c, ext, sc.gap, rows, cols, _wrap16,
                                                              imad=imad), sc, 0, exact)
    elif mode == 1:
        ext = plan.extended_tables(sc.table, sc.gap, 1)[0]
        exact = _semiglobal_sweep_shifted(a, b, c, ext, sc.gap, len(b), len(c), lambda v: v)
        assert _semiglobal_sweep_shifted(a, b, c, ext, sc.gap, rows, cols, _wrap16, layers=nl) == exact
        _assert_imad_exact(lambda imad: _semiglobal_sweep_shifted(a, b, c, ext, sc.gap, rows, cols, _wrap16,
                                                                  layers=nl, imad=imad), sc, 1, exact)
    else:
        exact = _local_sweep(a, b, c, ext, sc.gap, len(b), len(c), lambda v: v)
        assert _local_sweep(a, b, c, ext, sc.gap, rows, cols, _wrap16) == exact


def test_16_bit_rule_rejects_a_real_overflow():
    sc = Scoring.dna(900, -900, -900)
    ext = plan.extended_tables(sc.table, sc.gap)[0]
    m = plan.column_bound(sc.table, sc.gap)
    a = [0, 1, 2, 3] * 3 + [0]                  # three identical sequences of 13
    exact = _global_sweep(a, a, a, ext, sc.gap, 13, 13, lambda v: v)
    assert exact == 13 * 3 * 900 > 32767
    assert _global_sweep(a, a, a, ext, sc.gap, 13, 13, _wrap16) != exact   # 16 bits would be wrong
    assert not plan.fits(14, 13, 13, m)                                     # and the rule says so


def test_split_plan_columns_and_offsets():
    from trimsa.triplet import _gpu

    lens = np.array([[1024, 1024, 1024], [700, 300, 500], [20, 5, 10]])
    launch = plan.Launch(plan.MULTI, 32, np.array([[0], [1], [2]]))
    tj, tk, p, q = plan.SPLIT
    colmap, kwords, nflags, words, nl, kw = _gpu._split_plan(launch, lens, 0, 4096)
    nk = [-(-max(c, 1) // (q * tk)) for c in lens[:, 2]]
    nj = [-(-max(r, 1) // (p * tj)) for r in lens[:, 1]]
    assert colmap.shape == (sum(nk), 4)
    assert list(colmap[:, 0]) == [x for x in range(3) for _ in range(nk[x])]
    assert all(list(colmap[colmap[:, 0] == x, 1]) == list(range(nk[x])) for x in range(3))
    sizes = [nk[x] * nj[x] * (lens[x, 0] + 1) * (p * tj + 1) for x in range(3)]
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    assert [colmap[colmap[:, 0] == x, 2][0] for x in range(3)] == list(starts)
    assert kwords == sum(sizes) and nflags == sum(nk[x] * nj[x] * p for x in range(3))
    # a column job's j-face rows hold its own region column only (its k-faces are shared)
    assert nl == 1025 and kw == q * tk + 1 and words == 2 * nl * kw
    # too many column jobs to be resident at once, or a full GPU: no split
    assert _gpu._split_plan(launch, lens, 0, sum(nk) - 1) is None
    assert _gpu._split_plan(launch, lens, 0, 16) is None


def _stand_in_function(resident_blocks):
    """``_gpu._function`` without a GPU: ``resident_blocks`` blocks of any kernel fit at once."""
    return lambda config, bits, mode, stage=False, kp=0, imad=False: (None, resident_blocks)


def _handout_reference(cost, groups):
    """Finish times of a launch's items, each handed in turn to the group free first (heapq)."""
    import heapq

    free = [(0.0, g) for g in range(groups)]
    out = []
    for c in cost:
        t, g = heapq.heappop(free)
        out.append(t + c)
        heapq.heappush(free, (t + c, g))
    return np.array(out)


def test_handout_finish_equals_a_heapq_reference():
    rng = np.random.default_rng(5)
    for groups in (1, 3, 16):
        for n in (0, 1, 5, 200):
            cost = np.sort(rng.uniform(0.1, 3, size=n))[::-1].copy()
            np.testing.assert_allclose(plan._handout_finish(cost, groups),
                                       _handout_reference(cost, groups))


def test_tail_items_finds_the_partial_wave_of_dear_items():
    # 31 dear items on 10 groups (3 waves and 1), then 31 items 64x cheaper
    cost = np.r_[np.full(31, 64.0), np.full(31, 1.0)]
    tail = plan.tail_items(cost, np.ones(62, bool), 10)
    assert np.flatnonzero(tail).tolist() == [30]      # in the middle of the launch
    # the same with a tolerance of +-2% in the dear costs
    rng = np.random.default_rng(0)
    jitter = np.r_[np.sort(rng.uniform(63, 65, 31))[::-1], np.full(31, 1.0)]
    assert plan.tail_items(jitter, np.ones(62, bool), 10).sum() >= 1


def test_tail_items_leaves_launches_that_end_evenly():
    ones = np.ones(62, bool)
    assert plan.tail_items(np.full(30, 64.0), ones[:30], 10) is None      # whole waves
    assert plan.tail_items(np.full(8, 64.0), ones[:8], 10) is None        # less than one wave
    assert plan.tail_items(np.full(39, 64.0), ones[:39], 10) is None      # last wave 9 of 10
    rng = np.random.default_rng(1)
    spread = np.sort(rng.uniform(1, 64, 2000))[::-1].copy()               # LPT fills the tail
    assert plan.tail_items(spread, np.ones(2000, bool), 10) is None
    cost = np.r_[np.full(31, 64.0), np.full(31, 1.0)]
    narrow = np.ones(62, bool)
    narrow[30] = False                                                     # cannot be split
    assert plan.tail_items(cost, narrow, 10) is None
    assert plan.tail_items(cost, ones, 10, penalty=30.0) is None          # split too slow to pay


@pytest.mark.parametrize("mode", [0, 1])
def test_tail_of_a_launch_of_long_items_goes_to_split_pieces(monkeypatch, mode):
    from trimsa.triplet import _gpu

    monkeypatch.setattr(_gpu, "_function", _stand_in_function(10))
    tj, tk, p, q = plan.CONFIGS[plan.MULTI]
    groups = 10 * (_gpu._BLOCK // (p * q))            # 40 stream groups
    split_groups = 10 * (_gpu._BLOCK // 32)            # 40 column jobs at once
    lens = np.tile([300, 300, 300], (380, 1))
    lens[:180, 2] = 300 - np.arange(180) % 3           # 90 items of near-equal long triplets
    lens[180:] = 100                                   # then 100 items of short ones
    items = np.arange(380).reshape(190, 2)             # 90 long items = 2 waves of 40 + 10
    ln = plan.Launch(plan.MULTI, 16, items)
    parts = _gpu._without_tail(ln, lens, mode)
    assert all(x.shape == ln.shape and x.bits == ln.bits for x in parts)
    head = parts[0].items
    assert head.shape[0] == 180 and set(head[80:].ravel()) == set(range(180, 380))
    tail = np.concatenate([x.items for x in parts[1:]])
    np.testing.assert_array_equal(np.sort(np.r_[head.ravel(), tail.ravel()]), np.arange(380))
    assert tail.shape[0] == 10 and tail.max() < 180    # the last wave of long items
    nk = -(-300 // (plan.SPLIT[3] * plan.SPLIT[1]))
    per = min(split_groups // 8, split_groups // nk)
    assert [x.items.shape[0] for x in parts[1:]] == [per] * (10 // per) + ([10 % per] if 10 % per else [])
    for x in parts[1:]:   # each piece is one the split planner takes
        assert _gpu._split_plan(x, lens, mode, split_groups) is not None
    # on half as many groups the same launch is 4.5 waves: a tail of half a wave is not moved
    monkeypatch.setattr(_gpu, "_function", _stand_in_function(5))
    assert len(_gpu._without_tail(ln, lens, mode)) == 1
    monkeypatch.setattr(_gpu, "_function", _stand_in_function(10))
    assert len(_gpu._without_tail(ln, lens, mode, split="never")) == 1


@pytest.mark.gpu
@pytest.mark.parametrize("mode", [0, 1, 2])
def test_gpu_tail_in_split_launches_equals_cpu(mode):
    """Near-equal long items a little over whole waves, then short ones: the long items'
    partial last wave (in the middle of the launch) is swept column-parallel."""
    _gpu = _gpu_or_skip()
    rng = np.random.default_rng(11 + mode)
    sc = Scoring.dna()
    # long planes all pad to 128 x 128 (4 x 2 regions), so their costs differ only by their
    # layers; short ones (40..60) are multi-region too and run in the same launch
    lengths = np.r_[rng.integers(120, 129, size=40), rng.integers(40, 61, size=20)]
    seqs = random_set(rng, lengths, _alphabet.get("dna"))
    _, resident = _gpu._function(plan.CONFIGS[plan.MULTI], 16, mode)
    tj, tk, p, q = plan.CONFIGS[plan.MULTI]
    groups = resident * (_gpu._BLOCK // (p * q))
    n_long = 2 * (groups + groups // 4)                                 # 1.25 waves of 16-bit items
    trip = np.concatenate([np.stack([rng.permutation(40)[:3] for _ in range(n_long)]),
                           np.stack([40 + rng.permutation(20)[:3] for _ in range(groups)])])
    trip = trip[rng.permutation(trip.shape[0])]
    batch = _gpu.Batch(seqs, trip, mode, sc, "int16")
    assert any(i["split"] for i in batch.info) and not all(i["split"] for i in batch.info)
    got = batch.run().wait().result()
    np.testing.assert_array_equal(got, cpu_scores(seqs, trip, mode, sc))


def test_call_places_its_buffers_in_the_arena_in_kernel_order(monkeypatch):
    """Without a GPU: a launch's arguments follow the kernel's 19 parameters, and the
    face buffers, k-faces and flags of a split launch are disjoint slices of the arena."""
    import types

    from trimsa.triplet import _gpu

    monkeypatch.setitem(sys.modules, "cupy", types.SimpleNamespace(
        zeros=lambda n, dtype=None: np.zeros(n, dtype=dtype), int32=np.int32))
    head = tuple(f"arg{i}" for i in range(10))          # codes ... res
    sizes = ("group_words", "nlmax", "kwidth")
    arena = np.arange(100, dtype=np.uint32)
    _fn, grid, args, zero = _gpu._Call("fn", 3, head, sizes, None, 10, 0, 0, {}).bind(arena)
    assert grid == (3,) and len(args) == 19 and args[:10] == head and args[11:14] == sizes
    np.testing.assert_array_equal(args[10], arena[:10])               # scratch
    assert args[15] == 0 and args[18] is zero[0] and len(zero) == 1   # stream mode: no column map
    _fn, _g, args, zero = _gpu._Call("fn", 3, head, sizes, ("colmap", 7), 10, 20, 5, {}).bind(arena)
    assert args[14:16] == ("colmap", 7) and args[18] is zero[0]
    np.testing.assert_array_equal(args[16], arena[10:30])             # k-faces after the scratch
    assert args[17].dtype == np.int32 and args[17].size == 5 and zero[1] is args[17]
    assert np.shares_memory(args[17], arena[30:35])                   # flags after the k-faces


def test_tall_configs_cover_the_regions_they_replace():
    # a plane planned as one region of the 8 x 8 configuration stays one region of the tall one
    for src, tall in plan.TALL.items():
        stj, stk, sp, sq = src
        tj, tk, p, q = tall
        assert (tj, tk) == (16, 8) and 32 % (p * q) == 0 and p * q > 1
        assert p * tj >= sp * stj and q * tk >= sq * stk
        # the slot stages the residues only (B x C scores come from the profile), 4 mod 8 words
        assert plan.stage_words(tall) == tj + tk + 4
        assert plan.profile_bytes(tall, 32, 5) > 0
        # face buffers are sized for the tall regions
        lens = np.array([[200, 150, 170]])
        launch = plan.Launch(plan.MULTI, 32, np.array([[0]]))
        words, nl, kwidth = plan.scratch_words(launch, lens, 0, tall)
        assert kwidth == -(-170 // (q * tk)) * q * tk + 1 and nl == 201
        assert words == 2 * nl * (kwidth + p * tj + 1)


def test_tall_config_of_a_one_region_shape_keeps_its_region():
    # a one-region plane is at most the shape's region: a larger tall region only adds padding
    # (the one-region (8, 8, 4, 8) shape took (16, 8, 4, 8), 64 rows for planes of <= 32)
    seen = 0
    for shape, (stj, stk, sp, sq) in enumerate(plan.CONFIGS):
        tall = plan.tall_config(shape)
        if tall is None:
            continue
        tj, tk, p, q = tall
        assert (tj, tk) == (16, 8) and 32 % (p * q) == 0 and p * q > 1
        if shape == plan.MULTI:
            assert tall == plan.TALL[plan.CONFIGS[shape]]
        else:
            assert (p * tj, q * tk) == (sp * stj, sq * stk)
            seen += 1
            rows, cols = sp * stj - 3, sq * stk - 5
            assert plan.padded(rows, cols, shape, tall) == plan.padded(rows, cols, shape)
    assert seen == 2   # (8, 8, 4, 4) and the one-region (8, 8, 4, 8)
    assert plan.tall_config(plan.CONFIGS.index((8, 8, 4, 8))) == (16, 8, 2, 8)


def test_launch_config_takes_tall_tiles_where_the_profile_applies(monkeypatch):
    from trimsa.triplet import _gpu

    lens = np.tile([300, 300, 300], (8, 1))
    items = np.arange(8).reshape(8, 1)
    multi = plan.CONFIGS[plan.MULTI]
    tall = plan.TALL[multi]
    assert _gpu._launch_config(plan.Launch(plan.MULTI, 32, items), lens, 0, 5) == tall
    assert _gpu._launch_config(plan.Launch(plan.MULTI, 16, items), lens, 0, 5) == multi   # 16 bits
    assert _gpu._launch_config(plan.Launch(plan.MULTI, 32, items), lens, 0, 25) == multi  # protein
    short = np.tile([tall[2] + tall[3] - 4, 300, 300], (8, 1))   # too few layers for the profile
    assert _gpu._launch_config(plan.Launch(plan.MULTI, 32, items), short, 1, 5) == multi


def test_tail_split_counts_the_groups_of_the_tall_kernel(monkeypatch):
    # the tail rule asks for the kernel the launch will run (tall, with the profile), so that
    # it compiles no 8 x 8 kernel that is never launched
    from trimsa.triplet import _gpu

    asked = []

    def stand_in(config, bits, mode, stage=False, kp=0, imad=False):
        asked.append((config, kp))
        return None, 10

    monkeypatch.setattr(_gpu, "_function", stand_in)
    lens = np.tile([300, 300, 300], (100, 1))
    ln = plan.Launch(plan.MULTI, 32, np.arange(100).reshape(100, 1))
    _gpu._without_tail(ln, lens, 0, kp=5)
    assert asked[0] == (plan.TALL[plan.CONFIGS[plan.MULTI]], 5)
    assert all(c[0] > 8 or c == plan.SPLIT for c, _ in asked)


def test_stage_words_pad_slots_to_distinct_banks():
    # slots of TJ + TK + TJ*TK words padded to 4 mod 8: the 16-byte accesses of 8 lanes
    # (one shared-memory wavefront) start in 8 different 4-bank groups
    for config in plan.CONFIGS + (plan.SPLIT,):
        tj, tk, p, q = config
        w = plan.stage_words(config)
        if p * q == 1:
            assert w == 0
            continue
        assert w >= tj + tk + tj * tk and w % 8 == 4
        assert len({(lane * w) % 32 // 4 for lane in range(8)}) == 8
