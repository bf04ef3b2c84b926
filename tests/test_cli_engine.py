"""``trimsa triplets`` and ``trimsa align3``, in-process and through ``python -m trimsa``."""

import itertools

import numpy as np
import pytest

from trimsa import Scoring
from trimsa.cli import main
from trimsa.io import read_records

from . import reference as ref
from .affine_reference import natural_sp


def _ref(seqs, scoring, mode):
    codes = [list(scoring.alphabet.encode(s)) for s in seqs]
    return ref.score(*codes, scoring.table.tolist(), scoring.gap, mode)


def _read_tsv(path):
    lines = path.read_text().splitlines()
    return lines[0].split("\t"), [line.split("\t") for line in lines[1:]]


@pytest.mark.parametrize("mode", ["global", "semiglobal", "local"])
def test_triplets_all_against_reference(data_dir, tmp_path, mode):
    out = tmp_path / "s.tsv"
    args = ["triplets", str(data_dir / "six.fa"), "-o", str(out), "--mode", mode,
            "--match", "2", "--mismatch", "-1", "--gap", "-2", "--device", "cpu"]
    assert main(args) == 0
    header, rows = _read_tsv(out)
    assert header == ["seq1", "seq2", "seq3", "score"]
    recs = read_records(data_dir / "six.fa")
    names = [r[0] for r in recs]
    seqs = {r[0]: r[2] for r in recs}
    assert [r[:3] for r in rows] == [[names[i], names[j], names[k]]
                                     for i, j, k in itertools.combinations(range(6), 3)]
    sc = Scoring.dna(2, -1, -2)
    # the reference is slow: check a spread of rows against it, all rows against the API
    for row in rows[::4]:
        assert int(row[3]) == _ref([seqs[n] for n in row[:3]], sc, mode)


def test_triplets_file_by_names_and_indices(data_dir, tmp_path):
    tri = tmp_path / "t.txt"
    tri.write_text("# chosen triplets\nS6\tS1\tS3\n0 1 2\n")
    out = tmp_path / "s.tsv"
    assert main(["triplets", str(data_dir / "six.fa"), "--triplets", str(tri), "-o", str(out)]) == 0
    _, rows = _read_tsv(out)
    assert [r[:3] for r in rows] == [["S6", "S1", "S3"], ["S1", "S2", "S3"]]
    recs = {r[0]: r[2] for r in read_records(data_dir / "six.fa")}
    sc = Scoring.dna()
    assert int(rows[0][3]) == _ref([recs["S6"], recs["S1"], recs["S3"]], sc, "global")


def test_triplets_gzip_and_stdout(data_dir, capsys):
    assert main(["triplets", str(data_dir / "six.fa.gz"), "--device", "cpu"]) == 0
    plain = capsys.readouterr().out
    assert main(["triplets", str(data_dir / "six.fa")]) == 0
    assert capsys.readouterr().out == plain
    assert len(plain.splitlines()) == 1 + 20


@pytest.mark.parametrize("mode", ["global", "semiglobal", "local"])
def test_align3_rows_and_score(data_dir, tmp_path, capsys, mode):
    out = tmp_path / "a.fa"
    assert main(["align3", str(data_dir / "trip3.fa"), "-o", str(out), "--mode", mode]) == 0
    err = capsys.readouterr().err
    recs = read_records(data_dir / "trip3.fa")
    got = read_records(out)
    assert [g[0] for g in got] == [r[0] for r in recs]
    assert [g[2].replace("-", "") for g in got] == [r[2] for r in recs]
    assert len({len(g[2]) for g in got}) == 1
    score = int(err.strip().split()[-1])
    # align3's defaults: the alignment stage's (match 3, mismatch -2, transversion -3,
    # open -10, extend -2)
    sc = Scoring.dna(3, -2, gap_open=-10, gap_extend=-2, transversion=-3)
    if mode == "global":
        rows = [[-1 if ch == "-" else int(sc.alphabet.encode(ch)[0]) for ch in g[2]]
                for g in got]
        assert natural_sp(rows, sc.table.tolist(), -10, -2) == score
    import trimsa

    assert score == trimsa.score_triplets([r[2] for r in recs], mode=mode, scoring=sc)[0]


