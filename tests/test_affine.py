"""The exact 3-way engine with natural affine gaps, against the brute-force reference."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import trimsa
from trimsa.errors import OptionError
from trimsa.scoring import MODES, Scoring
from trimsa.triplet import _affine

from .affine_reference import all_alignments, brute_force, natural_sp, rows_from_moves, slow_dp

DNA = np.where(np.eye(4, dtype=bool), 1, -1).astype(np.int32)


def _random_table(rng, k=4):
    t = rng.integers(-3, 4, (k, k))
    return np.minimum(t, t.T).astype(np.int32)


def _seqs(rng, lo, hi, k=4):
    return [rng.integers(0, k, int(rng.integers(lo, hi + 1))).astype(np.uint8) for _ in range(3)]


def _kernel_score(a, b, c, table, go, ge, mode):
    m = MODES.index(mode)
    planes = _affine._planes(len(b), len(c))
    best = np.empty(4, dtype=np.int64)
    _affine.sweep(a, b, c, table, np.int32(go), np.int32(ge), m, m, 0, 0, False, planes,
                  np.empty((1, 1, _affine.NS), np.int32), False, best)
    return int(best[0])


def _core_rows(seqs3, box, moves):
    core = [s[box[d]:box[3 + d]] for d, s in enumerate(seqs3)]
    return rows_from_moves(*core, tuple(int(m) for m in moves))


# -- the recurrence itself -------------------------------------------------------

def test_exports_are_the_best_transition_into_each_state():
    """The hand-simplified export formulas equal the max over the definition's transitions."""
    nxt, opens = _affine.transitions()
    rng = np.random.default_rng(0)
    X = np.empty(_affine.NS, dtype=np.int32)
    for _ in range(500):
        S = rng.integers(-40, 40, _affine.NS).astype(np.int32)
        o = int(rng.integers(-6, 1))
        _affine._exports(S, np.int32(o), X)
        for s in range(_affine.NS):
            m = _affine.MOVE[s]
            want = max(int(S[q]) + int(opens[q, m]) * o for q in range(_affine.NS) if nxt[q, m] == s)
            assert X[_affine.EXPORT[s]] == want
        assert X[0] == S.max()


def test_thirteen_states_are_closed_under_every_move():
    nxt, _ = _affine.transitions()
    assert (nxt[:, 1:] >= 0).all()
    for s in range(_affine.NS):
        for m in range(1, 8):
            assert _affine.MOVE[nxt[s, m]] == m


# -- optimality against enumeration ----------------------------------------------

@pytest.mark.parametrize("mode", MODES)
def test_kernel_optimum_equals_enumeration(mode):
    rng = np.random.default_rng(MODES.index(mode))
    limit = 3 if mode == "global" else 2
    for trial in range(25):
        a, b, c = _seqs(rng, 0, limit)
        table = DNA if trial % 2 else _random_table(rng)
        go, ge = int(rng.integers(-4, 1)), int(rng.integers(-3, 1))
        best, _ = brute_force(a, b, c, table, go, ge, mode)
        assert _kernel_score(a, b, c, table, go, ge, mode) == best


def test_fixed_and_free_faces_agree_when_no_face_column_pays():
    """docs/engine.md: with max(sub) + 2 gap_extend <= 0 the face rule changes nothing."""
    rng = np.random.default_rng(7)
    for _ in range(20):
        a, b, c = _seqs(rng, 0, 2)
        for mode in ("semiglobal", "local"):
            fixed, _ = brute_force(a, b, c, DNA, -2, -1, mode)
            free, _ = brute_force(a, b, c, DNA, -2, -1, mode, faces="free")
            assert fixed == free


@pytest.mark.parametrize("mode", MODES)
def test_every_returned_alignment_is_optimal_and_rescores(mode):
    rng = np.random.default_rng(10 + MODES.index(mode))
    for trial in range(30):
        a, b, c = _seqs(rng, 0, 3 if mode == "global" else 2)
        table = DNA if trial % 2 else _random_table(rng)
        go, ge = int(rng.integers(-4, 1)), int(rng.integers(-3, 1))
        best, optima = brute_force(a, b, c, table, go, ge, mode, max_kept=1 << 30)
        score, box, moves = _affine.align(a, b, c, table, go, ge, MODES.index(mode))
        rows = _core_rows((a, b, c), box, moves)
        assert natural_sp(rows, table, go, ge) == best
        assert score == best
        found = ((tuple(box[:3]), tuple(box[3:]), tuple(int(m) for m in moves))
                 in {(s, e, mv) for s, e, mv in optima})
        assert found


@pytest.mark.parametrize("mode", MODES)
def test_divide_and_conquer_equals_full_cube(mode, monkeypatch):
    """Quadratic-memory tracebacks (split layers, end/start sweeps) reach the same optimum."""
    rng = np.random.default_rng(20 + MODES.index(mode))
    cases = []
    for trial in range(40):
        a, b, c = _seqs(rng, 0, 9)
        table = DNA if trial % 3 else _random_table(rng)
        go, ge = int(rng.integers(-5, 1)), int(rng.integers(-3, 1))
        cases.append((a, b, c, table, go, ge))
    full = [_affine.align(*cs, MODES.index(mode)) for cs in cases]
    monkeypatch.setattr(_affine, "CUBE_CELLS", 8)
    for cs, (s_full, box_full, mv_full) in zip(cases, full):
        a, b, c, table, go, ge = cs
        want = slow_dp(a, b, c, table, go, ge, mode)
        s, box, mv = _affine.align(*cs, MODES.index(mode))
        assert natural_sp(_core_rows((a, b, c), box, mv), table, go, ge) == want
        assert natural_sp(_core_rows((a, b, c), box_full, mv_full), table, go, ge) == want
        assert s == want == s_full
        # the splits' sweeps by the parallel wavefront
        s2, box2, mv2 = _affine.align(*cs, MODES.index(mode), True)
        assert (s2, tuple(box2)) == (s, tuple(box)) and np.array_equal(mv2, mv)


