"""Alphabets, scoring tables, FASTA input and atomic output."""

import gzip

import numpy as np
import pytest
from Bio.Align import substitution_matrices
from Bio.Seq import Seq
from Bio.SeqRecord import SeqRecord

from trimsa import Scoring, TrimsaError, alphabet
from trimsa.scoring import DEFAULTS, resolve_gaps
from trimsa.errors import AlphabetError, InputFormatError, OptionError
from trimsa.io import as_sequence_set, atomic_output, read_sequences


def test_dna_ambiguity_scores():
    sc = Scoring.dna(2, -3, -4)
    enc = lambda s: int(alphabet.DNA.encode(s)[0])  # noqa: E731
    assert sc.table[enc("A"), enc("A")] == 2
    assert sc.table[enc("A"), enc("C")] == -3
    assert sc.table[enc("N"), enc("A")] == 0
    assert sc.table[enc("N"), enc("N")] == 0
    assert sc.table[enc("R"), enc("A")] == 0   # R = A/G could be A
    assert sc.table[enc("R"), enc("C")] == -3  # R excludes C
    assert sc.table[enc("R"), enc("Y")] == -3  # A/G vs C/T: disjoint
    assert sc.table[enc("R"), enc("R")] == 0
    assert (sc.table == sc.table.T).all()


def test_transversions_score_apart_from_transitions():
    """A purine against a pyrimidine scores ``transversion``; transitions, and disjoint
    ambiguity sets that hold one, score ``mismatch``; a mismatch given alone sets both."""
    sc = Scoring.dna(3, -2, gap_open=-8, gap_extend=-2, transversion=-5)
    enc = lambda s: int(alphabet.DNA.encode(s)[0])  # noqa: E731
    want = {("A", "G"): -2, ("C", "T"): -2, ("A", "C"): -5, ("A", "T"): -5, ("G", "C"): -5,
            ("G", "T"): -5, ("R", "Y"): -5, ("R", "C"): -5, ("Y", "A"): -5,
            ("S", "W"): -2, ("K", "M"): -2, ("A", "A"): 3, ("N", "C"): 0, ("R", "A"): 0}
    for (x, y), v in want.items():
        assert sc.table[enc(x), enc(y)] == sc.table[enc(y), enc(x)] == v, (x, y)
    assert repr(sc) == ("Scoring(match=3, mismatch=-2, transversion=-5, gap_open=-8, "
                        "gap_extend=-2)")
    assert Scoring.dna(3, -2, gap=-1) == Scoring.dna(3, -2, gap=-1, transversion=-2)
    assert Scoring.dna(gap=-1) == Scoring.dna(1, -1, gap=-1)
    # the alignment stage's default tells them apart; a --mismatch alone does not
    aligned = Scoring.for_alphabet(alphabet.DNA, "alignment")
    assert aligned.table[enc("A"), enc("C")] == -3 and aligned.table[enc("A"), enc("G")] == -2
    given = Scoring.for_alphabet(alphabet.DNA, "alignment", mismatch=-1)
    assert given.table[enc("A"), enc("C")] == given.table[enc("A"), enc("G")] == -1
    with pytest.raises(OptionError, match="match score must be above the transversion score"):
        Scoring.for_alphabet(alphabet.DNA, "alignment", match=2, transversion=2)
    with pytest.raises(OptionError, match="apply to DNA only"):
        Scoring.for_alphabet(alphabet.PROTEIN, "alignment", transversion=-2)


def test_rna_and_lower_case_encode_like_dna():
    a = alphabet.DNA.encode("ACGU")
    b = alphabet.DNA.encode("acgt")
    assert a.tolist() == b.tolist() == [0, 1, 2, 3]


def test_protein_matrix_matches_biopython():
    sc = Scoring.protein("BLOSUM62", -5)
    m = substitution_matrices.load("BLOSUM62")
    letters = alphabet.PROTEIN.letters
    for x in "ARNDW*X":
        for y in "CQEGX":
            assert sc.table[letters.index(x), letters.index(y)] == int(m[x][y])
    assert sc.gap == -5


