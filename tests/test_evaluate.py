"""trimsa.evaluate: FastSP's SP-score, Modeler, SPFN, SPFP, TC and compression."""

from __future__ import annotations

import csv
import gzip
import itertools
import math
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trimsa.errors import DuplicateNameError, InputFormatError, TooFewSequencesError, TrimsaError
from trimsa.evaluate import JSON_KEYS, AlignmentMismatchError, Scores, compare, read_alignment

DATA = Path(__file__).parent / "data" / "eval"


# --------------------------------------------------------------------------- slow reference

def reference_scores(ref, est):
    """Obviously-correct FastSP definitions: sets of homology pairs and column sets."""

    def residues_by_column(rows):
        # each residue is (sequence name, rank among that sequence's residues)
        cols = []
        for c in range(len(rows[0][1])):
            cols.append(set())
        for name, row in rows:
            k = 0
            for c, ch in enumerate(row):
                if ch.isalpha():
                    cols[c].add((name, k))
                    k += 1
        return cols

    def homologies(cols):
        return {frozenset(p) for col in cols for p in itertools.combinations(col, 2)}

    rc, ec = residues_by_column(ref), residues_by_column(est)
    hr, he = homologies(rc), homologies(ec)
    shared = len(hr & he)
    est_sets = {frozenset(c) for c in ec}
    aligned = [c for c in rc if len(c) >= 2]
    correct = sum(1 for c in aligned if frozenset(c) in est_sets)
    nan = math.nan
    return dict(shared=shared, ref_hom=len(hr), est_hom=len(he), correct=correct,
                aligned=len(aligned),
                sp=shared / len(hr) if hr else nan, modeler=shared / len(he) if he else nan,
                tc=correct / len(aligned) if aligned else nan)


@st.composite
def alignment_pairs(draw):
    """Two random alignments of the same random sequences (gaps placed independently)."""
    n = draw(st.integers(2, 5))
    seqs = [draw(st.text("ACGT", min_size=0, max_size=8)) for _ in range(n)]

    def align():
        width = max(len(s) for s in seqs) + draw(st.integers(0, 4))
        width = max(width, 1)
        rows = []
        for i, s in enumerate(seqs):
            pos = sorted(draw(st.lists(st.integers(0, width - 1), min_size=len(s),
                                       max_size=len(s), unique=True)))
            row = ["-"] * width
            for p, ch in zip(pos, s):
                row[p] = ch
            rows.append((f"s{i}", "".join(row)))
        return rows

    return align(), align()


def same(a, b):
    return (math.isnan(a) and math.isnan(b)) or a == b


@settings(max_examples=200, deadline=None)
@given(alignment_pairs())
def test_matches_slow_reference(pair):
    ref, est = pair
    want = reference_scores(ref, est)
    got = compare(ref, est)
    assert got.shared_homologies == want["shared"]
    assert got.ref_homologies == want["ref_hom"]
    assert got.est_homologies == want["est_hom"]
    assert got.correct_columns == want["correct"]
    assert got.ref_aligned_columns == want["aligned"]
    assert same(got.sp_score, want["sp"]) and same(got.modeler, want["modeler"])
    assert same(got.tc, want["tc"])
    assert same(got.spfn, 1 - want["sp"]) and same(got.spfp, 1 - want["modeler"])


@settings(max_examples=100, deadline=None)
@given(alignment_pairs())
def test_swapping_swaps_spfn_and_spfp(pair):
    ref, est = pair
    a, b = compare(ref, est), compare(est, ref)
    assert same(a.spfn, b.spfp) and same(a.spfp, b.spfn)
    assert a.shared_homologies == b.shared_homologies
    assert a.correct_columns == b.correct_columns  # a correct column is a shared column
    assert a.compression * b.compression == pytest.approx(1.0)


# --------------------------------------------------------------------------- by hand

def test_identity():
    rows = [("a", "AC-GT"), ("b", "ACTGT"), ("c", "-CTG-")]
    s = compare(rows, rows)
    assert (s.spfn, s.spfp, s.tc, s.compression) == (0.0, 0.0, 1.0, 1.0)
    assert (s.n_seqs, s.ref_columns, s.est_columns) == (3, 5, 5)


def test_shifted_residue():
    # reference: 3 columns of 2 residues = 3 homologies
    # estimate:  A A | C C | - G | G -   -> 2 homologies, both true
    ref = [("a", "ACG"), ("b", "ACG")]
    est = [("a", "AC-G"), ("b", "ACG-")]
    s = compare(ref, est)
    assert (s.shared_homologies, s.ref_homologies, s.est_homologies) == (2, 3, 2)
    assert s.sp_score == 2 / 3 and s.spfn == 1 - 2 / 3
    assert s.modeler == 1.0 and s.spfp == 0.0
    assert s.tc == 2 / 3  # the G column is split
    assert s.compression == 4 / 3