def test_wavefront_sweep_states_equal_the_layer_sweep():
    """``last_states_wavefront`` (rows of a diagonal in parallel, three planes) gives
    ``last_states``'s states, for every start state, closed faces, gap model, empty
    sequences and every IUPAC code."""
    rng = np.random.default_rng(77)
    for _ in range(150):
        a, b, c = (rng.integers(0, 15, int(rng.integers(0, 30))).astype(np.uint8)
                   for _ in range(3))
        go, ge = int(rng.integers(-6, 1)), int(rng.integers(-3, 0))
        init, forbid = int(rng.integers(0, _affine.NS)), int(rng.integers(0, 8))
        table = Scoring.dna(gap=-1).table   # the 15 IUPAC codes
        args = (a, b, c, table, np.int32(go), np.int32(ge), init, forbid)
        assert np.array_equal(_affine.last_states_wavefront(*args), _affine.last_states(*args))


def test_wavefront_sweep_reads_the_layer_sweeps_best_cell():
    """``sweep_wavefront`` gives ``sweep``'s best score and cell (the first in (i, j, k)
    order on ties: one-letter sequences give many) and last-layer states, for every
    start rule, read rule and closed far faces; ``end_and_start`` the same cells with
    and without it."""
    rng = np.random.default_rng(78)
    table = Scoring.dna(gap=-1).table
    for it in range(120):
        letters = 15 if it % 2 else 1
        a, b, c = (rng.integers(0, letters, int(rng.integers(0, 22))).astype(np.uint8)
                   for _ in range(3))
        go, ge = np.int32(rng.integers(-6, 1)), np.int32(rng.integers(-3, 0))
        for start in range(3):
            for end in range(3):
                block = bool(rng.integers(0, 2))
                init = int(rng.integers(0, _affine.NS)) if start == 0 else 0
                forbid = int(rng.integers(0, 8)) if start == 0 else 0
                want, got = np.empty(4, np.int64), np.empty(4, np.int64)
                states = np.empty((len(b) + 1, len(c) + 1, _affine.NS), np.int32)
                _affine.sweep(a, b, c, table, go, ge, start, end, init, forbid, block,
                              _affine._planes(len(b), len(c)), states, True, want)
                kept = _affine.sweep_wavefront(a, b, c, table, go, ge, start, end, init,
                                               forbid, block, True, got)
                assert got.tolist() == want.tolist()
                assert np.array_equal(kept, states)
        if min(len(a), len(b), len(c)):
            for m in (1, 2):
                one = _affine.end_and_start(a, b, c, table, go, ge, m)
                every = _affine.end_and_start(a, b, c, table, go, ge, m, True)
                assert [int(one[0]), *one[1], *one[2]] == [int(every[0]), *every[1], *every[2]]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text("ACGT", min_size=1, max_size=7), min_size=3, max_size=3),
       st.integers(-5, 0), st.integers(-3, -1), st.sampled_from(MODES))
def test_score_triplets_matches_the_slow_programme(strs, go, ge, mode):
    sc = Scoring.dna(gap_open=go, gap_extend=ge)
    got = trimsa.score_triplets(strs, [[0, 1, 2]], scoring=sc, mode=mode)
    codes = [["ACGT".index(ch) for ch in s] for s in strs]
    assert int(got[0]) == slow_dp(*codes, DNA, go, ge, mode)


def test_linear_gaps_are_the_case_gap_open_zero():
    rng = np.random.default_rng(3)
    seqs = ["".join(rng.choice(list("ACGT"), int(rng.integers(1, 30)))) for _ in range(8)]
    trip = trimsa.all_triplets(len(seqs))
    for mode in MODES:
        lin = trimsa.score_triplets(seqs, trip, scoring=Scoring.dna(gap=-2), mode=mode)
        planes = []
        for t in trip:
            a, b, c = (np.array(["ACGT".index(ch) for ch in seqs[q]], np.uint8) for q in t)
            planes.append(_kernel_score(a, b, c, DNA, 0, -2, mode))
        assert lin.tolist() == planes


def test_score_is_symmetric_in_the_three_sequences():
    rng = np.random.default_rng(4)
    seqs = ["".join(rng.choice(list("ACGT"), int(rng.integers(0, 25)))) for _ in range(3)]
    sc = Scoring.dna(gap_open=-4, gap_extend=-1)
    perms = [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]]
    for mode in MODES:
        s = trimsa.score_triplets(seqs, perms, scoring=sc, mode=mode)
        assert len(set(s.tolist())) == 1


def test_batch_scores_equal_one_at_a_time_and_any_thread_count():
    rng = np.random.default_rng(5)
    seqs = ["".join(rng.choice(list("ACGT"), int(rng.integers(0, 40)))) for _ in range(9)]
    sc = Scoring.dna(gap_open=-3, gap_extend=-1)
    trip = trimsa.all_triplets(len(seqs))
    for mode in MODES:
        one = [int(trimsa.score_triplets(seqs, [t], scoring=sc, mode=mode)[0]) for t in trip]
        for threads in (1, 2):
            assert trimsa.score_triplets(seqs, trip, scoring=sc, mode=mode,
                                         threads=threads).tolist() == one


def test_enumeration_counts_match_the_3d_delannoy_numbers():
    assert [sum(1 for _ in all_alignments(n, n, n)) for n in (1, 2)] == [13, 409]


# -- the API -----------------------------------------------------------------------

def test_align_triplet_with_affine_gaps():
    sc = Scoring.dna(gap_open=-3, gap_extend=-1)
    aln = trimsa.align_triplet("ACGTTTACGA", "ACGACGA", "ACGTTTACGGA", scoring=sc)
    # one gap run of 3 in b (against a and c: 2 x (-3 - 3)) beats three runs of 1
    assert aln.rows[1] == "ACG---AC-GA"
    assert aln.score == trimsa.score_triplets(
        ["ACGTTTACGA", "ACGACGA", "ACGTTTACGGA"], scoring=sc)[0]
    codes = [[-1 if ch == "-" else "ACGT".index(ch) for ch in r] for r in aln.rows]
    assert sc.sum_of_pairs(codes) == aln.score


