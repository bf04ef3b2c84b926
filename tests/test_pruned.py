"""The bound-pruned exact affine path (``trimsa.triplet.pruned``): its pairwise losses
against brute force, its bands against every alignment of tiny triplets, and its
scores and alignments against the full cube on random, related, unrelated and very
unequal inputs."""

from __future__ import annotations

import itertools
import zlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import trimsa
from trimsa.errors import OptionError
from trimsa.io import as_sequence_set
from trimsa.scoring import Scoring
from trimsa.triplet import _affine, _pruned, pruned
from trimsa.triplet._checks import check_bands

from .affine_reference import _pair_score, all_alignments, natural_sp, rows_from_moves

GAP = -1
SCORINGS = {
    "dna -3/-1": Scoring.dna(1, -1, gap_open=-3, gap_extend=-1),
    "dna -1/-2": Scoring.dna(2, -1, gap_open=-1, gap_extend=-2),
    "dna tv -10/-2": Scoring.dna(3, -2, transversion=-3, gap_open=-10, gap_extend=-2),
    "protein -10/-1": Scoring.protein(gap_open=-10, gap_extend=-1),
}


def _seed(*parts) -> int:
    """A seed that names the case (the same in every process, unlike ``hash``)."""
    return zlib.crc32(repr(parts).encode())


def _pair_paths(n, m):
    """Every pairwise alignment of lengths n, m as a list of moves (1 u, 2 v, 3 both)."""
    if n == 0 and m == 0:
        yield ()
        return
    for mv, (dx, dy) in ((3, (1, 1)), (1, (1, 0)), (2, (0, 1))):
        if dx <= n and dy <= m:
            for rest in _pair_paths(n - dx, m - dy):
                yield (mv,) + rest


def _brute_losses(u, v, table, go, ge):
    """(D, opt): the best score through each cell of the square, less the optimum."""
    n, m = len(u), len(v)
    ub = np.full((n + 1, m + 1), -10 ** 9, np.int64)
    for path in _pair_paths(n, m):
        top, bottom, cells = [], [], [(0, 0)]
        x = y = 0
        for mv in path:
            top.append(u[x] if mv & 1 else GAP)
            bottom.append(v[y] if mv & 2 else GAP)
            x += mv & 1
            y += mv >> 1
            cells.append((x, y))
        s = _pair_score(top, bottom, table, go, ge)
        for c in cells:
            ub[c] = max(ub[c], s)
    opt = ub[n, m]
    return ub - opt, opt


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 3), max_size=5), st.lists(st.integers(0, 3), max_size=5),
       st.sampled_from([(-3, -1), (-1, -2), (0, -2), (-8, -1)]))
def test_pair_losses_are_the_best_alignment_through_each_cell(u, v, gaps):
    table = [[2 if x == y else -1 for y in range(4)] for x in range(4)]
    go, ge = gaps
    want, opt = _brute_losses(u, v, table, go, ge)
    D = np.empty((len(u) + 1) * (len(v) + 1), np.int16)
    F = np.empty((3, D.size), np.int32)
    got = _pruned.pair_loss(np.array(u, np.uint8), np.array(v, np.uint8),
                            np.array(table, np.int32), np.int32(go), np.int32(ge), D, F)
    assert got == opt
    np.testing.assert_array_equal(D.reshape(len(u) + 1, len(v) + 1), want)


def _cells_of(moves):
    i = j = k = 0
    out = [(0, 0, 0)]
    for m in moves:
        i += m & 1
        j += (m >> 1) & 1
        k += (m >> 2) & 1
        out.append((i, j, k))
    return out


def _losses_of(seqs, trip, sc):
    pairs, slots, rev = pruned.pair_plan(len(seqs), trip)
    D, off, opt = pruned.losses(seqs, pairs, sc)
    return D, off, opt, slots, rev


def _band_of(seqs, t, D, off, opt, slots, rev, delta, paths):
    la, lb, lc = (int(seqs.lengths[x]) for x in t)
    po = off[slots[0]].astype(np.int64)
    pw = np.array([(la if rev[0, 0] else lb) + 1, (la if rev[0, 1] else lc) + 1,
                   (lb if rev[0, 2] else lc) + 1], np.int64)
    jlo, jhi, klo, khi = (np.empty(la + 1, np.int64) for _ in range(4))
    cells = _pruned.bound_band(la, lb, lc, D, po, rev[0], pw, np.int64(delta), paths,
                               jlo, jhi, klo, khi)
    return cells, np.stack([jlo, jhi, klo, khi], axis=1)