def test_align3_global_reaches_reference_optimum(tmp_path, capsys):
    rng = np.random.default_rng(11)
    seqs = ["".join(rng.choice(list("ACGT"), rng.integers(3, 9))) for _ in range(3)]
    fa = tmp_path / "in.fa"
    fa.write_text("".join(f">s{i}\n{s}\n" for i, s in enumerate(seqs)))
    assert main(["align3", str(fa), "--match", "3", "--mismatch", "-2", "--gap", "-3"]) == 0
    cap = capsys.readouterr()
    rows = [line for line in cap.out.splitlines() if not line.startswith(">")]
    sc = Scoring.dna(3, -2, -3)
    enc = lambda ch: int(sc.alphabet.encode(ch)[0])  # noqa: E731
    assert ref.alignment_score(rows, enc, sc.table.tolist(), sc.gap) == _ref(seqs, sc, "global")


@pytest.mark.parametrize("mode", ["global", "semiglobal", "local"])
def test_align3_and_triplets_with_affine_gaps(tmp_path, capsys, mode):
    from .affine_reference import slow_dp

    rng = np.random.default_rng(12)
    seqs = ["".join(rng.choice(list("ACGT"), rng.integers(4, 12))) for _ in range(3)]
    fa = tmp_path / "in.fa"
    fa.write_text("".join(f">s{i}\n{s}\n" for i, s in enumerate(seqs)))
    # the same scores for both commands (their default match/mismatch differ)
    gaps = ["--match", "1", "--mismatch", "-1", "--gap-open", "-4", "--gap-extend", "-1",
            "--mode", mode]
    assert main(["align3", str(fa), *gaps]) == 0
    cap = capsys.readouterr()
    rows = [line for line in cap.out.splitlines() if not line.startswith(">")]
    score = int(cap.err.strip().split()[-1])
    codes = [["ACGT".index(ch) for ch in s] for s in seqs]
    sc = Scoring.dna(gap_open=-4, gap_extend=-1)
    assert score == slow_dp(*codes, sc.table, -4, -1, mode)
    if mode == "global":
        assert sc.sum_of_pairs([[-1 if ch == "-" else "ACGT".index(ch) for ch in r]
                                for r in rows]) == score
    out = tmp_path / "t.tsv"
    assert main(["triplets", str(fa), "-o", str(out), *gaps]) == 0
    assert out.read_text().splitlines()[-1].split("\t")[-1] == str(score)


BAD_INPUTS = [
    pytest.param("hello world\n", "not a FASTA file", id="not-fasta"),
    pytest.param("", "empty", id="empty-file"),
    pytest.param(">a\nACGT\n>b\n\n>c\nACG\n", "'b' (record 2) is empty", id="empty-sequence"),
    pytest.param(">a\nACGT\n>a\nACGT\n>c\nACG\n", "duplicate sequence name 'a'", id="duplicate"),
    pytest.param(">a\nACGT\n>b\nACGTACGTACGTACGTAC!T\n>c\nACG\n", "'!' in sequence 'b' at position 19",
                 id="illegal-char"),
    pytest.param(">a\nACGT\n>b\nAC-GT\n>c\nACG\n", "'-' in sequence 'b' at position 3", id="gap-char"),
    pytest.param(">a\nACGT\n>b\nACGT\n", "at least 3 sequences", id="too-few"),
]