@pytest.mark.parametrize("mode", MODES)
def test_align_triplets_batch_is_threaded_and_equal(mode):
    rng = np.random.default_rng(6)
    seqs = [("s%d" % q, "".join(rng.choice(list("ACGT"), int(rng.integers(5, 30)))))
            for q in range(6)]
    sc = Scoring.dna(gap_open=-2, gap_extend=-1)
    trip = trimsa.all_triplets(6)
    one = trimsa.align_triplets(seqs, trip, mode=mode, scoring=sc, threads=1)
    two = trimsa.align_triplets(seqs, trip, mode=mode, scoring=sc, threads=2)
    scores = trimsa.score_triplets(seqs, trip, mode=mode, scoring=sc)
    assert [x.rows for x in one] == [x.rows for x in two]
    assert [x.score for x in one] == scores.tolist()


def test_sum_of_pairs_agrees_with_the_reference_scorer():
    rng = np.random.default_rng(8)
    sc = Scoring.dna(gap_open=-5, gap_extend=-2)
    for _ in range(200):
        a, b, c = _seqs(rng, 0, 6)
        # a random alignment: a random walk through the cube
        pos, mv = [0, 0, 0], []
        L = (len(a), len(b), len(c))
        while pos != list(L):
            m = int(rng.integers(1, 8))
            if all(pos[r] + ((m >> r) & 1) <= L[r] for r in range(3)):
                mv.append(m)
                pos = [pos[r] + ((m >> r) & 1) for r in range(3)]
        rows = rows_from_moves(a, b, c, tuple(mv))
        assert sc.sum_of_pairs(rows) == natural_sp(rows, sc.table, -5, -2)


# -- the packed 16-bit rule against an emulation of its wrapping arithmetic ----------

def _wrap16(x):
    return (x + 32768) % 65536 - 32768


def _packed_sweep(a, b, c, table, go, ge, mode, neg, wrap=_wrap16):
    """The packed GPU sweep of one half (triplet_affine.cu with S16x2), operation by
    operation in wrapping 16-bit arithmetic (``wrap``), for a batch of triplets of equal
    lengths (``a``: ``(n, la)`` codes, ...): their scores, read as the kernel reads them."""
    add = lambda x, y: wrap(x + y)          # noqa: E731
    addmax = lambda x, y, z: np.maximum(add(x, y), z)   # noqa: E731
    mx = np.maximum
    n, la, lb, lc = a.shape[0], a.shape[1], b.shape[1], c.shape[1]
    shift = 0
    if mode == 0:   # global runs on sub - 2 ge with extension 0
        table = table - 2 * ge
        shift, ge = 2 * ge * (la + lb + lc), 0
    e2, o, o2 = wrap(2 * ge), go, wrap(2 * go)
    X = np.full((la + 2, lb + 2, lc + 2, 13, n), neg, dtype=np.int64)   # index + 1; 0: outside
    best = np.full(n, neg, dtype=np.int64)
    for i in range(la + 1):
        for j in range(lb + 1):
            for k in range(lc + 1):
                S = np.full((13, n), neg, dtype=np.int64)
                if (i == j == k == 0) if mode == 0 else (i == 0 or j == 0 or k == 0):
                    S[0] = 0
                else:
                    ai = a[:, i - 1] if i else np.zeros(n, int)
                    bj = b[:, j - 1] if j else np.zeros(n, int)
                    ck = c[:, k - 1] if k else np.zeros(n, int)
                    sab, sac, sbc = table[ai, bj], table[ai, ck], table[bj, ck]
                    Q = X[i + 1, j]   # layer i, row j - 1
                    S[0] = add(add(X[i, j, k, 0], sab), add(sac, sbc))
                    S[1] = add(X[i, j, k + 1, 3], add(sab, e2))
                    S[2] = add(X[i, j + 1, k, 2], add(sac, e2))
                    S[3] = add(Q[k, 1], add(sbc, e2))
                    for q in range(3):
                        S[4 + q] = add(X[i, j + 1, k + 1, 4 + q], e2)
                        S[7 + q] = add(Q[k + 1, 7 + q], e2)
                        S[10 + q] = add(X[i + 1, j + 1, k, 10 + q], e2)
                    if mode == 2:
                        S[0] = mx(S[0], 0)
                A_ = mx(mx(S[4], S[5]), S[6])
                B = mx(mx(S[7], S[8]), S[9])
                C = mx(mx(S[10], S[11]), S[12])
                M = mx(mx(mx(S[0], S[1]), mx(S[2], S[3])), mx(mx(A_, B), C))
                x = X[i + 1, j + 1, k + 1]
                x[0] = M
                x[1] = mx(addmax(M, o2, add(mx(B, C), o)), mx(mx(S[3], S[9]), S[12]))
                x[2] = mx(addmax(M, o2, add(mx(A_, C), o)), mx(mx(S[2], S[6]), S[11]))
                x[3] = mx(addmax(M, o2, add(mx(A_, B), o)), mx(mx(S[1], S[5]), S[8]))
                x[4] = addmax(mx(S[0], S[3]), o2, S[4])
                x[5] = addmax(mx(S[1], S[8]), o, addmax(B, o2, S[5]))
                x[6] = addmax(mx(S[2], S[11]), o, addmax(C, o2, S[6]))
                x[7] = addmax(mx(S[0], S[2]), o2, S[7])
                x[8] = addmax(mx(S[1], S[5]), o, addmax(A_, o2, S[8]))
                x[9] = addmax(mx(S[3], S[12]), o, addmax(C, o2, S[9]))
                x[10] = addmax(mx(S[0], S[1]), o2, S[10])
                x[11] = addmax(mx(S[2], S[6]), o, addmax(A_, o2, S[11]))
                x[12] = addmax(mx(S[3], S[9]), o, addmax(B, o2, S[12]))
                far = i == la or j == lb or k == lc
                if mode == 2 or (mode == 1 and far) or (i, j, k) == (la, lb, lc):
                    best = mx(best, M)
    return best + shift