@pytest.mark.parametrize("seed", range(12))
def test_every_alignment_reaching_the_threshold_lies_in_the_band(seed):
    rng = np.random.default_rng(seed)
    sc = SCORINGS[["dna -3/-1", "dna -1/-2", "dna tv -10/-2"][seed % 3]]
    strs = ["".join(rng.choice(list("ACGT"), int(rng.integers(1, 5)))) for _ in range(3)]
    seqs = as_sequence_set(strs, sc.alphabet)
    t = np.array([[0, 1, 2]])
    D, off, opt, slots, rev = _losses_of(seqs, t, sc)
    total = int(opt[slots[0]].sum())
    codes = [list(seqs.code(q)) for q in range(3)]
    scored = [(natural_sp(rows_from_moves(*codes, mv), sc.table, sc.gap_open, sc.gap_extend), mv)
              for mv in all_alignments(*(len(c) for c in codes))]
    best = max(s for s, _ in scored)
    assert best <= total
    for slack in (0, 1, 3, 10):
        thr = best - slack
        for paths in (False, True):
            cells, band = _band_of(seqs, t[0], D, off, opt, slots, rev, total - thr, paths)
            assert cells > 0
            check_bands([band], t, seqs.lengths)   # a band the kernels take
            for s, mv in scored:
                if s >= thr:
                    for i, j, k in _cells_of(mv):
                        assert band[i, 0] <= j <= band[i, 1] and band[i, 2] <= k <= band[i, 3]
    # a guess above the optimum still gives a band (it holds the pairwise optimal paths)
    cells, band = _band_of(seqs, t[0], D, off, opt, slots, rev, 0, True)
    check_bands([band], t, seqs.lengths)


def _mutate(rng, s, rate, letters):
    out = []
    for ch in s:
        r = rng.random()
        if r < rate / 3:
            continue
        if r < 2 * rate / 3:
            out.append(ch)
            out.append(str(rng.choice(letters)))
            continue
        out.append(str(rng.choice(letters)) if r < rate else ch)
    return "".join(out)


def _family(rng, n, length, rate, letters):
    root = "".join(rng.choice(list(letters), length))
    return [_mutate(rng, root, rate, list(letters)) for _ in range(n)]