@pytest.mark.parametrize("text,message", BAD_INPUTS)
def test_triplets_bad_input(tmp_path, capsys, text, message):
    fa = tmp_path / "in.fa"
    fa.write_text(text)
    out = tmp_path / "out.tsv"
    assert main(["triplets", str(fa), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err
    assert str(fa) in err
    assert not out.exists()
    assert list(tmp_path.iterdir()) == [fa]


@pytest.mark.parametrize("args,message", [
    (["--threads", "-1"], "--threads must be >= 0"),
    (["--mode", "glob"], "invalid choice"),
    (["--gap", "1.5"], "invalid int value"),
    (["--device", "tpu"], "invalid choice"),
    (["--matrix", "BLOSUM62"], "applies to protein"),
    (["--gap-open", "1"], "must be <= 0"),
    (["--gap", "2"], "must be <= 0"),
    (["--precision", "int16"], "unrecognized arguments"),
])
def test_triplets_bad_options(data_dir, tmp_path, capsys, args, message):
    out = tmp_path / "out.tsv"
    argparse_error = "invalid" in message or "unrecognized" in message
    with pytest.raises(SystemExit) if argparse_error else _nullctx() as exc:
        code = main(["triplets", str(data_dir / "six.fa"), "-o", str(out), *args])
    code = exc.value.code if exc is not None and hasattr(exc, "value") else code
    assert code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err
    assert not out.exists()


class _nullctx:
    def __enter__(self):
        return None

    def __exit__(self, *a):
        return False


def test_missing_file(tmp_path, capsys):
    assert main(["align3", str(tmp_path / "nope.fa")]) == 2
    err = capsys.readouterr().err
    assert "no such file" in err and err.count("\n") == 1


def test_align3_needs_exactly_three(data_dir, tmp_path, capsys):
    out = tmp_path / "a.fa"
    assert main(["align3", str(data_dir / "six.fa"), "-o", str(out)]) == 2
    assert "exactly 3 sequences, found 6" in capsys.readouterr().err
    assert not out.exists()


def test_align3_says_when_the_cpu_will_take_long(data_dir, tmp_path, capsys, monkeypatch):
    from trimsa.commands import align3

    out = tmp_path / "a.fa"
    args = ["align3", str(data_dir / "trip3.fa"), "-o", str(out), "--device", "cpu",
            "--threads", "1"]
    assert main(args) == 0
    assert "cells on 1 CPU thread" not in capsys.readouterr().err
    # the estimate of this small cube, over a limit set below it
    monkeypatch.setattr(align3, "LONG_SECONDS", 0.0)
    assert main(args) == 0
    err = capsys.readouterr().err
    # global mode with affine gaps: the full cube's time is an upper bound (pruned cubes)
    assert "cells on 1 CPU thread, up to roughly" in err and "--device gpu" in err
    assert main(args + ["--mode", "local"]) == 0
    assert "cells on 1 CPU thread, roughly" in capsys.readouterr().err
    assert main(args + ["-q"]) == 0
    assert capsys.readouterr().err == ""
    # 5,000-residue sequences: the scale a user should hear about before waiting
    assert align3.cpu_estimate(5001 ** 3, False, "global", 2) > 30 * 60
    assert align3.cpu_estimate(5001 ** 3, False, "global", 16) > align3.LONG_SECONDS


def test_triplet_file_unknown_name(data_dir, tmp_path, capsys):
    tri = tmp_path / "t.txt"
    tri.write_text("S1 S2 S99\n")
    assert main(["triplets", str(data_dir / "six.fa"), "--triplets", str(tri)]) == 2
    err = capsys.readouterr().err
    assert "line 1" in err and "'S99'" in err


def test_align3_on_the_gpu_needs_affine_gaps(data_dir, tmp_path, capsys):
    out = tmp_path / "a.fa"
    assert main(["align3", str(data_dir / "trip3.fa"), "-o", str(out), "--device", "gpu",
                 "--gap", "-3"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "on the GPU with affine gaps only" in err
    assert not out.exists()
    assert main(["align3", str(data_dir / "trip3.fa"), "-o", str(out), "--device", "auto",
                 "--gap", "-3"]) == 0


def test_align3_gpu_without_gpu_is_clear(data_dir, tmp_path, capsys):
    from trimsa.triplet import _gpu

    if _gpu.available():
        pytest.skip("a GPU is present")
    out = tmp_path / "a.fa"
    assert main(["align3", str(data_dir / "trip3.fa"), "-o", str(out), "--device", "gpu",
                 "--gap-open", "-3", "--gap-extend", "-1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "GPU" in err
    assert not out.exists()


@pytest.mark.gpu
@pytest.mark.parametrize("mode", ["global", "semiglobal", "local"])
def test_gpu_align3_equals_cpu(mode, tmp_path, capsys, monkeypatch):
    """Three sequences beyond the full cube (the divide and conquer) and within it: the
    GPU's alignment and score are the CPU's, and auto takes the GPU for the large one
    only."""
    from trimsa.triplet import _gpu_affine, _gpu_pruned

    calls = []
    # the GPU's alignments: full cubes (divide and conquer), or bound-pruned bands (global)
    for module, name in ((_gpu_affine, "align_global"), (_gpu_pruned, "align_triplets")):
        real = getattr(module, name)
        monkeypatch.setattr(module, name,
                            lambda *a, _real=real, **k: calls.append(1) or _real(*a, **k))
    rng = np.random.default_rng(["global", "semiglobal", "local"].index(mode))
    for lengths in ((300, 280, 320), (40, 55, 61)):
        f = tmp_path / f"in{lengths[0]}.fa"
        f.write_text("".join(f">s{q}\n{''.join(rng.choice(list('ACGT'), n))}\n"
                             for q, n in enumerate(lengths)))
        got = {}
        for device in ("cpu", "gpu", "auto"):
            out = tmp_path / f"{device}.fa"
            calls.clear()
            assert main(["align3", str(f), "-o", str(out), "--device", device, "--mode", mode,
                         "--gap-open", "-3", "--gap-extend", "-1"]) == 0
            got[device] = (out.read_text(), capsys.readouterr().err)
            if device == "auto":
                assert bool(calls) == (lengths[0] == 300)
        assert got["gpu"] == got["cpu"] == got["auto"]


def test_gpu_request_without_gpu_is_clear(data_dir, capsys):
    from trimsa.triplet import _gpu

    if _gpu.available():
        pytest.skip("a GPU is present")
    assert main(["triplets", str(data_dir / "six.fa"), "--device", "gpu"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "GPU" in err


def test_python_dash_m(run_module, data_dir, tmp_path):
    out = tmp_path / "a.fa"
    res = run_module("align3", data_dir / "trip3.fa", "-o", out)
    assert res.returncode == 0, res.stderr
    assert "global score" in res.stderr
    assert len(read_records(out)) == 3
    bad = tmp_path / "bad.fa"
    bad.write_text("not fasta\n")
    res = run_module("triplets", bad, "-o", tmp_path / "x.tsv")
    assert res.returncode == 2
    assert res.stderr.count("\n") == 1 and "not a FASTA file" in res.stderr
    assert not (tmp_path / "x.tsv").exists()
    res = run_module("triplets", bad, "--threads", "x")
    assert res.returncode == 2 and res.stderr.count("\n") == 1


def test_transversion_option_reaches_the_scores(data_dir, tmp_path, capsys):
    """``--transversion`` sets the score of a purine against a pyrimidine in align3 and
    triplets; a protein input with it is an error line."""
    import trimsa

    recs = read_records(data_dir / "trip3.fa")
    for tv in (-2, -6):
        assert main(["align3", str(data_dir / "trip3.fa"), "-o", str(tmp_path / "a.fa"),
                     "--transversion", str(tv)]) == 0
        score = int(capsys.readouterr().err.strip().split()[-1])
        sc = Scoring.dna(3, -2, gap_open=-10, gap_extend=-2, transversion=tv)
        assert score == trimsa.score_triplets([r[2] for r in recs], scoring=sc)[0]
    assert main(["triplets", str(data_dir / "six.fa"), "--transversion", "-3"]) == 0
    out = capsys.readouterr().out.splitlines()
    six = trimsa.read_sequences(str(data_dir / "six.fa"))
    want = trimsa.score_triplets(six, scoring=Scoring.dna(1, -1, gap=-3, transversion=-3))
    assert [int(line.split("\t")[-1]) for line in out[1:]] == want.tolist()
    (tmp_path / "p.fa").write_text(">a\nMKV\n>b\nMKL\n>c\nMRV\n")
    assert main(["align3", str(tmp_path / "p.fa"), "--transversion", "-2"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "apply to DNA only" in err[0]