def test_extra_residue_in_a_true_column_is_not_correct():
    # the estimate's first column holds the true pair plus c's residue: the pair is shared,
    # the column is not a correct one (it holds something else too)
    ref = [("a", "A-"), ("b", "A-"), ("c", "-T")]
    est = [("a", "A"), ("b", "A"), ("c", "T")]
    s = compare(ref, est)
    assert (s.shared_homologies, s.ref_homologies, s.est_homologies) == (1, 1, 3)
    assert s.tc == 0.0 and s.spfn == 0.0 and s.spfp == 1 - 1 / 3


def test_all_gap_columns_count_only_in_compression():
    ref = [("a", "AC"), ("b", "AC")]
    est = [("a", "-A--C"), ("b", "-A--C")]
    s = compare(ref, est)
    assert (s.spfn, s.spfp, s.tc) == (0.0, 0.0, 1.0)
    assert (s.ref_columns, s.est_columns, s.compression) == (2, 5, 2.5)


def test_lower_case_is_a_residue():
    ref = [("a", "ACGT"), ("b", "AC-T")]
    est_upper = [("a", "ACGT"), ("b", "A-CT")]
    est_lower = [("a", "acgt"), ("b", "a-ct")]
    assert compare(ref, est_upper) == compare(ref, est_lower)
    s = compare(ref, est_lower)
    # true: A,C,T pairs (3); estimate: A, G/C, T pairs (3); shared A, T
    assert (s.shared_homologies, s.ref_homologies, s.est_homologies) == (2, 3, 3)


def test_question_mark_is_a_gap_and_other_characters_are_skipped():
    ref = [("a", "A-C"), ("b", "AGC")]
    est = [("a", "A?C"), ("b", "A G.C*")]  # blank, '.', '*' are skipped
    s = compare(ref, est)
    assert (s.spfn, s.spfp, s.tc, s.est_columns) == (0.0, 0.0, 1.0, 3)


def test_names_match_on_first_word_and_order_is_free():
    ref = [("a   ", "AC-"), ("b extra words", "A-C")]
    est = [("b", "AC"), ("a", "AC")]
    s = compare(ref, est)
    assert (s.shared_homologies, s.ref_homologies, s.est_homologies) == (1, 1, 2)


def test_no_homology_gives_nan_and_null_in_json():
    ref = [("a", "A-"), ("b", "-C")]
    s = compare(ref, ref)
    assert math.isnan(s.sp_score) and math.isnan(s.tc)
    d = s.to_dict()
    assert tuple(d) == JSON_KEYS and d["sp_score"] is None and d["compression"] == 1.0


def test_sp_f1():
    s = compare([("a", "ACG"), ("b", "ACG")], [("a", "AC-G"), ("b", "ACG-")])
    assert s.sp_f1 == pytest.approx(2 * (2 / 3) * 1 / (2 / 3 + 1))


# --------------------------------------------------------------------------- FastSP values

def scoreboard_rows():
    for folder in sorted(DATA.iterdir()):
        if not (folder / "peers" / "scores.tsv").is_file():
            continue
        with open(folder / "peers" / "scores.tsv") as fh:
            for row in csv.DictReader(fh, delimiter="\t"):
                for sfx in (".fa", ".fa.gz"):
                    est = folder / "peers" / f"{row['tool']}{sfx}"
                    if est.exists() and row["status"] == "ok":
                        yield pytest.param(folder / "true.fa", est, row,
                                           id=f"{folder.name}-{row['tool']}")


@pytest.mark.parametrize("true, est, row", list(scoreboard_rows()))
def test_agrees_with_fastsp(true, est, row):
    s = compare(true, est)
    assert abs(s.spfn - float(row["spfn"])) <= 1e-9
    assert abs(s.spfp - float(row["spfp"])) <= 1e-9
    assert abs(s.tc - float(row["tc"])) <= 1e-9
    assert s.est_columns == int(row["est_cols"])


def test_there_are_fastsp_cases():
    assert len(list(scoreboard_rows())) >= 12


# --------------------------------------------------------------------------- inputs

