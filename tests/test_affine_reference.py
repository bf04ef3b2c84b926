"""Tests of the brute-force affine reference (tests/affine_reference.py) itself.

Expected values are worked out by hand in the comments; the reference is only
trusted to check the kernels once it reproduces them.

Scoring used throughout unless said otherwise: DNA, codes A=0 C=1 G=2 T=3,
match +1, mismatch -1, gap_open -3, gap_extend -1, so a gap run of length L
costs -3 - L (a single gap: -4).
"""

from __future__ import annotations

import doctest
import itertools
from math import comb

import numpy as np
import pytest

from . import affine_reference as aref
from .affine_reference import (all_alignments, brute_force, natural_sp, rows_from_moves,
                               rows_to_codes)

DNA = "ACGT"
TABLE = np.full((4, 4), -1, dtype=np.int64)
np.fill_diagonal(TABLE, 1)
OPEN, EXTEND = -3, -1


def sp(rows, gap_open=OPEN, gap_extend=EXTEND):
    return natural_sp(rows_to_codes(rows, DNA), TABLE, gap_open, gap_extend)


def seq(text):
    return [DNA.index(ch) for ch in text]


def test_module_docstring_examples():
    result = doctest.testmod(aref, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0


def test_table_is_the_dna_table():
    assert TABLE.tolist() == [[1, -1, -1, -1], [-1, 1, -1, -1], [-1, -1, 1, -1], [-1, -1, -1, 1]]


# --------------------------------------------------------------------------
# natural_sp on hand-scored alignments
# --------------------------------------------------------------------------

def test_no_gaps():
    # AC / AC / AG
    # (0,1): A/A +1, C/C +1          =  2
    # (0,2): A/A +1, C/G -1          =  0
    # (1,2): A/A +1, C/G -1          =  0
    assert sp(["AC", "AC", "AG"]) == 2


def test_run_interrupted_only_by_double_gap_columns_is_one_run():
    #        col: 1 2 3 4 5
    # row 0:      A C G T A
    # row 1:      A - - - A
    # row 2:      A C - C A
    # (0,1): all 5 columns kept; A/A +1, one run C G T over row 1, L=3: -3-3 = -6,
    #        A/A +1                                                  -> -4
    # (0,2): all kept; A/A +1, C/C +1, G/- run L=1: -4, T/C -1, A/A +1 -> -2
    # (1,2): column 3 is -/- and is removed, so the projection is
    #        A/A, -/C, -/C, A/A: ONE run of length 2 in row 1: -3-2 = -5,
    #        plus 2 matches                                           -> -3
    #        (two runs would have been -4 -4 + 2 = -6)
    # total -4 - 2 - 3 = -9
    assert sp(["ACGTA", "A---A", "AC-CA"]) == -9
    # Linear (open 0): (0,1) 1-3+1 = -1, (0,2) 1+1-1-1+1 = 1, (1,2) 1-2+1 = 0 -> 0;
    # and affine = linear + open * (number of runs = 1 + 1 + 1) = 0 - 9.
    assert sp(["ACGTA", "A---A", "AC-CA"], gap_open=0) == 0


def test_adjacent_runs_in_different_rows_are_two_runs():
    # row 0: A C - G
    # row 1: A - T G
    # row 2: A C T G
    # (0,1): A/A +1, C/- (gap in row 1) -4, -/T (gap in row 0) -4, G/G +1 -> -6
    #        (adjacent, but in different rows: two opens)
    # (0,2): A/A +1, C/C +1, -/T -4, G/G +1                               -> -1
    # (1,2): A/A +1, -/C -4, T/T +1, G/G +1                               -> -1
    # total -8
    assert sp(["AC-G", "A-TG", "ACTG"]) == -8
    # linear: (0,1) 1-1-1+1 = 0, (0,2) 1+1-1+1 = 2, (1,2) 1-1+1+1 = 2 -> 4 = -8 + 3*4 runs
    assert sp(["AC-G", "A-TG", "ACTG"], gap_open=0) == 4


def test_runs_in_different_rows_separated_by_a_removed_column_are_two_runs():
    # row 0: - - A
    # row 1: C - -
    # row 2: - G -
    # Each pair keeps two columns, one gap in each of its rows, e.g.
    # (0,1): columns 1 (-/C) and 3 (A/-), column 2 (-/-) removed: two runs, -4 -4.
    # Same for (0,2) and (1,2): total 3 * -8 = -24.
    assert sp(["--A", "C--", "-G-"]) == -24


def test_two_runs_in_the_same_row_separated_by_a_match():
    # ACGTA / A-G-A / ACGTA
    # (0,1): 1 -4 +1 -4 +1 = -5;  (1,2): -5;  (0,2): five matches = 5.   total -5
    assert sp(["ACGTA", "A-G-A", "ACGTA"]) == -5


def test_end_gaps_are_charged():
    # row 0: - A C
    # row 1: G A C
    # row 2: G A -
    # (0,1): -/G -4, A/A +1, C/C +1         -> -2
    # (0,2): -/G -4, A/A +1, C/- -4         -> -7
    # (1,2): G/G +1, A/A +1, C/- -4         -> -2
    # total -11
    assert sp(["-AC", "GAC", "GA-"]) == -11


def test_empty_alignment_scores_zero():
    assert natural_sp([[], [], []], TABLE, OPEN, EXTEND) == 0


def test_an_all_gap_column_is_refused():
    # A column with no residue at all is not a column of an alignment.
    with pytest.raises(ValueError, match="all gaps"):
        sp(["A-", "A-", "A-"])


def test_bad_shapes_are_refused():
    with pytest.raises(ValueError):
        sp(["AC", "A", "AC"])
    with pytest.raises(ValueError):
        sp(["AC", "AC"])


def _sp_by_groupby(rows, table, gap_open, gap_extend):
    """A second, differently written natural-affine SP: label each projected
    column ('M', or the row holding the gap) and count runs with groupby."""
    total = 0
    for p, q in ((0, 1), (0, 2), (1, 2)):
        labels = []
        for x, y in zip(rows[p], rows[q]):
            if x == -1 and y == -1:
                continue
            if x != -1 and y != -1:
                total += table[x][y]
                labels.append("M")
            else:
                labels.append("p" if x == -1 else "q")
        for label, run in itertools.groupby(labels):
            if label != "M":
                total += gap_open + gap_extend * len(list(run))
    return total


def test_natural_sp_matches_an_independent_rewrite_on_random_alignments():
    rng = np.random.default_rng(7)
    enumerated = {}
    for _ in range(200):
        lengths = tuple(int(n) for n in rng.integers(0, 4, size=3))
        seqs = [rng.integers(0, 4, size=n).tolist() for n in lengths]
        if lengths not in enumerated:
            enumerated[lengths] = list(all_alignments(*lengths))
        moves = enumerated[lengths]
        pick = moves[rng.integers(len(moves))]
        rows = rows_from_moves(*seqs, pick)
        go, ge = int(rng.integers(-4, 1)), int(rng.integers(-3, 1))
        expected = _sp_by_groupby(rows, TABLE.tolist(), go, ge)
        assert natural_sp(rows, TABLE, go, ge) == expected


# --------------------------------------------------------------------------
# Enumeration
# --------------------------------------------------------------------------

def _delannoy3(l, m, n):
    """Count of 3-row alignments by a closed formula (independent of the recursion).

    An alignment with N columns is a choice, for each row, of which of the N
    columns hold its residues: C(N, l) C(N, m) C(N, n) choices, minus those
    leaving some column empty; inclusion-exclusion over the set of empty
    columns gives sum_k (-1)^k C(N, k) C(N-k, l) C(N-k, m) C(N-k, n).
    """
    total = 0
    for N in range(max(l, m, n), l + m + n + 1):
        total += sum((-1) ** k * comb(N, k) * comb(N - k, l) * comb(N - k, m) * comb(N - k, n)
                     for k in range(N + 1))
    return total


def test_small_counts_by_hand():
    # (0,0,0): only the empty alignment.
    assert list(all_alignments(0, 0, 0)) == [()]
    # (1,0,0): the single residue in its own column.
    assert list(all_alignments(1, 0, 0)) == [(1,)]
    # (1,1,0): x and y together (move 3), x then y (1, 2), y then x (2, 1): 3,
    # the 2-D Delannoy number D(1,1).
    assert sorted(all_alignments(1, 1, 0)) == [(1, 2), (2, 1), (3,)]


def test_one_one_one_has_13_alignments():
    # Residues x, y, z (one per row). An alignment is an ordered partition of
    # {x, y, z} into nonempty columns:
    #   1 column  : {x,y,z}                                    -> 1
    #   2 columns : a singleton and a pair, 3 ways, 2 orders   -> 6
    #   3 columns : the 3! orders of the singletons            -> 6
    # total 13.  Masks: x = 1, y = 2, z = 4.
    expected = {(7,)}
    expected |= {(1, 6), (6, 1), (2, 5), (5, 2), (4, 3), (3, 4)}
    expected |= set(itertools.permutations((1, 2, 4)))
    got = list(all_alignments(1, 1, 1))
    assert len(got) == 13 == len(expected)
    assert set(got) == expected


def test_counts_match_the_closed_formula():
    assert _delannoy3(1, 1, 1) == 13       # the formula itself agrees with the hand count
    for l, m, n in itertools.product(range(3), repeat=3):
        got = list(all_alignments(l, m, n))
        assert len(got) == len(set(got)) == _delannoy3(l, m, n), (l, m, n)
    assert sum(1 for _ in all_alignments(2, 2, 2)) == 409
    assert sum(1 for _ in all_alignments(3, 3, 3)) == 16081 == _delannoy3(3, 3, 3)


def test_every_enumerated_alignment_is_valid():
    a, b, c = [0, 1], [2], [3, 0]
    for moves in all_alignments(2, 1, 2):
        assert all(1 <= m <= 7 for m in moves)
        rows = rows_from_moves(a, b, c, moves)
        assert [[x for x in r if x != -1] for r in rows] == [a, b, c]
        assert all(any(x != -1 for x in col) for col in zip(*rows))


def test_rows_from_moves():
    # moves 3 (rows 0,1), 4 (row 2), 1 (row 0)
    assert rows_from_moves([0, 1], [2], [3], (3, 4, 1)) == [[0, -1, 1], [2, -1, -1], [-1, 3, -1]]
    with pytest.raises(ValueError):
        rows_from_moves([0], [1], [2], (3,))        # row 2's residue is never consumed
    with pytest.raises(ValueError):
        rows_from_moves([0], [], [], (1, 1))        # more than row 0 holds
    with pytest.raises(ValueError):
        rows_from_moves([0], [], [], (0, 1))        # mask 0 is not a column


# --------------------------------------------------------------------------
# Brute-force optima, hand-worked
# --------------------------------------------------------------------------

def test_global_linear_hand_case():
    # a = ACG, b = AG, c = ACG, linear gap -1 (gap_open = 0).
    # Upper bound: SP <= sum of the best pairwise scores.
    #   (a,c): identical, 3.   (a,b) and (b,c): AG against ACG, the best is
    #   A-G / ACG = 1 - 1 + 1 = 1 (every other 2-row alignment has more gaps
    #   or a mismatch), so the bound is 3 + 1 + 1 = 5.
    # ACG / A-G / ACG (moves 7, 5, 7) reaches it, and it is the only alignment
    # whose three projections are all pairwise optimal: best 5, one optimum.
    best, optima = brute_force(seq("ACG"), seq("AG"), seq("ACG"), TABLE, 0, -1, "global")
    assert best == 5
    assert list(optima) == [((0, 0, 0), (3, 2, 3), (7, 5, 7))]
    assert optima.total == 1


def test_global_affine_hand_case():
    # Same sequences, open -3 extend -1. (a,c) still 3; AG vs ACG needs a gap
    # run in b of length >= 1 (-4) and has at most 2 matches: <= -2, reached
    # only by A-G / ACG. Bound 3 - 2 - 2 = -1, reached by the same alignment.
    best, optima = brute_force(seq("ACG"), seq("AG"), seq("ACG"), TABLE, OPEN, EXTEND, "global")
    assert best == -1
    assert list(optima) == [((0, 0, 0), (3, 2, 3), (7, 5, 7))]


def test_all_different_single_residues():
    # a = A, b = C, c = G.
    # global: (7,) is A/C/G = three mismatches = -3; every other alignment has
    #   gaps in at least two pairs (<= -4 each): best -3, one optimum.
    best, optima = brute_force(seq("A"), seq("C"), seq("G"), TABLE, OPEN, EXTEND, "global")
    assert (best, list(optima)) == (-3, [((0, 0, 0), (1, 1, 1), (7,))])
    # local: any nonempty core has a mismatch or gap in some pair and no match
    #   anywhere, so it is negative; the optima are the empty cores, one per
    #   cell of {0,1}^3: 8 of them.
    best, optima = brute_force(seq("A"), seq("C"), seq("G"), TABLE, OPEN, EXTEND, "local")
    assert best == 0 and optima.total == 8
    assert all(start == end and moves == () for start, end, moves in optima)
    # semiglobal: an empty core sits on a cell with some coordinate 0 and some
    #   coordinate 1 (= the length): all cells but (0,0,0) and (1,1,1): 6.
    best, optima = brute_force(seq("A"), seq("C"), seq("G"), TABLE, OPEN, EXTEND, "semiglobal")
    assert best == 0 and optima.total == 6
    assert {start for start, _, _ in optima} == set(itertools.product((0, 1), repeat=3)) - {
        (0, 0, 0), (1, 1, 1)}
    # max_kept truncates the list, never the count.
    best, optima = brute_force(seq("A"), seq("C"), seq("G"), TABLE, OPEN, EXTEND, "local",
                               max_kept=5)
    assert len(optima) == 5 and optima.total == 8 and optima.truncated


def test_semiglobal_free_end_gaps_hand_case():
    # a = AC, b = AC, c = TAC.
    # global: c's T must be gapped in a and b. Bound: (a,b) <= 2 matches; (a,c)
    #   has >= 1 gap in a (one run, <= -4) and <= 2 matches: <= -2; (b,c) the
    #   same. -AC / -AC / TAC (moves 4, 7, 7) gives 2 - 2 - 2 = -2.
    best, optima = brute_force(seq("AC"), seq("AC"), seq("TAC"), TABLE, OPEN, EXTEND, "global")
    assert (best, list(optima)) == (-2, [((0, 0, 0), (2, 2, 3), (4, 7, 7))])
    # semiglobal: the core may leave c's leading T out, start (0,0,1) has zeros
    #   and end (2,2,3) is on the far faces; AC/AC/AC scores 3 pairs x 2 = 6.
    #   Each pair has at most 2 matches and nothing else is positive, so 6 is
    #   the maximum, and it needs all of a, b and c's A, C in two full columns:
    #   one optimum.
    expected = [((0, 0, 1), (2, 2, 3), (7, 7))]
    best, optima = brute_force(seq("AC"), seq("AC"), seq("TAC"), TABLE, OPEN, EXTEND,
                               "semiglobal")
    assert (best, list(optima)) == (6, expected)
    # local: the same bound and the same single optimum.
    best, optima = brute_force(seq("AC"), seq("AC"), seq("TAC"), TABLE, OPEN, EXTEND, "local")
    assert (best, list(optima)) == (6, expected)


def test_local_hit_on_the_faces_is_also_semiglobal():
    # a = AT, b = CA, c = AG: the only letter in common is one A each, so every
    # pair has at most 1 match and nothing else is positive: <= 3. The core
    # A/A/A (start (0,1,0), end (1,2,1)) gives 3; any larger core adds a gap or
    # a mismatch. The start has zeros and the end has j1 = len(b) = 2, so the
    # same box is admissible in semiglobal mode.
    expected = [((0, 1, 0), (1, 2, 1), (7,))]
    for mode in ("local", "semiglobal"):
        best, optima = brute_force(seq("AT"), seq("CA"), seq("AG"), TABLE, OPEN, EXTEND, mode)
        assert (best, list(optima)) == (3, expected), mode


def test_local_beats_semiglobal_when_the_hit_is_inside():
    # a = TAT, b = CAC, c = GAG: the flanks T, C, G each occur in one sequence
    # only, so a flank residue meets a mismatch or a gap (<= -1) in both of its
    # pairs. Only A/A can be positive (one per pair).
    # local: A/A/A, box (1,1,1)-(2,2,2), gives 3 = the bound; unique.
    best, optima = brute_force(seq("TAT"), seq("CAC"), seq("GAG"), TABLE, OPEN, EXTEND, "local")
    assert (best, list(optima)) == (3, [((1, 1, 1), (2, 2, 2), (7,))])
    # semiglobal is 0 (the empty core): some row X starts at 0 and some row Y
    # ends at its length. If X's core is nonempty it holds X's first flank; else
    # Y != X, and if Y's core is nonempty it holds Y's last flank; else only the
    # third row has residues and every pair is gaps only (< 0). With a flank of
    # row X in the core, X's two pairs are each <= 1 match - 1 = 0, and the
    # third pair <= 1; reaching 1 would need X's flank against residues (a
    # mismatch, not a gap) in both other rows, so the other two pairs each hold
    # a mismatched flank as well and are <= 0. Hence <= 0, and 0 is reached.
    best, optima = brute_force(seq("TAT"), seq("CAC"), seq("GAG"), TABLE, OPEN, EXTEND,
                               "semiglobal")
    assert best == 0
    assert all(start == end and moves == () for start, end, moves in optima)


# --------------------------------------------------------------------------
# Properties on random tiny inputs
# --------------------------------------------------------------------------

def test_mode_ordering_on_random_inputs():
    rng = np.random.default_rng(2024)
    for _ in range(12):
        a, b, c = (rng.integers(0, 4, size=n).tolist() for n in rng.integers(0, 3, size=3))
        go, ge = int(rng.choice([0, -2, -3])), int(rng.choice([-1, -2]))
        g, g_opt = brute_force(a, b, c, TABLE, go, ge, "global")
        s, s_opt = brute_force(a, b, c, TABLE, go, ge, "semiglobal")
        loc, l_opt = brute_force(a, b, c, TABLE, go, ge, "local")
        assert s >= 0 and loc >= 0
        assert loc >= s >= g, (a, b, c, go, ge)
        la, lb, lc = len(a), len(b), len(c)
        for (best, optima, mode) in ((g, g_opt, "global"), (s, s_opt, "semiglobal"),
                                     (loc, l_opt, "local")):
            assert 1 <= optima.total and len(optima) == min(optima.total, aref.MAX_KEPT)
            for start, end, moves in optima:
                (i0, j0, k0), (i1, j1, k1) = start, end
                assert i0 <= i1 <= la and j0 <= j1 <= lb and k0 <= k1 <= lc
                if mode == "global":
                    assert (start, end) == ((0, 0, 0), (la, lb, lc))
                if mode == "semiglobal":
                    assert 0 in start and (i1 == la or j1 == lb or k1 == lc)
                rows = rows_from_moves(a[i0:i1], b[j0:j1], c[k0:k1], moves)
                assert natural_sp(rows, TABLE, go, ge) == best


def test_global_optimum_is_the_max_over_all_alignments():
    # The same thing written as one expression, over every alignment.
    a, b, c = [0, 2], [0, 3, 2], [1]
    best, optima = brute_force(a, b, c, TABLE, OPEN, EXTEND, "global")
    scores = [natural_sp(rows_from_moves(a, b, c, m), TABLE, OPEN, EXTEND)
              for m in all_alignments(2, 3, 1)]
    assert best == max(scores) and optima.total == scores.count(best)


def test_bad_mode_is_refused():
    with pytest.raises(ValueError, match="mode"):
        brute_force([0], [0], [0], TABLE, OPEN, EXTEND, "glocal")
