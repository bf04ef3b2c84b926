"""Bad and awkward inputs, options and output paths: one line on stderr, a non-zero exit,
no output left behind; and the awkward-but-valid cases that must work."""

from __future__ import annotations

import gzip
import os
import stat
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trimsa.cli import main
from trimsa.errors import InputFormatError, TrimsaError
from trimsa.io import atomic_output, read_records

OK = ">a\nACGTACGTAA\n>b\nACGAACGTAA\n>c\nACGGACGTTA\n>d\nACGGACTTAA\n"


@pytest.fixture
def ws(tmp_path):
    """Inputs in ``in/``, an empty ``out/`` that must stay empty after a failure."""
    d = tmp_path / "in"
    d.mkdir()
    (tmp_path / "out").mkdir()
    files = {
        "ok.fa": OK.encode(),
        "three.fa": b">a\nACGT\n>b\nACGA\n>c\nACGG\n",
        "empty.fa": b"",
        "blank.fa": b"\n\n  \n",
        "notfasta.fa": b"hello world\nACGT\n",
        "dup.fa": b">a\nACGT\n>a\nACGA\n>c\nACGG\n",
        "emptyseq.fa": b">a\nACGT\n>b\n>c\nACGG\n",
        "noname.fa": b">\nACGT\n>b\nACGA\n>c\nACGG\n",
        "nonascii.fa": ">a\n\u00c4CGT\n>b\nACGA\n>c\nACGG\n".encode(),
        "badchar.fa": b">a\nACGT\n>b\nAC!A\n>c\nACGG\n",
        "digits.fa": b">a\nAC1T\n>b\nACGA\n>c\nACGG\n",
        "gapped.fa": b">a\nACG--TACGT\n>b\nACGTTCGT\n>c\nAC-GTCGA\n",
        "one.fa": b">a\nACGT\n",
        "two.fa": b">a\nACGT\n>b\nACGA\n",
        "four.fa": OK.encode(),
        "badgz.fa.gz": b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03garbage-garbage-garbage",
        "truncgz.fa.gz": gzip.compress(OK.encode() * 20)[:60],
        "binary.fa": bytes(range(256)),
        "mixed.fa": b">a\nACGT\n>b\nMKLVWQ\n>c\nACGG\n",
        "dna_and_protein.fa": (b">p1\n" + b"MKVLHEEWLLAAKQ" * 3 + b"\n>d1\n" + b"ACGTTGCA" * 5
                               + b"\n>p2\n" + b"MKVLHEEWILAAKQ" * 3 + b"\n"),
        "png.fa": b"\x89PNG\r\n\x1a\n\x00\x00",
        "badbyte.fa": b">a\nACGT\xffA\n>b\nACGA\n>c\nACGG\n",
        "tree.nwk": b"((a,b),(c,x));\n",
        "badtree.nwk": b"((a,b),(c,d);\n",
        "ref.fa": b">a\nACGT\n>b\nAC-T\n",
        "est_missing.fa": b">a\nACGT\n",
        "est_other.fa": b">a\nACGT\n>b\nAGGT\n",
        "ragged.fa": b">a\nACGT\n>b\nAC-\n",
        "stray.fa": b">a\nACGT\n>b\nAC#-\n",
        "triplets.txt": b"a b zz\n",
        "triplets_bad.txt": b"a b\n",
        "triplets_bin.txt": b"\x1f\x8b\x08\x00binary\xff\xfe",
        "phylipnames.fa": b">a:b\nACGT\n>a;b\nACGA\n>c\nACGG\n",
        "longnames.fa": (b">averyveryveryverylongname_number_1\nACGT\n"
                         b">averyveryveryverylongname_number_2\nACGA\n>c\nACGG\n"),
    }
    for name, data in files.items():
        (d / name).write_bytes(data)
    os.chdir(tmp_path)
    return tmp_path


def _i(name):
    return f"in/{name}"


