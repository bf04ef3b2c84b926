"""The numba triplet engine against the pure-Python reference."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import trimsa
from trimsa import Scoring
from trimsa.alphabet import DNA, PROTEIN

from . import reference as ref

MODES = ["global", "semiglobal", "local"]

dna_seq = st.text(alphabet="ACGT", min_size=1, max_size=9)
dna_iupac = st.text(alphabet="ACGTNRYacgtn", min_size=1, max_size=8)


def scoring_strategy():
    return st.builds(
        Scoring.dna,
        match=st.integers(-2, 6),
        mismatch=st.integers(-6, 2),
        gap=st.integers(-6, 0),
    )


def ref_score(seqs, scoring, mode):
    codes = [list(scoring.alphabet.encode(s)) for s in seqs]
    return ref.score(*codes, scoring.table.tolist(), scoring.gap, mode)


@settings(max_examples=150, deadline=None)
@given(a=dna_seq, b=dna_seq, c=dna_seq, scoring=scoring_strategy(), mode=st.sampled_from(MODES))
def test_scores_match_reference(a, b, c, scoring, mode):
    got = trimsa.score_triplets([a, b, c], mode=mode, scoring=scoring)
    assert got.tolist() == [ref_score([a, b, c], scoring, mode)]


@settings(max_examples=60, deadline=None)
@given(a=dna_iupac, b=dna_iupac, c=dna_iupac, mode=st.sampled_from(MODES))
def test_ambiguity_codes_match_reference(a, b, c, mode):
    sc = Scoring.dna(2, -1, -2)
    got = trimsa.score_triplets([a, b, c], mode=mode, scoring=sc)
    assert got.tolist() == [ref_score([a, b, c], sc, mode)]


@settings(max_examples=40, deadline=None)
@given(
    seqs=st.lists(st.text(alphabet="ARNDCQEGHILKMFPSTWYV", min_size=1, max_size=7),
                  min_size=3, max_size=3),
    gap=st.integers(-12, -1),
    mode=st.sampled_from(MODES),
)
def test_protein_matches_reference(seqs, gap, mode):
    sc = Scoring.protein("BLOSUM62", gap)
    got = trimsa.score_triplets(seqs, mode=mode, scoring=sc, )
    assert got.tolist() == [ref_score(seqs, sc, mode)]


@settings(max_examples=40, deadline=None)
@given(a=dna_seq, b=dna_seq, c=dna_seq, scoring=scoring_strategy(), mode=st.sampled_from(MODES))
def test_score_invariant_under_permutation(a, b, c, scoring, mode):
    seqs = [a, b, c]
    trip = np.array(list(itertools.permutations(range(3))), dtype=np.int32)
    got = trimsa.score_triplets(seqs, trip, mode=mode, scoring=scoring)
    assert len(set(got.tolist())) == 1


def _check_alignment(aln, seqs, scoring, mode):
    rows = aln.rows
    assert len({len(r) for r in rows}) == 1
    for r, s in zip(rows, seqs):
        assert r.replace("-", "") == s
    for col in zip(*rows):
        assert any(ch != "-" for ch in col), "all-gap column"
    (i0, j0, k0), (i1, j1, k1) = aln.core
    lead = i0 + j0 + k0
    tail = (len(seqs[0]) - i1) + (len(seqs[1]) - j1) + (len(seqs[2]) - k1)
    core = [r[lead:len(r) - tail] for r in rows]
    enc = lambda ch: int(scoring.alphabet.encode(ch)[0])  # noqa: E731
    assert ref.alignment_score(core, enc, scoring.table.tolist(), scoring.gap) == aln.score
    assert aln.score == ref_score(seqs, scoring, mode)


@settings(max_examples=120, deadline=None)
@given(a=dna_seq, b=dna_seq, c=dna_seq, scoring=scoring_strategy(), mode=st.sampled_from(MODES))
def test_traceback_is_optimal_and_complete(a, b, c, scoring, mode):
    aln = trimsa.align_triplet(a, b, c, mode=mode, scoring=scoring)
    _check_alignment(aln, [a, b, c], scoring, mode)


@pytest.fixture
def small_cube(monkeypatch):
    """Force the divide-and-conquer traceback on small inputs."""
    from trimsa.triplet import api

    monkeypatch.setattr(api, "CUBE_CELLS", 8)


@settings(max_examples=60, deadline=None)
@given(a=dna_seq, b=dna_seq, c=dna_seq, scoring=scoring_strategy(), mode=st.sampled_from(MODES))
def test_divide_and_conquer_traceback_is_optimal(a, b, c, scoring, mode):
    from trimsa.triplet import api

    old = api.CUBE_CELLS
    api.CUBE_CELLS = 8
    try:
        aln = trimsa.align_triplet(a, b, c, mode=mode, scoring=scoring)
    finally:
        api.CUBE_CELLS = old
    _check_alignment(aln, [a, b, c], scoring, mode)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("cube_cells", [8, None], ids=["divide", "cube"])
def test_batched_alignments_equal_single(monkeypatch, mode, cube_cells):
    # a batch (full cubes: the parallel kernel; or the divide and conquer) against each
    # triplet alone (one cube: the serial kernel)
    from trimsa.triplet import api

    if cube_cells:
        monkeypatch.setattr(api, "CUBE_CELLS", cube_cells)
    rng = np.random.default_rng(5)
    seqs = ["".join(rng.choice(list("ACGT"), rng.integers(1, 12))) for _ in range(6)]
    trip = trimsa.all_triplets(6)
    sc = Scoring.dna()
    batch = trimsa.align_triplets(seqs, trip, mode=mode, scoring=sc)
    scores = trimsa.score_triplets(seqs, trip, mode=mode, scoring=sc)
    assert [a.score for a in batch] == scores.tolist()
    for t, aln in zip(trip, batch):
        alone = trimsa.align_triplets(seqs, t[None, :], mode=mode, scoring=sc)[0]
        assert alone.score == aln.score and list(alone.rows) == list(aln.rows)


EDGE_CASES = [
    pytest.param(("A", "A", "A"), id="length-1"),
    pytest.param(("A", "C", "G"), id="length-1-all-different"),
    pytest.param(("ACGTACGTAC",) * 3, id="identical"),
    pytest.param(("G", "ACGT" * 125, "ACGTT" * 100), id="1-vs-500"),
    pytest.param(("ACNNGT", "ACGRGT", "ACYGT"), id="ambiguity-codes"),
    pytest.param(("acgtAC", "ACGTac", "aCgT"), id="lower-case"),
    pytest.param(("ACGUAC", "ACGTAC", "acguac"), id="rna"),
]


@pytest.mark.parametrize("seqs", EDGE_CASES)
@pytest.mark.parametrize("mode", MODES)
def test_edge_cases(seqs, mode):
    sc = Scoring.dna()
    aln = trimsa.align_triplet(*seqs, mode=mode, scoring=sc)
    score = trimsa.score_triplets(list(seqs), mode=mode, scoring=sc)[0]
    assert aln.score == score
    for r, s in zip(aln.rows, seqs):
        assert r.replace("-", "") == s
    if max(map(len, seqs)) <= 12:
        assert score == ref_score(list(seqs), sc, mode)


def test_identical_sequences_align_without_gaps():
    s = "ACGTTGCAAGT"
    aln = trimsa.align_triplet(s, s, s)
    assert aln.rows == (s, s, s)
    assert aln.score == 3 * len(s) * Scoring.dna(stage="alignment").table[0, 0]


def test_one_vs_500_global_score_is_known():
    # G against 500 residues twice: the best is to pair G with a G in both
    sc = Scoring.dna(1, -1, -2)
    b = "ACGT" * 125
    aln = trimsa.align_triplet("G", b, b, scoring=sc)
    # columns: 500 B/C matches (+1 each, 2 gaps with G -> -4) except one with G (+3)
    assert aln.score == 499 * (1 - 4) + 3


_MEMORY_SCRIPT = """
import resource, sys
import numpy as np
import trimsa
L = int(sys.argv[1])
rng = np.random.default_rng(1)
base = rng.choice(list("ACGT"), L)
seqs = ["".join(np.where(rng.random(L) < 0.1, rng.choice(list("ACGT"), L), base)) for _ in range(3)]
sc = trimsa.Scoring.dna(gap_open=-3, gap_extend=-1) if sys.argv[2] == "affine" else \
    trimsa.Scoring.dna(gap=-3)