def test_scores_must_be_integers():
    with pytest.raises(OptionError, match="integer"):
        Scoring.dna(1.5, -1, -2)
    with pytest.raises(OptionError, match="integer"):
        Scoring.dna(1, -1, "x")
    with pytest.raises(OptionError, match="unknown substitution matrix"):
        Scoring.protein("BLOSUM63")


@pytest.mark.parametrize("stage, kw, want", [
    pytest.param("triplet", {}, (0, -3), id="triplet-default"),
    pytest.param("progressive", {}, (-3, -1), id="progressive-default"),
    pytest.param("progressive", {"gap": -2}, (0, -2), id="gap-is-linear"),
    pytest.param("triplet", {"gap_open": -4}, (-4, -3), id="open-only-keeps-default-extend"),
    pytest.param("progressive", {"gap_extend": -2}, (-3, -2), id="extend-only-keeps-default-open"),
    pytest.param("triplet", {"gap_open": -5, "gap_extend": -1}, (-5, -1), id="both"),
])
def test_gap_options_mean_the_same_everywhere(stage, kw, want):
    assert resolve_gaps("dna", stage, **kw) == want
    sc = Scoring.for_alphabet(alphabet.DNA, stage, **kw)
    assert (sc.gap_open, sc.gap_extend) == want
    assert sc.linear == (want[0] == 0)


def test_defaults_come_from_one_table():
    for name, alpha in (("dna", alphabet.DNA), ("protein", alphabet.PROTEIN)):
        for stage in ("triplet", "progressive"):
            sc = Scoring.for_alphabet(alpha, stage)
            assert (sc.gap_open, sc.gap_extend) == DEFAULTS[name]["gaps"][stage]
    assert Scoring.dna() == Scoring.dna(1, -1, -3)
    assert Scoring.protein() == Scoring.protein("BLOSUM62", -4)


@pytest.mark.parametrize("kw, words", [
    pytest.param({"gap": 1}, "must be <= 0", id="positive-gap"),
    pytest.param({"gap_open": 2}, r"--gap-open \(gap_open\) must be <= 0", id="positive-open"),
    pytest.param({"gap_extend": 0.5}, "must be an integer", id="fractional-extend"),
    pytest.param({"gap": -2, "gap_open": -1}, "either --gap or --gap-open", id="gap-and-open"),
])
def test_gap_options_are_checked(kw, words):
    with pytest.raises(OptionError, match=words):
        Scoring.dna(**kw)


def test_affine_scoring_is_refused_where_gaps_are_linear():
    affine = Scoring.dna(gap_open=-3, gap_extend=-1)
    assert repr(affine) == "Scoring(match=1, mismatch=-1, gap_open=-3, gap_extend=-1)"
    with pytest.raises(OptionError, match="single gap score exists for linear gaps only"):
        affine.gap


def test_alphabet_guess():
    assert alphabet.guess(["ACGTNNACGT"]) is alphabet.DNA
    assert alphabet.guess(["MKVLHEEW"]) is alphabet.PROTEIN
    assert alphabet.guess(["ACGT" * 30 + "E"]) is alphabet.DNA
    # many ambiguity codes, every letter a nucleotide code: DNA
    assert alphabet.guess(["ACGT" * 10 + "RYKMSWBDHV" * 3]) is alphabet.DNA
    # the same share of codes with one amino-acid-only letter, or too few bases: protein
    assert alphabet.guess(["ACGT" * 10 + "RYKMSWBDHV" * 3 + "L"]) is alphabet.PROTEIN
    assert alphabet.guess(["MKRHWYSVD" * 5]) is alphabet.PROTEIN


def test_invalid_character_names_record_and_position():
    with pytest.raises(AlphabetError, match=r"'J' in sequence 'x' at position 3"):
        alphabet.DNA.encode("ACJT", name="x")


def test_read_gzip_equals_plain(data_dir):
    a = read_sequences(data_dir / "six.fa")
    b = read_sequences(data_dir / "six.fa.gz")
    assert a.names == b.names and a.sequences == b.sequences
    assert np.array_equal(a.codes, b.codes)
    assert a.descriptions[0] == "S1 simulated"
    assert a.lengths.tolist() == [len(s) for s in a.sequences]