CASES = {
    # related sequences: the bound prunes most of the cube
    "related": lambda rng, L: _family(rng, 6, L, 0.15, "ACGT"),
    "divergent": lambda rng, L: _family(rng, 6, L, 0.6, "ACGT"),
    # unrelated random sequences, and very unequal lengths: little or nothing pruned
    "unrelated": lambda rng, L: ["".join(rng.choice(list("ACGT"), L)) for _ in range(6)],
    "unequal": lambda rng, L: ["".join(rng.choice(list("ACGT"), m))
                               for m in (1, L // 8, L, 2 * L, 2, 3)],
    "ambiguous": lambda rng, L: [s[:L // 3] + "N" * 5 + s[L // 3:].replace("A", "R")
                                 for s in _family(rng, 6, L, 0.2, "ACGT")],
}


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("name", sorted(SCORINGS))
def test_scores_equal_the_full_cube(case, name):
    sc = SCORINGS[name]
    rng = np.random.default_rng(_seed(case, name) % 2 ** 32)
    if sc.alphabet.name == "protein":
        strs = [s.translate(str.maketrans("ACGTNR", "LKEWXD")) for s in CASES[case](rng, 40)]
    else:
        strs = CASES[case](rng, 50)
    seqs = as_sequence_set(strs, sc.alphabet)
    trip = trimsa.all_triplets(len(seqs))
    work = pruned.Work()
    got = trimsa.score_triplets(seqs, trip, scoring=sc, threads=2, work=work)
    want = trimsa.score_triplets(seqs, trip, scoring=sc, threads=2, pruning="off")
    np.testing.assert_array_equal(got, want)
    cube = int(pruned.cube_cells(seqs.lengths, trip).sum())
    assert work.triplets == len(trip) and work.cube_cells == cube
    # at worst a first band of DENSE_SHARE of the cube, then the cube itself
    assert work.swept_cells <= (1 + pruned.DENSE_SHARE) * cube
    if case == "related":
        assert work.swept_cells < 0.2 * cube


def test_related_triplets_sweep_a_small_share_of_their_cubes():
    rng = np.random.default_rng(5)
    seqs = as_sequence_set(_family(rng, 5, 300, 0.1, "ACGT"))
    sc = SCORINGS["dna -3/-1"]
    work = pruned.Work()
    trimsa.score_triplets(seqs, scoring=sc, threads=2, work=work)
    assert work.swept_cells < 0.01 * work.cube_cells
    assert work.full == 0
    assert "triplets:" in work.summary() and "cube cells swept" in work.summary()


@pytest.mark.parametrize("guess", [0.0, 1e-4, 0.05, 10.0])
def test_the_guess_changes_the_cells_not_the_scores(monkeypatch, guess):
    rng = np.random.default_rng(11)
    seqs = as_sequence_set(_family(rng, 6, 80, 0.3, "ACGT"))
    sc = SCORINGS["dna tv -10/-2"]
    want = trimsa.score_triplets(seqs, scoring=sc, threads=1, pruning="off")
    monkeypatch.setattr(pruned, "GUESS", guess)
    np.testing.assert_array_equal(trimsa.score_triplets(seqs, scoring=sc, threads=1), want)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.text("ACGT", min_size=1, max_size=14), min_size=3, max_size=3),
       st.sampled_from(sorted(SCORINGS)[:3]))
def test_scores_equal_the_full_cube_on_any_input(strs, name):
    sc = SCORINGS[name]
    seqs = as_sequence_set(strs, sc.alphabet)
    got = trimsa.score_triplets(seqs, [[0, 1, 2], [2, 0, 1]], scoring=sc, threads=1)
    want = trimsa.score_triplets(seqs, [[0, 1, 2]], scoring=sc, threads=1, pruning="off")
    assert got.tolist() == [want[0], want[0]]


@pytest.mark.parametrize("case", sorted(CASES))
def test_alignments_equal_the_full_cube(case):
    sc = SCORINGS["dna tv -10/-2"]
    rng = np.random.default_rng(_seed(case) % 2 ** 32)
    seqs = as_sequence_set(CASES[case](rng, 30), sc.alphabet)
    trip = np.array(list(itertools.permutations(range(4), 3)) + [[4, 5, 0]])
    got = trimsa.align_triplets(seqs, trip, scoring=sc, threads=2)
    want = trimsa.align_triplets(seqs, trip, scoring=sc, threads=2, pruning="off")
    assert [a.rows for a in got] == [a.rows for a in want]
    assert [a.score for a in got] == [a.score for a in want]


def test_large_alignments_equal_the_full_cube_traced_in_full(monkeypatch):
    """Beyond the full cube's size the unpruned path divides and conquers, which may pick
    another optimal alignment; traced in full, the cube gives the band's alignment."""
    sc = SCORINGS["dna -3/-1"]
    rng = np.random.default_rng(3)
    seqs = as_sequence_set(_family(rng, 3, 170, 0.25, "ACGT"), sc.alphabet)
    assert np.prod(seqs.lengths + 1) > _affine.CUBE_CELLS
    work = pruned.Work()
    got = trimsa.align_triplets(seqs, [[0, 1, 2], [1, 2, 0]], scoring=sc, threads=2, work=work)
    assert work.swept_cells < 0.1 * work.cube_cells
    monkeypatch.setattr(_affine, "CUBE_CELLS", 1 << 30)
    want = trimsa.align_triplets(seqs, [[0, 1, 2], [1, 2, 0]], scoring=sc, threads=2,
                                 pruning="off")
    assert [a.rows for a in got] == [a.rows for a in want]


def test_too_large_bands_go_to_the_full_cube(monkeypatch):
    sc = SCORINGS["dna -3/-1"]
    rng = np.random.default_rng(4)
    seqs = as_sequence_set(CASES["unrelated"](rng, 40), sc.alphabet)
    monkeypatch.setattr(pruned, "TRACE_CELLS", 10)
    work = pruned.Work()
    got = trimsa.align_triplets(seqs, [[0, 1, 2]], scoring=sc, threads=1, work=work)
    want = trimsa.align_triplets(seqs, [[0, 1, 2]], scoring=sc, threads=1, pruning="off")
    assert got[0].rows == want[0].rows and work.full == 1


@pytest.mark.parametrize("mode", ["semiglobal", "local"])
def test_other_modes_and_linear_gaps_sweep_full_cubes(mode):
    assert not pruned.applies(1, SCORINGS["dna -3/-1"])
    assert not pruned.applies(0, Scoring.dna(1, -1, gap=-2))
    rng = np.random.default_rng(8)
    seqs = as_sequence_set(_family(rng, 4, 40, 0.2, "ACGT"))
    work = pruned.Work()
    trimsa.score_triplets(seqs, mode=mode, scoring=SCORINGS["dna -3/-1"], work=work)
    assert work.swept_cells == work.cube_cells and work.full == 4


def test_unknown_pruning_is_an_error():
    with pytest.raises(OptionError, match="unknown pruning 'fast'"):
        trimsa.score_triplets(["ACGT"] * 3, pruning="fast")
    with pytest.raises(OptionError, match="unknown pruning"):
        trimsa.align_triplets(["ACGT"] * 3, [[0, 1, 2]], pruning="on")


def test_chunks_keep_the_losses_within_the_budget():
    rng = np.random.default_rng(9)
    seqs = as_sequence_set(_family(rng, 12, 60, 0.2, "ACGT"))
    trip = pruned.layered(seqs.lengths, trimsa.all_triplets(12))
    budget = 2 * 3 * 61 * 61 * 4
    parts = list(pruned.chunks(seqs.lengths, trip, budget))
    assert parts[0].start == 0 and parts[-1].stop == len(trip)
    assert all(a.stop == b.start for a, b in zip(parts, parts[1:]))
    for sl in parts:
        pairs = pruned.pair_plan(12, trip[sl])[0]
        assert sl.stop - sl.start == 1 or 2 * pruned.loss_cells(seqs.lengths, pairs).sum() <= budget


def test_the_triplet_tree_and_align3_say_what_was_swept(tmp_path, capsys):
    from trimsa.cli import main
    from trimsa.tree import build_guide_tree, triplet_distances

    rng = np.random.default_rng(12)
    strs = _family(rng, 6, 120, 0.1, "ACGT")
    dist = triplet_distances(strs, scoring=SCORINGS["dna -3/-1"], band=None, threads=1)
    assert 0 < dist.info["swept_share"] < 0.1
    assert dist.info["swept_cells"] > 0
    tree = build_guide_tree(strs, distances="triplet", scoring=SCORINGS["dna -3/-1"],
                            band=None, threads=1)
    assert "% of them swept: the bound-pruned cubes" in tree.summary()
    banded = triplet_distances(strs, scoring=SCORINGS["dna -3/-1"], band=8, threads=1)
    assert banded.info["swept_share"] is None
    fa = tmp_path / "three.fa"
    fa.write_text("".join(f">s{i}\n{s}\n" for i, s in enumerate(strs[:3])))
    assert main(["align3", str(fa), "-o", str(tmp_path / "out.fa")]) == 0
    err = capsys.readouterr().err
    assert "% of the cube swept (bound-pruned)" in err and err.endswith(" score %s\n" % (
        trimsa.score_triplets(strs[:3], scoring=trimsa.Scoring.dna(
            3, -2, transversion=-3, gap_open=-10, gap_extend=-2, stage="alignment"))[0],))
    assert main(["align3", str(fa), "--mode", "local", "-o", str(tmp_path / "out.fa")]) == 0
    assert "swept" not in capsys.readouterr().err


# --- the GPU path: every kernel against the CPU's -------------------------------------

def _gpu_case(case, name, L=60):
    sc = SCORINGS[name]
    rng = np.random.default_rng(_seed(case, name, L) % 2 ** 32)
    strs = CASES[case](rng, L)
    if sc.alphabet.name == "protein":
        strs = [s.translate(str.maketrans("ACGTNR", "LKEWXD")) for s in strs]
    return sc, as_sequence_set(strs, sc.alphabet)


@pytest.mark.gpu
@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("name", sorted(SCORINGS))
def test_gpu_losses_and_bands_equal_the_cpu(case, name, gpu_memory):
    import cupy

    from trimsa.triplet import _gpu_pruned

    sc, seqs = _gpu_case(case, name)
    trip = pruned.layered(seqs.lengths, trimsa.all_triplets(len(seqs)))
    pairs, slots, rev = pruned.pair_plan(len(seqs), trip)
    D, off, opt = pruned.losses(seqs, pairs, sc)
    d_D, goff, gopt = _gpu_pruned.losses(seqs, pairs, sc, cupy.asarray(seqs.codes),
                                         cupy.asarray(seqs.offsets.astype(np.int64)), 0.5)
    np.testing.assert_array_equal(goff, off)
    np.testing.assert_array_equal(gopt, opt)
    np.testing.assert_array_equal(cupy.asnumpy(d_D)[:off[-1]], D)
    total = opt[slots].sum(axis=1)
    for delta, paths in ((pruned.guesses(seqs.lengths, trip, total, sc), True),
                         (np.full(len(trip), 7), False), (np.zeros(len(trip), int), True)):
        d_rows, band_off, cells = _gpu_pruned.bands(seqs, trip, slots, rev, d_D, off, -delta,
                                                    paths)
        rows = cupy.asnumpy(d_rows)
        for t in range(len(trip)):
            want, band = _band_of(seqs, trip[t], D, off, opt, slots[t:t + 1], rev[t:t + 1],
                                  delta[t], paths)
            assert cells[t] == want
            if want >= 0:
                np.testing.assert_array_equal(rows[band_off[t]:band_off[t + 1]], band)


@pytest.fixture
def small_batches(monkeypatch):
    """The GPU's pruned path for the tests' small batches too."""
    from trimsa.triplet import _gpu_pruned

    monkeypatch.setattr(_gpu_pruned, "MIN_TRIPLETS", 0)


@pytest.mark.gpu
@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("name", sorted(SCORINGS))
def test_gpu_scores_equal_the_cpu_and_the_full_cube(case, name, gpu_memory, small_batches):
    sc, seqs = _gpu_case(case, name)
    trip = trimsa.all_triplets(len(seqs))
    work = pruned.Work()
    got = trimsa.score_triplets(seqs, trip, scoring=sc, device="gpu", work=work)
    cpu = trimsa.score_triplets(seqs, trip, scoring=sc, threads=2)
    off = trimsa.score_triplets(seqs, trip, scoring=sc, device="gpu", pruning="off")
    np.testing.assert_array_equal(got, cpu)
    np.testing.assert_array_equal(got, off)
    assert work.triplets == len(trip)
    assert work.swept_cells <= (1 + pruned.DENSE_SHARE) * work.cube_cells


@pytest.mark.gpu
@pytest.mark.parametrize("guess", [0.0, 10.0])
def test_gpu_guess_changes_the_cells_not_the_scores(monkeypatch, guess, gpu_memory,
                                                    small_batches):
    sc, seqs = _gpu_case("divergent", "dna tv -10/-2", 80)
    want = trimsa.score_triplets(seqs, scoring=sc, threads=1, pruning="off")
    monkeypatch.setattr(pruned, "GUESS", guess)
    np.testing.assert_array_equal(trimsa.score_triplets(seqs, scoring=sc, device="gpu"), want)


@pytest.mark.gpu
@pytest.mark.parametrize("case", sorted(CASES))
def test_gpu_alignments_equal_the_cpu(case, gpu_memory):
    sc = SCORINGS["dna tv -10/-2"]
    rng = np.random.default_rng(_seed(case) % 2 ** 32)
    seqs = as_sequence_set(CASES[case](rng, 30), sc.alphabet)
    trip = np.array(list(itertools.permutations(range(4), 3)) + [[4, 5, 0]])
    work = pruned.Work()
    got = trimsa.align_triplets(seqs, trip, scoring=sc, device="gpu", work=work)
    want = trimsa.align_triplets(seqs, trip, scoring=sc, threads=2)
    off = trimsa.align_triplets(seqs, trip, scoring=sc, device="gpu", pruning="off")
    assert [a.rows for a in got] == [a.rows for a in want] == [a.rows for a in off]
    assert [a.score for a in got] == [a.score for a in want]
    assert work.triplets == len(trip)


@pytest.mark.gpu
def test_gpu_too_large_bands_go_to_the_full_cube(monkeypatch, gpu_memory):
    sc = SCORINGS["dna -3/-1"]
    rng = np.random.default_rng(4)
    seqs = as_sequence_set(CASES["unrelated"](rng, 40), sc.alphabet)
    monkeypatch.setattr(pruned, "TRACE_CELLS", 10)
    work = pruned.Work()
    got = trimsa.align_triplets(seqs, [[0, 1, 2]], scoring=sc, device="gpu", work=work)
    want = trimsa.align_triplets(seqs, [[0, 1, 2]], scoring=sc, threads=1, pruning="off")
    assert got[0].rows == want[0].rows and work.full == 1


@pytest.mark.gpu
def test_gpu_small_calls_sweep_full_cubes(gpu_memory):
    sc, seqs = _gpu_case("related", "dna -3/-1")
    work = pruned.Work()
    got = trimsa.score_triplets(seqs, scoring=sc, device="gpu", work=work)
    np.testing.assert_array_equal(got, trimsa.score_triplets(seqs, scoring=sc, threads=1))
    assert work.full == work.triplets == 20 and work.swept_cells == work.cube_cells
