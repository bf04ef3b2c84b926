"""Alphabets, scoring tables, FASTA input and atomic output."""

import gzip

import numpy as np
import pytest
from Bio.Align import substitution_matrices
from Bio.Seq import Seq
from Bio.SeqRecord import SeqRecord

from trimsa import Scoring, TrimsaError, alphabet
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


def test_alphabet_guess():
    assert alphabet.guess(["ACGTNNACGT"]) is alphabet.DNA
    assert alphabet.guess(["MKVLHEEW"]) is alphabet.PROTEIN
    assert alphabet.guess(["ACGT" * 30 + "E"]) is alphabet.DNA


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
    with pytest.raises(InputFormatError, match="cannot be read"):
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