trimsa.align_triplet("ACGT", "AGT", "ACT", scoring=sc)
# compile the divide-and-conquer kernels too (a cube above the full-traceback limit)
trimsa.align_triplet(*(s[:110] for s in seqs), scoring=sc)
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
aln = trimsa.align_triplet(*seqs, scoring=sc)
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
assert aln.score == trimsa.score_triplets(seqs, scoring=sc)[0]
print(before * 1024, after * 1024)
"""


def _peak_memory(L, gaps="linear"):
    import subprocess
    import sys

    res = subprocess.run([sys.executable, "-c", _MEMORY_SCRIPT, str(L), gaps], capture_output=True,
                         text=True, check=True)
    before, after = map(int, res.stdout.split())
    return after - before


def test_long_triplet_uses_quadratic_memory():
    # the full cube of three 400-residue sequences would take 401^3 * 4 bytes = 258 MB
    grown = _peak_memory(400)
    assert grown < 64e6, f"peak memory grew by {grown / 1e6:.0f} MB"


def test_long_affine_triplet_uses_quadratic_memory():
    # the full affine cube of three 400-residue sequences: 401^3 * 13 exports * 4 bytes = 3.4 GB
    grown = _peak_memory(400, "affine")
    assert grown < 128e6, f"peak memory grew by {grown / 1e6:.0f} MB"


@pytest.mark.slow
def test_three_1000bp_align_under_2gib():
    grown = _peak_memory(1000)
    assert grown < 2 * 2**30


def test_all_triplets_order():
    t = trimsa.all_triplets(5)
    assert t.shape == (10, 3)
    assert t.tolist() == [list(x) for x in itertools.combinations(range(5), 3)]


def test_all_triplets_blocks_match():
    from trimsa.triplet import iter_all_triplets

    n = 30
    blocks = np.concatenate(list(iter_all_triplets(n, batch=100)))
    assert blocks.tolist() == [list(x) for x in itertools.combinations(range(n), 3)]


def test_threads_give_identical_scores():
    rng = np.random.default_rng(3)
    seqs = ["".join(rng.choice(list("ACGT"), rng.integers(5, 40))) for _ in range(9)]
    one = trimsa.score_triplets(seqs, threads=1)
    two = trimsa.score_triplets(seqs, threads=2)
    assert one.tolist() == two.tolist()


def test_bad_triplet_index():
    with pytest.raises(trimsa.OptionError, match="index outside"):
        trimsa.score_triplets(["AC", "AG", "AT"], [[0, 1, 3]])


def test_bad_arguments_name_themselves():
    seqs = ["ACGT", "AGT", "ACT"]
    with pytest.raises(trimsa.OptionError, match="scoring must be a trimsa Scoring"):
        trimsa.align_triplet(*seqs, scoring="dna")
    with pytest.raises(trimsa.OptionError, match="threads must be an integer"):
        trimsa.score_triplets(seqs, threads="a")
    with pytest.raises(trimsa.OptionError, match="every row three indices"):
        trimsa.score_triplets(seqs, [[0, 1, 2], [0, 1]])
    with pytest.raises(trimsa.TrimsaError, match="item 2 is a NoneType"):
        trimsa.align_triplet("ACGT", None, "ACT")


def test_bad_mode():
    with pytest.raises(trimsa.OptionError, match="unknown mode"):
        trimsa.score_triplets(["AC", "AG", "AT"], mode="glob")


def test_too_few_sequences():
    with pytest.raises(trimsa.TooFewSequencesError):
        trimsa.score_triplets(["AC", "AG"])


def test_scoring_alphabet_mismatch():
    from trimsa.io import as_sequence_set

    seqs = as_sequence_set(["ACG", "ACG", "ACG"])
    assert seqs.alphabet.name == "dna"
    with pytest.raises(trimsa.OptionError, match="alphabet"):
        trimsa.score_triplets(seqs, scoring=Scoring.protein())


def test_protein_alphabet_guess():
    seqs = ["MKVLHEEW", "MKVLHEW", "MKILHEEW"]
    s = trimsa.score_triplets(seqs)
    sc = Scoring.protein()
    assert s.tolist() == [ref_score(seqs, sc, "global")]
    assert trimsa.read_sequences is not None
    assert PROTEIN.size == 24 and DNA.size == 15


def test_traceback_memory_check_counts_the_sweeps_each_alignment_makes(monkeypatch):
    """The memory a traceback is checked for, before anything is allocated: the divide
    and conquer's planes over the two shorter sequences; semiglobal and local ones
    also the first sweep over the second and third as given; on several threads for
    one affine triplet, the wavefront's third plane and row table."""
    from trimsa.errors import ResourceError
    from trimsa.io import as_sequence_set
    from trimsa.triplet import _checks

    seqs = as_sequence_set([("a", "A" * 5), ("b", "C" * 300), ("c", "G" * 300)], "dna")
    trip = np.array([[0, 1, 2]])
    affine = Scoring.dna(gap_open=-8, gap_extend=-2)
    asked = []
    monkeypatch.setattr(_checks, "check_memory", lambda n, what: asked.append(n))
    for mode, workers in ((0, 1), (1, 1), (2, 2), (0, 2)):
        _checks.check_plane_memory(seqs, trip, affine, workers, "x", tracebacks=True, mode=mode)
    plane = 13 * 4   # bytes of one affine plane per cell
    dc = 7 * 302 * 4 * plane                     # lengths 5 and 300 (+ 2)
    ends = 302 * 302 * 2 * plane                 # the second and third, as given
    rows = 6 * 301 * 16                          # (5 + 1) x (300 + 1) rows, 16 bytes
    assert asked == [dc, ends, ends * 1.5 + rows, dc + 7 * 302 * plane + 302 / 2 * 302 * 16]
    # an error line names the need, before any plane is allocated
    monkeypatch.undo()
    monkeypatch.setattr(_checks, "available_memory", lambda: 5 * 2**20)
    with pytest.raises(ResourceError, match=r"lengths 5, 300, 300\) needs 9\.0 MiB"):
        trimsa.align_triplets(seqs, trip, mode="semiglobal", scoring=affine, threads=1)