def test_biopython_objects_and_gzip(tmp_path):
    from Bio import Align, AlignIO
    from Bio.Align import Alignment, MultipleSeqAlignment

    true = DATA / "msa-N16-h0.5" / "true.fa"
    est = DATA / "msa-N16-h0.5" / "peers" / "mafft.fa"
    want = compare(true, est)
    msa = AlignIO.read(est, "fasta")
    assert isinstance(msa, MultipleSeqAlignment)
    assert compare(true, msa) == want
    assert compare(true, list(msa)) == want  # SeqRecords
    assert compare(true, [(r.id, str(r.seq)) for r in msa]) == want
    aln = Align.read(est, "fasta")  # new-style Bio.Align.Alignment
    assert isinstance(aln, Alignment)
    assert compare(true, aln) == want
    gz = tmp_path / "est.fa.gz"
    with gzip.open(gz, "wt") as fh:
        fh.write(est.read_text())
    assert compare(true, gz) == want
    plain_named_gz = tmp_path / "est.txt"  # gzip recognised by magic bytes, not by name
    plain_named_gz.write_bytes(gz.read_bytes())
    assert compare(true, plain_named_gz) == want


def test_other_formats(tmp_path):
    from Bio import AlignIO

    true = DATA / "trip-indel-L64-r0" / "true.fa"
    est = DATA / "trip-indel-L64-r0" / "peers" / "mafft.fa"
    for fmt in ("clustal", "stockholm", "phylip-relaxed"):
        AlignIO.write(AlignIO.read(true, "fasta"), tmp_path / f"t.{fmt}", fmt)
        AlignIO.write(AlignIO.read(est, "fasta"), tmp_path / f"e.{fmt}", fmt)
        got = compare(tmp_path / f"t.{fmt}", tmp_path / f"e.{fmt}", format=fmt)
        assert got == compare(true, est), fmt


# --------------------------------------------------------------------------- errors

def write(path, rows):
    path.write_text("".join(f">{n}\n{r}\n" for n, r in rows))
    return path


BAD = [
    pytest.param([("a", "AC"), ("b", "AC")], [("a", "AC")], AlignmentMismatchError, "'b'",
                 id="missing-in-estimate"),
    pytest.param([("a", "AC"), ("b", "AC")], [("a", "AC"), ("b", "AC"), ("zz", "AC")],
                 AlignmentMismatchError, "'zz'", id="extra-in-estimate"),
    pytest.param([("a", "AC"), ("b", "AC")], [("a", "AC"), ("b", "AG")], AlignmentMismatchError,
                 "'b'", id="residue-differs"),
    pytest.param([("a", "AC-"), ("b", "AC-")], [("a", "AC-"), ("b", "ACC")],
                 AlignmentMismatchError, "'b' has 3 residues", id="residue-count-differs"),
    pytest.param([("a", "AC"), ("b", "ACG")], [("a", "AC"), ("b", "ACG")], InputFormatError,
                 "'b'", id="rows-of-unequal-length"),
    pytest.param([("a", "AC"), ("a", "AC")], [("a", "AC"), ("a", "AC")], DuplicateNameError,
                 "'a'", id="duplicate-name"),
    pytest.param([("a", "AC")], [("a", "AC")], TooFewSequencesError, "2 sequences",
                 id="one-sequence"),
    pytest.param([("a", ""), ("b", "")], [("a", ""), ("b", "")], InputFormatError, "no columns",
                 id="no-columns"),
]


@pytest.mark.parametrize("ref, est, exc, where", BAD)
def test_bad_inputs(tmp_path, ref, est, exc, where):
    with pytest.raises(exc, match=where):
        compare(write(tmp_path / "r.fa", ref), write(tmp_path / "e.fa", est))
    assert issubclass(exc, TrimsaError)


def test_residue_difference_names_position():
    with pytest.raises(AlignmentMismatchError, match=r"'b' differs .* residue 3 \('T' instead of 'G'\)"):
        compare([("a", "ACG"), ("b", "ACG")], [("a", "ACG"), ("b", "ACT")])


def test_missing_in_reference_named(tmp_path):
    with pytest.raises(AlignmentMismatchError, match="'b' of the reference is missing"):
        compare([("a", "AC"), ("b", "AC")], [("a", "AC"), ("c", "AC")])


@pytest.mark.parametrize("content, what", [
    ("", "empty"), ("   \n", "empty"), ("hello\n", "not a FASTA"),
])
def test_unreadable_files(tmp_path, content, what):
    p = tmp_path / "x.fa"
    p.write_text(content)
    with pytest.raises(InputFormatError, match=what):
        read_alignment(p)


def test_missing_file_and_bad_format(tmp_path):
    with pytest.raises(InputFormatError, match="no such file"):
        compare(tmp_path / "nope.fa", tmp_path / "nope.fa")
    p = write(tmp_path / "r.fa", [("a", "AC"), ("b", "AC")])
    with pytest.raises(InputFormatError, match="cannot be read as clustal"):
        compare(p, p, format="clustal")


def test_scores_is_a_dataclass_with_json_keys():
    s = compare([("a", "A")] * 1 + [("b", "A")], [("a", "A"), ("b", "A")])
    assert isinstance(s, Scores)
    assert set(JSON_KEYS) <= set(vars(s))