def test_packed_sweep_emulation_is_the_engine_in_wide_arithmetic():
    """Without any wrap (a sentinel far below 16 bits) the emulation is the CPU engine,
    so that the test below checks the 16-bit rule and not the emulation."""
    rng = np.random.default_rng(3)
    for mode in range(3):
        for _ in range(4):
            table = _random_table(rng)
            go, ge = -int(rng.integers(0, 5)), -int(rng.integers(0, 3))
            trip = [rng.integers(0, 4, (5, int(rng.integers(0, 5)))) for _ in range(3)]
            got = _packed_sweep(*trip, table, go, ge, mode, -(1 << 29), wrap=lambda x: x)
            want = [_kernel_score(*(t[q].astype(np.uint8) for t in trip), table, go, ge,
                                  MODES[mode]) for q in range(5)]
            assert got.tolist() == want


@pytest.mark.parametrize("mode", range(3))
def test_packed_16_bit_bound_admits_only_exact_sweeps(mode):
    """Scorings large enough that a few residues reach the 16-bit range: every triplet
    :func:`packed_bound` admits sweeps exactly in wrapping 16-bit arithmetic, some of
    them with scores past a quarter of the range, and some that it refuses would not."""
    from types import SimpleNamespace

    from trimsa.triplet import _gpu_affine

    rng = np.random.default_rng(40 + mode)
    admitted = close = wrong_beyond = 0
    for _ in range(60):
        # lengths, then scores whose largest possible gain lies within 1/4..3/2 x 2^15, with
        # mild penalties (the sentinel then sits near -2^15 and the bound near its limit)
        lens = np.sort(rng.integers(1, 8, 3))[[1, 0, 2]]   # the GPU's order
        m = int(2 ** 15 * rng.uniform(0.25, 1.5) / (2 * lens.min() + np.median(lens)))
        t = rng.integers(-m // 6, m + 1, (4, 4))
        table = np.minimum(t, t.T)
        table[0, 0] = m
        go, ge = -int(rng.integers(0, m // 4 + 1)), -int(rng.integers(0, m // 12 + 1))
        sc = SimpleNamespace(table=table, gap_open=go, gap_extend=ge)
        ok, neg = _gpu_affine.packed_bound(lens[None], sc, mode)
        trip = [rng.integers(0, 4, (12, L)) for L in lens]
        for x in trip:   # half of them one letter of the best score against itself: the most gain
            x[6:] = int(np.argmax(np.diag(table)))
        got = _packed_sweep(*trip, table, go, ge, mode, neg)
        want = [_kernel_score(*(x[q].astype(np.uint8) for x in trip), table, go, ge, MODES[mode])
                for q in range(12)]
        if ok[0]:
            admitted += 1
            # a score past a quarter of the range: admitted near the bound's limit
            close += max(abs(w) for w in want) > 2 ** 13
            assert got.tolist() == want, (table.tolist(), go, ge, lens.tolist())
        else:
            wrong_beyond += got.tolist() != want
    assert admitted >= 8 and close >= 2 and wrong_beyond >= 2, (admitted, close, wrong_beyond)


# -- GPU: bit-identical to the CPU -------------------------------------------------

@pytest.fixture(params=["never", "always"])
def split(request, monkeypatch):
    """The GPU score and state sweeps with one warp per triplet, and with split
    triplets (one warp per strip of rows, the strips of a triplet waiting on each
    other)."""
    from trimsa.triplet import _gpu_affine

    monkeypatch.setattr(_gpu_affine, "SPLIT", request.param)
    return request.param


def _affine_cpu(seqs, trip, mode, sc):
    out = np.empty(len(trip), dtype=np.int64)
    _affine.score_batch(seqs.codes, seqs.offsets, np.asarray(trip, np.int32), sc.table,
                        np.int32(sc.gap_open), np.int32(sc.gap_extend), mode, out, 8)
    return out


@pytest.mark.gpu
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("lengths", [(1, 40), (30, 90), (60, 200)], ids=["short", "mid", "long"])
@pytest.mark.parametrize("precision", ["int32", "int16"])
@pytest.mark.usefixtures("split")
def test_gpu_affine_scores_equal_cpu(mode, lengths, precision):
    from trimsa import alphabet
    from tests.fakes import random_set

    rng = np.random.default_rng(sum(lengths))
    seqs = random_set(rng, rng.integers(lengths[0], lengths[1] + 1, 14), alphabet.DNA, k=15)
    trip = rng.integers(0, len(seqs), (300, 3)).astype(np.int32)
    m = MODES.index(mode)
    for go, ge in ((-3, -1), (-1, -2), (-7, -1)):
        sc = Scoring.dna(gap_open=go, gap_extend=ge)
        gpu = trimsa.score_triplets(seqs, trip, mode=mode, scoring=sc, device="gpu",
                                    precision=precision)
        assert gpu.tolist() == _affine_cpu(seqs, trip, m, sc).tolist()


@pytest.mark.gpu
@pytest.mark.usefixtures("split")
def test_gpu_affine_protein_and_unusual_tables():
    from trimsa import alphabet
    from tests.fakes import random_set

    rng = np.random.default_rng(11)
    seqs = random_set(rng, rng.integers(5, 121, 10), alphabet.PROTEIN, k=24)
    trip = rng.integers(0, len(seqs), (200, 3)).astype(np.int32)
    for mode in MODES:
        sc = Scoring.protein(gap_open=-10, gap_extend=-1)
        gpu = trimsa.score_triplets(seqs, trip, mode=mode, scoring=sc, device="gpu")
        assert gpu.tolist() == _affine_cpu(seqs, trip, MODES.index(mode), sc).tolist()


@pytest.mark.gpu
@pytest.mark.parametrize("mode", MODES)
def test_gpu_affine_packed_16_bits_near_the_bound_equal_cpu(mode):
    """Scores so large that the bound admits some triplets and refuses others: the
    admitted ones are swept in packed 16 bits (pairs of unequal lengths, an odd one out
    paired with itself), the rest in 32, and all equal the CPU's; protein too."""
    from trimsa import alphabet
    from trimsa.triplet import _gpu_affine
    from tests.fakes import random_set

    m = MODES.index(mode)
    rng = np.random.default_rng(7 + m)
    for match, go, ge, hi_len in ((400, -300, -40, 60), (90, -60, -10, 200), (3, -8, -2, 300)):
        sc = Scoring.dna(match=match, mismatch=-match // 2, gap_open=go, gap_extend=ge)
        seqs = random_set(rng, rng.integers(1, hi_len + 1, 30), alphabet.DNA, k=4)
        # half of them copies of one sequence: scores near the largest possible
        seqs.codes[: seqs.offsets[15]] = 0
        trip = rng.integers(0, len(seqs), (301, 3)).astype(np.int32)
        ok = _gpu_affine.packed_bound(seqs.lengths[trip], sc, m)[0]
        gpu = trimsa.score_triplets(seqs, trip, mode=mode, scoring=sc, device="gpu",
                                    precision="int16")
        assert gpu.tolist() == _affine_cpu(seqs, trip, m, sc).tolist()
        assert ok.sum() > 0
        if match == 400:
            assert not ok.all()
    sc = Scoring.protein(gap_open=-10, gap_extend=-1)
    seqs = random_set(rng, rng.integers(1, 150, 20), alphabet.PROTEIN, k=24)
    trip = rng.integers(0, len(seqs), (201, 3)).astype(np.int32)
    gpu = trimsa.score_triplets(seqs, trip, mode=mode, scoring=sc, device="gpu", precision="int16")
    assert gpu.tolist() == _affine_cpu(seqs, trip, m, sc).tolist()


@pytest.mark.gpu
def test_gpu_affine_auto_precision_packs_full_batches():
    """``precision="auto"`` packs a batch with at least as many admitted triplets as the
    packed kernel's resident warps, and gives the same scores as 32 bits."""
    from trimsa import alphabet
    from trimsa.triplet import _gpu_affine
    from tests.fakes import random_set

    rng = np.random.default_rng(5)
    seqs = random_set(rng, rng.integers(1, 41, 60), alphabet.DNA, k=15)
    trip = rng.integers(0, len(seqs), (2 * _gpu_affine._function("score16")[1] + 101, 3))
    sc = Scoring.dna(gap_open=-3, gap_extend=-1)
    for mode in MODES:
        m = MODES.index(mode)
        assert _gpu_affine.packed_bound(seqs.lengths[trip], sc, m)[0].all()
        auto = trimsa.score_triplets(seqs, trip, mode=mode, scoring=sc, device="gpu")
        wide = trimsa.score_triplets(seqs, trip, mode=mode, scoring=sc, device="gpu",
                                     precision="int32")
        assert auto.tolist() == wide.tolist() == _affine_cpu(seqs, trip.astype(np.int32), m,
                                                             sc).tolist()


# -- pointer words (the tracebacks of both devices) ----------------------------------

def test_pointer_words_take_the_lowest_numbered_best_predecessor():
    nxt, opens = _affine.transitions()
    rng = np.random.default_rng(5)
    for _ in range(300):
        o = int(rng.integers(-4, 1))
        # a narrow range of values makes ties common
        S = rng.integers(-3, 3, _affine.NS).astype(np.int32)
        w = int(_affine.pointer_word(S, np.int32(o), np.empty(13, np.int64),
                                     np.empty(13, np.int64)))
        for s in range(_affine.NS):
            m = _affine.MOVE[s]
            cand = [(int(S[q]) + int(opens[q, m]) * o, q) for q in range(_affine.NS)
                    if nxt[q, m] == s]
            best = max(v for v, _ in cand)
            want = min(q for v, q in cand if v == best)
            assert (w >> (4 * int(_affine.EXPORT[s]))) & 15 == want
        assert bool(w >> _affine.ZERO_BIT & 1) == (S[_affine.FRESH] == 0)


def test_gpu_tracebacks_need_affine_gaps():
    with pytest.raises(OptionError, match="GPU tracebacks take affine gaps"):
        trimsa.align_triplets(["ACGT", "ACG", "AGT"], [[0, 1, 2]], device="gpu",
                              scoring=Scoring.dna(gap=-3))


def _random_strings(rng, lengths, letters):
    return [(f"s{i}", "".join(rng.choice(list(letters), int(n)))) for i, n in enumerate(lengths)]


@pytest.mark.gpu
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.usefixtures("split")
def test_gpu_affine_alignments_equal_cpu(mode, monkeypatch):
    from trimsa.io import as_sequence_set

    # a small full-cube limit sends the longest triplets to the CPU's divide and conquer
    monkeypatch.setattr(_affine, "CUBE_CELLS", 60_000)
    rng = np.random.default_rng(MODES.index(mode))
    cases = [
        (as_sequence_set(_random_strings(rng, rng.integers(1, 60, 12), "ACGTNRY"), "dna"),
         [(-3, -1), (-1, -2), (-7, -1)], Scoring.dna),
        (as_sequence_set(_random_strings(rng, rng.integers(1, 40, 8), "ACDEFGHIKLMNPQRSTVWY"),
                         "protein"),
         [(-10, -1)], Scoring.protein),
    ]
    for seqs, gaps, make in cases:
        trip = rng.integers(0, len(seqs), (150, 3))
        for go, ge in gaps:
            sc = make(gap_open=go, gap_extend=ge)
            gpu = trimsa.align_triplets(seqs, trip, mode=mode, scoring=sc, device="gpu")
            cpu = trimsa.align_triplets(seqs, trip, mode=mode, scoring=sc, device="cpu")
            for g, c in zip(gpu, cpu):
                assert (g.rows, g.score, g.core) == (c.rows, c.score, c.core)


@pytest.mark.gpu
def test_gpu_affine_traceback_batches_by_memory():
    from trimsa.io import as_sequence_set
    from trimsa.triplet import _gpu_affine

    rng = np.random.default_rng(3)
    seqs = as_sequence_set(_random_strings(rng, rng.integers(20, 80, 10), "ACGT"), "dna")
    trip = rng.integers(0, len(seqs), (60, 3)).astype(np.int32)
    sc = Scoring.dna(gap_open=-3, gap_extend=-1)
    whole = _gpu_affine.align_triplets(seqs, trip, 1, sc)
    # room for about one cube and its buffers at a time
    free = _gpu_affine._free_bytes()
    one = 8 * int(_gpu_affine.trace_words([[80, 80, 80]])[0])
    frac = (one + _gpu_affine.warp_bytes(80, 80) * 2) / free
    split = _gpu_affine.align_triplets(seqs, trip, 1, sc, mem_fraction=frac)
    assert whole[0].tolist() == split[0].tolist()
    assert whole[1].tolist() == split[1].tolist()
    assert all(np.array_equal(x, y) for x, y in zip(whole[2], split[2]))
    with pytest.raises(MemoryError, match="affine GPU traceback of lengths"):
        _gpu_affine.align_triplets(seqs, trip, 1, sc, mem_fraction=1e-9)


@pytest.mark.gpu
def test_gpu_traceback_leaves_triplets_beyond_its_score_bound_to_the_cpu():
    from trimsa.io import as_sequence_set
    from trimsa.triplet import _gpu_affine

    # scores up to 3 x 6002 x (1 + 1000 + 1000): beyond the bound of the kernel's keys
    seqs = as_sequence_set([("a", "A"), ("b", "C"), ("c", "G" * 6000)], "dna")
    sc = Scoring.dna(match=1, mismatch=-1, gap_open=-1000, gap_extend=-1000)
    assert not _gpu_affine.traceable(seqs.lengths[[[0, 1, 2]]], sc).any()
    with pytest.raises(OptionError, match="bound"):
        _gpu_affine.align_triplets(seqs, np.array([[0, 1, 2]]), 0, sc)
    gpu = trimsa.align_triplets(seqs, [[0, 1, 2]], scoring=sc, device="gpu")[0]
    cpu = trimsa.align_triplets(seqs, [[0, 1, 2]], scoring=sc, device="cpu")[0]
    assert (gpu.rows, gpu.score) == (cpu.rows, cpu.score)


def test_batch_rescoring_is_the_sum_of_pairs_definition():
    from trimsa.io import as_sequence_set

    rng = np.random.default_rng(8)
    seqs = as_sequence_set(_random_strings(rng, rng.integers(1, 30, 9), "ACGTRN"), "dna")
    trip = rng.integers(0, len(seqs), (200, 3)).astype(np.int64)
    boxes, moves, rows = [], [], []
    for t in trip:
        codes = [seqs.code(int(x)) for x in t]
        lo = [int(rng.integers(0, len(c) + 1)) for c in codes]
        hi = [int(rng.integers(x, len(c) + 1)) for x, c in zip(lo, codes)]
        left = [h - x for x, h in zip(lo, hi)]
        mv = []
        while any(left):   # a random path through the core's box
            m = int(rng.integers(1, 8))
            if all(left[d] or not (m >> d) & 1 for d in range(3)):
                mv.append(m)
                left = [left[d] - ((m >> d) & 1) for d in range(3)]
        mv = np.array(mv, dtype=np.uint8)
        r = np.full((3, len(mv)), -1, dtype=np.int64)
        for d in range(3):
            r[d, ((mv >> d) & 1).astype(bool)] = codes[d][lo[d]:hi[d]]
        boxes.append(lo + hi)
        moves.append(mv)
        rows.append(r)
    off = np.zeros(len(moves) + 1, dtype=np.int64)
    off[1:] = np.cumsum([len(x) for x in moves])
    for go, ge in ((-3, -1), (0, -2), (-6, -1)):
        sc = Scoring.dna(gap_open=go, gap_extend=ge)
        got = np.empty(len(moves), dtype=np.int64)
        _affine.rescore_batch(seqs.codes, seqs.offsets, trip, np.array(boxes, np.int64),
                              np.concatenate(moves), off, sc.table, np.int64(go), np.int64(ge),
                              got)
        assert got.tolist() == [sc.sum_of_pairs(r) for r in rows]


# -- the divide and conquer with its sweeps and cubes on the GPU -----------------------

@pytest.mark.gpu
@pytest.mark.usefixtures("split")
def test_gpu_sweeps_splits_and_cubes_of_subproblems_equal_cpu(gpu_memory):
    """The requests of ``_affine.global_steps``, with random start states, closed faces
    and following states, answered on the GPU and on the CPU: the sweeps' last layers,
    the splits (the join of a forward and a reversed sweep) and the cubes."""
    from trimsa.triplet import _gpu_affine

    rng = np.random.default_rng(21)
    sc = Scoring.dna(gap_open=-3, gap_extend=-1)
    o, e = np.int32(-3), np.int32(-1)
    sweeps, splits, cubes = [], [], []
    for _ in range(60):
        x, x2, y, z = (rng.integers(0, 15, int(rng.integers(1, 50))).astype(np.uint8)
                       for _ in range(4))
        init, forbid = int(rng.integers(0, _affine.NS)), int(rng.integers(0, 8))
        r_out = int(rng.integers(0, _affine.NS))
        sweeps.append((x, y, z, init, forbid))
        splits.append(((x, y, z, init, forbid), (x2, y[::-1].copy(), z[::-1].copy(), r_out, 0)))
        cubes.append((x, y, z, init, forbid, r_out))
    got = [None] * len(sweeps)

    def fetch(lo, hi, d_last, last_off, plens):
        flat = d_last.get()
        for q in range(hi - lo):
            got[lo + q] = flat[last_off[q]:last_off[q + 1]].reshape(int(plens[q, 1]) + 1,
                                                                   int(plens[q, 2]) + 1, 13)

    _gpu_affine._sweep_states(sweeps, sc, 0.5, fetch)
    for (x, y, z, init, forbid), F in zip(sweeps, got):
        assert np.array_equal(F, _affine.last_states(x, y, z, sc.table, o, e, init, forbid))
    joins = _gpu_affine._splits(splits, sc, 0.5)
    assert joins == [_affine.cpu_answer("split", pair, sc.table, -3, -1) for pair in splits]
    for (x, y, z, init, forbid, r_out), (value, moves, es) in zip(
            cubes, _gpu_affine._traced_cubes(cubes, sc, 0.5)):
        v, _, mv, e_, n = _affine.align_cube(x, y, z, sc.table, o, e, 0, init, forbid,
                                             _affine.bonus_table(-3)[:, r_out].astype(np.int64))
        if n < 0:   # no path from that start state (every face closed): nothing to compare
            continue
        assert (value, es) == (int(v), int(e_)) and np.array_equal(moves, mv)


@pytest.mark.gpu
def test_gpu_joins_equal_cpu_on_ties_and_unreachable_states(gpu_memory):
    """``affine_join`` against ``_affine.best_join`` on random last layers whose values
    tie often (a few distinct values), with states in F at NEG / 2 and next to it (at or
    below it a state is skipped), and one F with none left."""
    import cupy

    from trimsa.triplet import _gpu_affine

    rng = np.random.default_rng(5)
    pairs = []
    for p in range(40):
        lb, lc = (int(v) for v in rng.integers(0, 40, 2))
        F, R = (rng.integers(-3, 4, (lb + 1, lc + 1, 13)).astype(np.int32) for _ in range(2))
        F[rng.random(F.shape) < 0.3] = _affine.NEG // 2 + int(rng.integers(-1, 2))
        if p == 0:
            F[:] = _affine.NEG
        pairs.append((lb, lc, F, R))
    flat = np.concatenate([a.ravel() for _, _, F, R in pairs for a in (F, R)])
    sizes = [a.size for _, _, F, R in pairs for a in (F, R)]
    last_off = np.concatenate([[0], np.cumsum(sizes)])
    for gap_open in (-3, -8):
        got = _gpu_affine._joins(cupy.asarray(flat), last_off, [p[:2] for p in pairs], gap_open)
        want = [tuple(int(v) for v in _affine.best_join(F, R, _affine.bonus_table(gap_open)))
                for _, _, F, R in pairs]
        assert got == want
    assert want[0] == (np.iinfo(np.int64).min, 0, 0, 0, 0)


@pytest.mark.parametrize("mode", [0, 1, 2])
def test_cores_of_large_triplets_give_the_cpu_alignment(mode, monkeypatch):
    """The GPU path of cubes beyond the full cube solves each one's core (the whole
    triplet in global mode; between the end and the start two sweeps find in the
    others) by the global divide and conquer with the core's closed faces: on the CPU,
    that is :func:`_affine.align`'s alignment, move for move."""
    from trimsa.io import as_sequence_set
    from trimsa.triplet import api

    monkeypatch.setattr(_affine, "CUBE_CELLS", 1 << 12)   # force the divide and conquer
    rng = np.random.default_rng(mode + 7)
    seqs = as_sequence_set(_random_strings(rng, rng.integers(20, 40, 6), "ACGTN"), "dna")
    trip = np.array([[0, 1, 2], [3, 4, 5], [5, 1, 0]])
    sc = Scoring.dna(gap_open=-3, gap_extend=-1)
    cores, forbid, scores, boxes = api._cores(seqs, trip, mode, sc, 2)
    for q, t in enumerate(trip):
        a, b, c = (seqs.code(int(x)) for x in t)
        score, box, moves = _affine.align(a, b, c, sc.table, sc.gap_open, sc.gap_extend, mode)
        got, _, value = _affine.global_moves(*cores[q], sc.table, sc.gap_open, sc.gap_extend,
                                             _affine.FRESH, _affine.FRESH, int(forbid[q]))
        assert tuple(boxes[q]) == tuple(box) and np.array_equal(got, moves)
        assert (value if mode == 0 else scores[q]) == score


@pytest.mark.gpu
@pytest.mark.parametrize("gaps", [(-3, -1), (-8, -1), (-1, -2)])
@pytest.mark.usefixtures("split")
def test_gpu_end_and_start_sweeps_equal_cpu(gaps, gpu_memory):
    """The GPU's sweeps that find where semiglobal and local alignments end and start
    give the CPU's score and cells (ties included), for random lengths 0..60 (empty
    sequences and ends on a near face go to the CPU) and codes with IUPAC letters."""
    from trimsa.triplet import _gpu_affine

    rng = np.random.default_rng(-sum(gaps))
    sc = Scoring.dna(gap_open=gaps[0], gap_extend=gaps[1])
    items = [tuple(rng.integers(0, 15, int(rng.integers(0, 61))).astype(np.uint8)
                   for _ in range(3)) for _ in range(150)]
    items += [tuple(np.zeros(n, np.uint8) for n in (20, 25, 30))]   # many equal ends
    for m in (1, 2):
        got = _gpu_affine.end_and_start(items, sc, m)
        for (a, b, c), (score, end, start) in zip(items, got):
            want = _affine.end_and_start(a, b, c, sc.table, np.int32(gaps[0]),
                                         np.int32(gaps[1]), m)
            assert (score, end, start) == (int(want[0]), tuple(int(v) for v in want[1]),
                                           tuple(int(v) for v in want[2]))


@pytest.mark.gpu
@pytest.mark.parametrize("mode", ["semiglobal", "local"])
@pytest.mark.usefixtures("split")
def test_gpu_semiglobal_and_local_tracebacks_beyond_the_full_cube_equal_cpu(mode, gpu_memory):
    """Semiglobal and local cubes beyond ``CUBE_CELLS``: the end and start sweeps and the
    core's divide and conquer on the GPU; the CPU's alignments."""
    from trimsa.io import as_sequence_set

    rng = np.random.default_rng(len(mode))
    seqs = as_sequence_set(_random_strings(rng, rng.integers(170, 240, 6), "ACGTN"), "dna")
    trip = np.array([[0, 1, 2], [3, 4, 5], [0, 3, 5], [5, 1, 0]])
    sc = Scoring.dna(gap_open=-3, gap_extend=-1)
    gpu = trimsa.align_triplets(seqs, trip, scoring=sc, mode=mode, device="gpu")
    cpu = trimsa.align_triplets(seqs, trip, scoring=sc, mode=mode, device="cpu")
    for g, c in zip(gpu, cpu):
        assert (g.rows, g.score) == (c.rows, c.score)


@pytest.mark.gpu
@pytest.mark.parametrize("gaps", [(-3, -1), (-8, -1), (-1, -2)])
@pytest.mark.usefixtures("split")
def test_gpu_global_tracebacks_beyond_the_full_cube_equal_cpu(gaps, gpu_memory):
    """Cubes beyond ``CUBE_CELLS`` (here 3 x 170 .. 260 residues) on the GPU: the CPU's
    divide and conquer, row for row."""
    from trimsa.io import as_sequence_set

    rng = np.random.default_rng(sum(gaps) + 40)
    seqs = as_sequence_set(_random_strings(rng, rng.integers(170, 260, 6), "ACGTN"), "dna")
    trip = np.array([[0, 1, 2], [3, 4, 5], [0, 3, 5], [5, 1, 0]])
    sc = Scoring.dna(gap_open=gaps[0], gap_extend=gaps[1])
    gpu = trimsa.align_triplets(seqs, trip, scoring=sc, device="gpu")
    cpu = trimsa.align_triplets(seqs, trip, scoring=sc, device="cpu")
    for g, c in zip(gpu, cpu):
        assert (g.rows, g.score) == (c.rows, c.score)


def _cpu_stand_ins(monkeypatch, untraceable):
    """The GPU functions ``api._align_affine`` calls, replaced by the CPU's answers, with
    the triplets of ``untraceable`` (indices into the lengths it is asked about) left
    to the CPU: its orchestration runs without a GPU."""
    from trimsa.triplet import _gpu_affine

    def traceable(lens, sc):
        ok = np.ones(len(lens), dtype=bool)
        ok[[q for q in untraceable if q < len(lens)]] = False
        return ok

    def align_triplets(seqs, trip, m, sc):
        got = [_affine.align(*(seqs.code(int(x)) for x in t), sc.table, sc.gap_open,
                             sc.gap_extend, m) for t in trip]
        return (np.array([g[0] for g in got], np.int64),
                np.array([g[1] for g in got], np.int64).reshape(-1, 6), [g[2] for g in got])

    def end_and_start(codes, sc, m):
        o, e = np.int32(sc.gap_open), np.int32(sc.gap_extend)
        return [_affine.end_and_start(a, b, c, sc.table, o, e, m) for a, b, c in codes]

    def align_global(cores, sc, forbid):
        return [_affine.global_moves(a, b, c, sc.table, sc.gap_open, sc.gap_extend,
                                     _affine.FRESH, _affine.FRESH, int(f))[::2]
                for (a, b, c), f in zip(cores, forbid)]

    for name, fn in (("traceable", traceable), ("align_triplets", align_triplets),
                     ("end_and_start", end_and_start), ("align_global", align_global)):
        monkeypatch.setattr(_gpu_affine, name, fn)


@pytest.mark.parametrize("mode", MODES)
def test_gpu_route_of_affine_tracebacks_with_cpu_stand_ins_equals_the_cpu(mode, monkeypatch):
    """``align_triplets``'s GPU route through full cubes (:func:`api._align_full`: full
    cubes, the divide and conquer of larger ones, the triplets beyond the kernels' bound
    left to the CPU), its GPU functions replaced by the CPU's: the CPU route's
    alignments, in input order. The memory of the CPU's
    sweeps is checked for the triplets left to the CPU only."""
    from trimsa.errors import ResourceError
    from trimsa.io import as_sequence_set
    from trimsa.triplet import _checks, api

    monkeypatch.setattr(_affine, "CUBE_CELLS", 3000)   # some full cubes, some beyond
    rng = np.random.default_rng(MODES.index(mode) + 90)
    seqs = as_sequence_set(_random_strings(rng, rng.integers(3, 30, 9), "ACGTN"), "dna")
    trip = rng.integers(0, len(seqs), (12, 3)).astype(np.int32)
    sc = Scoring.dna(gap_open=-8, gap_extend=-2, stage="alignment")
    m = MODES.index(mode)
    cpu = api._align_full(seqs, trip, m, sc, mode, 1, "cpu")
    _cpu_stand_ins(monkeypatch, untraceable=(2, 7))
    routed = api._align_full(seqs, trip, m, sc, mode, 1, "gpu")
    assert [(a.rows, a.score, a.core) for a in routed] == [(a.rows, a.score, a.core) for a in cpu]
    # no host memory at all: the triplets all on the GPU pass, one left to the CPU does not
    monkeypatch.setattr(_checks, "available_memory", lambda: 0)
    _cpu_stand_ins(monkeypatch, untraceable=())
    assert len(api._align_full(seqs, trip, m, sc, mode, 1, "gpu")) == len(trip)
    _cpu_stand_ins(monkeypatch, untraceable=(0,))
    with pytest.raises(ResourceError, match="aligning the largest triplet"):
        api._align_full(seqs, trip, m, sc, mode, 1, "gpu")