CASES = [
    # input files
    pytest.param(["run", _i("missing.fa")], "no such file", id="run-missing-input"),
    pytest.param(["run", "in"], "is a directory", id="run-input-is-folder"),
    pytest.param(["run", _i("empty.fa")], "empty", id="run-empty-file"),
    pytest.param(["run", _i("blank.fa")], "empty", id="run-blank-file"),
    pytest.param(["run", _i("notfasta.fa")], "not a FASTA file", id="run-not-fasta"),
    pytest.param(["run", _i("dup.fa")], "duplicate sequence name", id="run-duplicate-names"),
    pytest.param(["run", _i("emptyseq.fa")], "is empty", id="run-empty-sequence"),
    pytest.param(["run", _i("noname.fa")], "error: in/noname.fa: record 1 has no name",
                 id="run-record-without-name"),
    pytest.param(["run", _i("nonascii.fa")],
                 "in/nonascii.fa: invalid character '\u00c4' in sequence 'a' at position 1",
                 id="run-non-ascii-residue"),
    pytest.param(["run", _i("badchar.fa")], "", id="run-bad-character"),
    pytest.param(["run", _i("digits.fa")], "", id="run-digit-in-sequence"),
    pytest.param(["run", _i("gapped.fa")],
                 "in/gapped.fa: invalid character '-' in sequence 'a' at position 4 for the dna "
                 "alphabet (trimsa expects unaligned sequences: remove gaps first)",
                 id="run-aligned-dna"),
    pytest.param(["run", _i("badgz.fa.gz")], "corrupt gzip stream", id="run-corrupt-gzip"),
    pytest.param(["run", _i("truncgz.fa.gz")], "corrupt gzip stream", id="run-truncated-gzip"),
    pytest.param(["run", _i("binary.fa")], "", id="run-binary-input"),
    pytest.param(["run", _i("png.fa")], "(first line '\\x89PNG' does not start with '>')",
                 id="run-png-bytes-shown-as-bytes"),
    pytest.param(["run", _i("badbyte.fa")], "invalid character '\\xff' in sequence 'a' at "
                 "position 5", id="run-non-utf8-byte"),
    pytest.param(["run", _i("dna_and_protein.fa")], "1 of 3 records look like DNA/RNA (first "
                 "'d1') and the others like protein; give --alphabet", id="run-dna-and-protein"),
    pytest.param(["align3", _i("four.fa")], "exactly 3", id="align3-four-sequences"),
    pytest.param(["align3", _i("two.fa")], "exactly 3", id="align3-two-sequences"),
    pytest.param(["triplets", _i("two.fa")], "at least 3", id="triplets-two-sequences"),
    pytest.param(["tree", _i("two.fa"), "--tree-distances", "triplet"],
                 "found 2; pair-score or k-mer distances (--tree-distances pair-score",
                 id="tree-two-sequences"),
    pytest.param(["align3", _i("mixed.fa"), "--alphabet", "dna"], "", id="align3-protein-as-dna"),
    # options
    pytest.param(["run", _i("ok.fa"), "--gap", "5"], "must be <= 0", id="run-positive-gap"),
    pytest.param(["align3", _i("three.fa"), "--gap", "5"], "must be <= 0", id="align3-positive-gap"),
    pytest.param(["run", _i("ok.fa"), "--gap-open", "2"], "must be <= 0", id="run-positive-open"),
    pytest.param(["triplets", _i("ok.fa"), "--gap-extend", "1"], "must be <= 0",
                 id="triplets-positive-extend"),
    pytest.param(["run", _i("ok.fa"), "--gap", "-2", "--gap-open", "-3"], "either",
                 id="run-gap-and-open"),
    pytest.param(["run", _i("ok.fa"), "--match", "-1", "--mismatch", "2"], "above the mismatch",
                 id="run-match-below-mismatch"),
    pytest.param(["align3", _i("three.fa"), "--match", "1", "--mismatch", "1"],
                 "above the mismatch", id="align3-match-equals-mismatch"),
    pytest.param(["tree", _i("ok.fa"), "--match", "0", "--mismatch", "3"], "above the mismatch",
                 id="tree-match-below-mismatch"),
    pytest.param(["tree", _i("ok.fa"), "--gpus", "0"], "--gpus applies to --tree-distances kmer",
                 id="tree-gpus-with-triplets"),
    pytest.param(["tree", _i("ok.fa"), "--tree-distances", "kmer", "--gpus", "0", "--device",
                  "cpu"], "not 'cpu'", id="tree-gpus-on-the-cpu"),
    pytest.param(["run", _i("ok.fa"), "--gap", "0"], "cost nothing", id="run-free-gaps"),
    pytest.param(["align3", _i("three.fa"), "--gap-open", "0", "--gap-extend", "0"],
                 "cost nothing", id="align3-free-affine-gaps"),
    pytest.param(["run", _i("ok.fa"), "--matrix", "BLOSUM62"], "protein input only",
                 id="run-matrix-on-dna"),
    pytest.param(["run", _i("ok.fa"), "--threads", "-1"], ">= 0", id="run-negative-threads"),
    pytest.param(["run", _i("ok.fa"), "--format", "xml"], "unknown --format", id="run-bad-format"),
    pytest.param(["run", _i("ok.fa"), "--guide-tree", _i("tree.nwk")], "",
                 id="run-tree-with-unknown-leaf"),
    pytest.param(["run", _i("ok.fa"), "--guide-tree", _i("badtree.nwk")], "",
                 id="run-malformed-tree"),
    pytest.param(["run", _i("ok.fa"), "--guide-tree", _i("missing.nwk")], "",
                 id="run-missing-tree"),
    pytest.param(["run", _i("longnames.fa"), "--format", "clustal"], "up to 30 characters",
                 id="run-clustal-name-too-long"),
    pytest.param(["run", _i("phylipnames.fa"), "--format", "phylip"], "reserves the characters",
                 id="run-phylip-reserved-characters"),
    pytest.param(["triplets", _i("ok.fa"), "--triplets", _i("triplets.txt")], "",
                 id="triplets-unknown-name"),
    pytest.param(["triplets", _i("ok.fa"), "--triplets", _i("triplets_bad.txt")], "expected 3",
                 id="triplets-short-line"),
    pytest.param(["triplets", _i("ok.fa"), "--triplets", _i("none.txt")], "cannot be read",
                 id="triplets-missing-list"),
    pytest.param(["triplets", _i("ok.fa"), "--triplets", _i("triplets_bin.txt")],
                 "in/triplets_bin.txt: not a text list of triplets", id="triplets-binary-list"),
    pytest.param(["tree", _i("ok.fa"), "--tree-distances", "triplet", "--scheduler",
                  "tcp://localhost"], "tcp://HOST:PORT", id="tree-scheduler-without-port"),
    pytest.param(["tree", _i("ok.fa"), "--scheduler", "tcp://localhost:8786"],
                 "--scheduler applies to kmer and triplet distances; pair-score",
                 id="tree-scheduler-with-pair-scores"),
    # eval
    pytest.param(["eval", "-r", _i("ref.fa"), "-e", _i("est_missing.fa")], "missing",
                 id="eval-missing-sequence"),
    pytest.param(["eval", "-r", _i("ref.fa"), "-e", _i("ragged.fa")], "",
                 id="eval-ragged-rows"),
    pytest.param(["eval", "-r", _i("ref.fa"), "-e", _i("stray.fa")],
                 "neither letters nor gaps, such as '#' in sequence 'b'",
                 id="eval-stray-character"),
    pytest.param(["eval", "-r", _i("ref.fa"), "-e", _i("ok.fa"), "--estimate-format",
                  "clustal"], "cannot be read as clustal", id="eval-wrong-format"),
    pytest.param(["eval", "-r", "-", "-e", "-"], "standard input", id="eval-both-stdin"),
    pytest.param(["eval", "-r", _i("ref.fa"), "-e", _i("ref.fa"), "--label", ""],
                 "a label must be non-empty", id="eval-empty-label"),
    pytest.param(["eval", "-r", _i("ref.fa"), "-e", _i("ref.fa"), "--label", "a\tb"],
                 "no tab", id="eval-label-with-tab"),
    # output locations (checked before the work)
    pytest.param(["run", _i("ok.fa"), "-o", ""], "empty output path", id="run-empty-output-path"),
    pytest.param(["run", _i("ok.fa"), "-o", "out/missing/x.aln"], "does not exist",
                 id="run-output-folder-missing"),
    pytest.param(["run", _i("ok.fa"), "-o", "out"], "is a directory", id="run-output-is-folder"),
    pytest.param(["run", _i("ok.fa"), "-o", "in/ok.fa/x.aln"], "not a directory",
                 id="run-output-under-a-file"),
    pytest.param(["run", _i("ok.fa"), "--tree-out", "out/nowhere/t.nwk"], "does not exist",
                 id="run-tree-out-folder-missing"),
    pytest.param(["align3", _i("three.fa"), "-o", "out"], "is a directory",
                 id="align3-output-is-folder"),
    pytest.param(["triplets", _i("ok.fa"), "-o", "out/a/b.tsv"], "does not exist",
                 id="triplets-output-folder-missing"),
    pytest.param(["tree", _i("ok.fa"), "-o", ""], "empty output path", id="tree-empty-output"),
]