def test_gzip_detected_by_content(tmp_path):
    p = tmp_path / "x.txt"
    with gzip.open(p, "wt") as fh:
        fh.write(">a\nACGT\n")
    assert read_sequences(p).sequences == ("ACGT",)


def test_bad_gzip(tmp_path):
    p = tmp_path / "x.fa.gz"
    p.write_bytes(b"\x1f\x8b" + b"junk" * 10)
    with pytest.raises(InputFormatError, match="corrupt gzip stream"):
        read_sequences(p)


def test_api_inputs():
    recs = [SeqRecord(Seq("ACGT"), id="r1"), SeqRecord(Seq("AGT"), id="r2")]
    s = as_sequence_set(recs)
    assert s.names == ("r1", "r2")
    s = as_sequence_set([("x", "ACG"), ("y", "AC")])
    assert s.names == ("x", "y") and s.sequences == ("ACG", "AC")
    s = as_sequence_set(["ACG", "TTT"])
    assert s.names == ("seq1", "seq2")
    with pytest.raises(InputFormatError, match="no such file"):
        as_sequence_set("/nonexistent/file.fa")
    # a mapping of names (Bio.SeqIO.to_dict gives SeqRecords), and unnamed Seq objects
    s = as_sequence_set({"human": "ACGT", "mouse": Seq("AGT")})
    assert s.names == ("human", "mouse") and s.sequences == ("ACGT", "AGT")
    s = as_sequence_set({"r1": SeqRecord(Seq("ACGT"), id="r1", description="r1 x")})
    assert s.names == ("r1",) and s.descriptions == ("r1 x",)
    assert as_sequence_set([Seq("ACG"), Seq("AC")]).names == ("seq1", "seq2")


def test_api_headers_keep_the_record_id():
    # a description that does not start with the id (hand-built, GenBank) follows it, as
    # Biopython's FASTA writer does; Biopython's placeholder description is dropped
    recs = [SeqRecord(Seq("ACGT"), id="NM_1.1", description="Homo sapiens mRNA"),
            SeqRecord(Seq("AGT"), id="r2"),
            SeqRecord(Seq("AGT"), id="r3", description="r3 as read")]
    s = as_sequence_set(recs)
    assert s.descriptions == ("NM_1.1 Homo sapiens mRNA", "r2", "r3 as read")


@pytest.mark.parametrize("items, words", [
    ([("a", None), ("b", "ACGA")], "the sequence of 'a' is a NoneType"),
    ([(None, "ACGT"), ("b", "ACGA")], "name None is not a string"),
    ([("a b", "ACGT"), ("c", "ACG")], "must be non-empty and hold no space"),
    ([("a\nb", "ACGT"), ("c", "ACG")], "must be non-empty and hold no space"),
    ([("", "ACGT"), ("c", "ACG")], "must be non-empty"),
    ([b"ACGT", "ACG"], "item 1 is a bytes"),
    ([None, "ACG"], "item 1 is a NoneType"),
    ([7, "ACG"], "item 1 is a int"),
    ([SeqRecord(Seq("ACGT"), id="a b")], "must be non-empty and hold no space"),
])
def test_api_inputs_that_cannot_be_named_or_read_are_errors(items, words):
    with pytest.raises(InputFormatError, match=words):
        as_sequence_set(items)


def test_a_file_object_is_not_a_sequence_set(tmp_path):
    path = tmp_path / "x.fa"
    path.write_text(">a\nACGT\n")
    with open(path) as fh, pytest.raises(InputFormatError, match="not a file object"):
        as_sequence_set(fh)


def test_atomic_output_removes_partial(tmp_path):
    target = tmp_path / "out.txt"
    with pytest.raises(RuntimeError):
        with atomic_output(target) as fh:
            fh.write("partial")
            raise RuntimeError("boom")
    assert list(tmp_path.iterdir()) == []
    with atomic_output(target) as fh:
        fh.write("done")
    assert target.read_text() == "done"


def test_errors_are_value_errors():
    assert issubclass(TrimsaError, ValueError)