@pytest.mark.parametrize("argv,needle", CASES)
def test_bad_input_gives_one_line_and_no_output(ws, argv, needle, capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", open(os.devnull))
    code = main(argv)
    err = capsys.readouterr().err.strip().splitlines()
    assert code != 0
    assert len(err) == 1, err
    assert err[0].startswith(f"trimsa {argv[0]}: error: ")
    assert needle in err[0]
    assert sorted(os.listdir(ws / "out")) == []
    assert "Traceback" not in err[0]


def test_indented_headers_read_like_the_first_one(ws, capsys):
    (ws / "in" / "indent.fa").write_text(" >a\nACGTACGTAA\n  >b\nACGAACGTAA\n\t>c\nACGGACGTTA\n")
    assert [r[0] for r in read_records(ws / "in" / "indent.fa")] == ["a", "b", "c"]
    assert main(["run", _i("indent.fa"), "-o", "out/x.fa"]) == 0


def test_a_protein_file_given_as_protein_may_hold_nucleotide_like_records(ws, capsys):
    assert main(["run", _i("dna_and_protein.fa"), "--alphabet", "protein", "-o",
                 "out/x.fa"]) == 0


def test_memory_for_huge_triplets_is_checked_before_allocating(ws, capsys):
    big = "".join("ACGT"[(i * 7 + i // 3) % 4] for i in range(300_000))
    (ws / "in" / "huge.fa").write_text(f">a\n{big}\n>b\n{big}\n>c\n{big}\n")
    from trimsa.triplet import _checks

    assert main(["align3", _i("huge.fa"), "-o", "out/x.fa"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    avail = _checks.available_memory()
    if avail is None:
        pytest.skip("no /proc/meminfo here")
    assert len(err) == 1 and "in/huge.fa: aligning" in err[0] and "available" in err[0]
    assert os.listdir(ws / "out") == []


# -- awkward but valid -----------------------------------------------------------------

def test_stdin_bom_blank_lines_and_utf8_names_round_trip(ws, capsys, monkeypatch):
    import io

    data = "\ufeff\n\n>α1 first\nACGTACGT\n>b\xe9\nACGAACGT\n>c\nACGGACGT\n".encode()
    data = data.replace("bé".encode(), b"b\xff\xfe")   # not UTF-8 at all: kept byte for byte
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    assert main(["run", "-", "-o", "out/x.fa"]) == 0
    out = (ws / "out" / "x.fa").read_bytes()
    headers = [line for line in out.split(b"\n") if line.startswith(b">")]
    assert headers == [">α1 first".encode(), b">b\xff\xfe", b">c"]


@pytest.mark.parametrize("ending", [b"\r\n", b"\r"], ids=["crlf", "cr"])
def test_windows_and_old_mac_line_endings(ws, ending, capsys):
    (ws / "in" / "le.fa").write_bytes(OK.encode().replace(b"\n", ending))
    assert main(["run", _i("le.fa"), "-o", "out/x.fa"]) == 0
    assert (ws / "out" / "x.fa").read_text().count(">") == 4


def test_output_respects_umask_and_an_existing_files_mode(ws):
    old = os.umask(0o027)
    try:
        assert main(["run", _i("ok.fa"), "-o", "out/new.fa"]) == 0
        assert stat.S_IMODE(os.stat("out/new.fa").st_mode) == 0o640
        os.chmod("out/new.fa", 0o604)
        assert main(["run", _i("ok.fa"), "-o", "out/new.fa"]) == 0
        assert stat.S_IMODE(os.stat("out/new.fa").st_mode) == 0o604
    finally:
        os.umask(old)


def test_a_symlinked_output_keeps_the_link(ws):
    (ws / "out" / "real.fa").write_text("old\n")
    os.symlink("real.fa", ws / "out" / "link.fa")
    assert main(["run", _i("ok.fa"), "-o", "out/link.fa"]) == 0
    assert os.path.islink(ws / "out" / "link.fa")
    assert (ws / "out" / "real.fa").read_text().startswith(">a")


def test_fifo_output_is_streamed_not_replaced(ws):
    import threading

    fifo = ws / "out" / "pipe"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(open(fifo, "rb").read()))
    reader.start()
    assert main(["run", _i("ok.fa"), "-o", str(fifo)]) == 0
    reader.join(10)
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert got and got[0].startswith(b">a")


def test_character_device_output_is_not_replaced(ws):
    assert main(["run", _i("ok.fa"), "-o", os.devnull]) == 0
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)


def test_full_disk_gives_one_line_and_leaves_nothing(ws, monkeypatch):
    import errno

    with pytest.raises(TrimsaError, match="No space left on device"):
        with atomic_output(ws / "out" / "x.fa") as fh:
            fh.write("abc")
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    assert os.listdir(ws / "out") == []


def test_threads_beyond_the_cores_are_clamped_with_a_note(ws, capsys):
    assert main(["run", _i("ok.fa"), "--threads", "100000", "-o", "out/x.fa"]) == 0
    err = capsys.readouterr().err
    assert "is more than the" in err


def test_tree_of_three_sequences_round_trips_into_run(ws):
    assert main(["tree", _i("three.fa"), "-o", "out/t.nwk"]) == 0
    assert main(["run", _i("three.fa"), "--guide-tree", "out/t.nwk", "-o", "out/x.fa"]) == 0


@pytest.mark.parametrize("fmt,bio", [("fasta", "fasta"), ("clustal", "clustal"),
                                     ("phylip", "phylip-relaxed"), ("stockholm", "stockholm"),
                                     ("nexus", "nexus")])
def test_every_output_format_reads_back_through_biopython(ws, fmt, bio):
    from Bio import AlignIO

    names = ["seq_one", "a-name-of-exactly-30-chars-xyz", "x3", "y.4|'q"]
    (ws / "in" / "n.fa").write_text("".join(f">{n}\n{s}\n" for n, s in
                                            zip(names, ["ACGTAC", "ACGAAC", "AGTAC", "ACGTTAC"])))
    assert main(["run", _i("n.fa"), "--format", fmt, "-o", f"out/x.{fmt}"]) == 0
    aln = AlignIO.read(str(ws / "out" / f"x.{fmt}"), bio)
    assert [r.id for r in aln] == names
    assert [str(r.seq).replace("-", "") for r in aln] == ["ACGTAC", "ACGAAC", "AGTAC", "ACGTTAC"]


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=200))
def test_fasta_reader_fuzz_raises_only_input_errors(data):
    import tempfile

    with tempfile.NamedTemporaryFile(suffix=".fa") as fh:
        fh.write(data)
        fh.flush()
        try:
            records = read_records(fh.name)
        except InputFormatError:
            return
        assert records and all(r[0] for r in records)



@pytest.mark.parametrize("sig,code,word", [("SIGINT", 130, "interrupted"),
                                           ("SIGTERM", 143, "terminated")])
def test_a_signal_stops_a_long_kernel_at_once_and_leaves_no_output(ws, sig, code, word):
    import random
    import signal
    import subprocess
    import time

    rng = random.Random(5)
    with open(ws / "in" / "mid.fa", "w") as fh:
        for i in range(120):   # C(120, 3) triplets of 400 bp: minutes of kernels
            fh.write(f">s{i}\n" + "".join(rng.choice("ACGT") for _ in range(400)) + "\n")
    # a job started in the background by a shell inherits SIGINT ignored, and Python then
    # leaves it ignored; the child gets the default, as in a terminal's foreground
    proc = subprocess.Popen([sys.executable, "-m", "trimsa", "triplets", "in/mid.fa",
                             "--device", "cpu", "-o", "out/x.tsv"], stderr=subprocess.PIPE,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        deadline = time.time() + 120
        while not os.listdir(ws / "out"):   # the temporary output appears when the work starts
            assert proc.poll() is None and time.time() < deadline
            time.sleep(0.05)
        time.sleep(0.5)
        t0 = time.time()
        proc.send_signal(getattr(signal, sig))
        err = proc.communicate(timeout=30)[1].decode().strip().splitlines()
        took = time.time() - t0
    finally:
        proc.kill()
    assert proc.returncode == code
    assert err == [f"trimsa triplets: {word}"]
    assert took < 2.0
    assert os.listdir(ws / "out") == []
