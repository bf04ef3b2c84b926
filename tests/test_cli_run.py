"""``trimsa run``: outputs, formats, and bad input (one stderr line, exit 2, no file)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from Bio import AlignIO, SeqIO

from trimsa.cli import main

DATA = Path(__file__).parent / "data"
INPUT = DATA / "msa16_input.fa"


def records(path):
    return [(r.id, str(r.seq)) for r in SeqIO.parse(path, "fasta")]


def test_run_fasta_to_file_and_tree(tmp_path, capsys):
    out = tmp_path / "out.fa"
    tree = tmp_path / "g.nwk"
    assert main(["run", str(INPUT), "-o", str(out), "--tree-out", str(tree), "-q"]) == 0
    got = records(out)
    assert [(n, s.replace("-", "")) for n, s in got] == records(INPUT)
    assert len({len(s) for _, s in got}) == 1
    assert tree.read_text().startswith("(") and tree.read_text().rstrip().endswith(";")
    assert capsys.readouterr().err == ""


def test_run_stdout_and_verbose(capsys):
    assert main(["run", str(INPUT), "-v", "--threads", "1"]) == 0
    cap = capsys.readouterr()
    assert cap.out.startswith(">S1")
    lines = {ln.split(":")[1].strip(): ln for ln in cap.err.splitlines()}
    assert {"read", "library", "guide tree", "merges", "write", "total"} <= set(lines)
    n = len(records(INPUT))
    assert f"{n * (n - 1) // 2} pairs" in lines["library"] and "cells" in lines["library"]
    # the triplet guide tree, with its count of triplets, on a machine without a GPU too
    tree = lines["guide tree"]
    assert re.search(r"upgma of \d+ exact triplets", tree) and "cpu" in tree, tree
    assert re.search(r"cpu, \d+ triplets, ", tree) and "rest of the run" in tree
    assert f"{n - 1} merges" in lines["merges"]


def test_run_library_votes(capsys):
    assert main(["run", str(INPUT), "-v", "-q", "--library-votes", "alignment"]) == 0
    err = capsys.readouterr().err
    assert "global affine pairwise alignments, all pairs" in err and "posteriors" not in err
    assert main(["run", str(INPUT), "-v", "-q"]) == 0
    assert "match posteriors of the five-state pair HMM" in capsys.readouterr().err
    assert main(["run", str(INPUT), "-v", "-q", "--pair-hmm", "fitted"]) == 0
    assert "match posteriors of the three-state pair HMM fitted" in capsys.readouterr().err


def test_run_pair_hmm_errors(tmp_path, capsys):
    prot = tmp_path / "p.fa"
    prot.write_text(">a\nMKVLWEEPQR\n>b\nMKVLWDEPQR\n>c\nMRVLWEEPQK\n>d\nMKILWEEPR\n")
    out = tmp_path / "out.fa"
    assert main(["run", str(prot), "-o", str(out), "-q", "--pair-hmm", "trained"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "trained" in err[0] and "protein" in err[0]
    assert not out.exists()
    assert main(["run", str(INPUT), "-o", str(out), "-q", "--pair-hmm", "fitted",
                 "--consistency", "0"]) == 2
    assert "--pair-hmm" in capsys.readouterr().err and not out.exists()
    assert main(["run", str(prot), "-o", str(out), "-q"]) == 0   # auto: fitted


def test_run_verbose_three_sequences_say_how_they_were_aligned(tmp_path, capsys):
    three = tmp_path / "three.fa"
    three.write_text(">a\nACGTACGTTA\n>b\nACGTCGTTA\n>c\nACGTACGGTTA\n")
    assert main(["run", str(three), "-v", "--device", "cpu"]) == 0
    err = capsys.readouterr().err
    assert "3 pairs" in err and "exact 3-way" in err and "most library support" in err
    assert "cpu, 1 triplet," in err and "merges" not in err
    assert main(["run", str(three), "-v", "--device", "cpu", "--exact-triplet", "off"]) == 0
    err = capsys.readouterr().err
    assert "3 pairs" in err and "2 merges" in err and "exact 3-way" not in err
    assert main(["run", str(three), "-v", "--exact-triplet", "sum-of-pairs"]) == 0
    err = capsys.readouterr().err
    assert "exact 3-way" in err and "optimal alignment (score" in err and "library" not in err
    assert main(["run", str(three), "--exact-triplet", "library", "--consistency", "0"]) == 2
    assert "--consistency 0" in capsys.readouterr().err


@pytest.mark.parametrize("fmt, bio", [("clustal", "clustal"), ("phylip", "phylip-relaxed"),
                                      ("stockholm", "stockholm"), ("nexus", "nexus")])
def test_run_formats(tmp_path, fmt, bio):
    out = tmp_path / f"out.{fmt}"
    assert main(["run", str(INPUT), "-o", str(out), "--format", fmt]) == 0
    aln = AlignIO.read(out, bio)
    assert [r.id for r in aln] == [n for n, _ in records(INPUT)]


def test_run_guide_tree_and_gap_options(tmp_path):
    out = tmp_path / "out.fa"
    assert main(["run", str(INPUT), "-o", str(out), "--guide-tree", str(DATA / "msa16_tree.nwk"),
                 "--gap-open", "-4", "--gap-extend", "-2"]) == 0
    assert [(n, s.replace("-", "")) for n, s in records(out)] == records(INPUT)


def test_run_transversion_option_is_the_aligners(tmp_path):
    from trimsa import read_sequences
    from trimsa.progressive import Aligner

    out = tmp_path / "out.fa"
    assert main(["run", str(INPUT), "-o", str(out), "--transversion", "-4", "-q"]) == 0
    assert [s for _, s in records(out)] == list(Aligner(transversion=-4).align(str(INPUT)).rows)
    assert "transversion=-4" in repr(Aligner(transversion=-4).scoring(read_sequences(str(INPUT))))


@pytest.mark.parametrize("n", [1, 2, 3])
def test_run_few_sequences(tmp_path, n):
    inp = tmp_path / "in.fa"
    seqs = [("a", "ACGTTGCA"), ("b", "ACTTGCA"), ("c", "ACGTTGGCA")][:n]
    inp.write_text("".join(f">{a}\n{s}\n" for a, s in seqs))
    out = tmp_path / "out.fa"
    assert main(["run", str(inp), "-o", str(out)]) == 0
    assert [(a, s.replace("-", "")) for a, s in records(out)] == seqs


BAD = {
    "not-fasta": "hello world\n",
    "empty": "",
    "duplicate": ">a\nACGT\n>a\nACGA\n",
    "illegal": ">a\nACGT\n>b\nAC!T\n",
    "aligned": ">a\nAC-T\n>b\nACGT\n",
}


@pytest.mark.parametrize("kind", sorted(BAD))
def test_bad_input(tmp_path, capsys, kind):
    inp = tmp_path / "in.fa"
    inp.write_text(BAD[kind])
    out = tmp_path / "out.fa"
    assert main(["run", str(inp), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "error" in err
    assert not out.exists()
    assert list(tmp_path.iterdir()) == [inp]


@pytest.mark.parametrize("args, words", [
    (["run", "/no/such/file.fa"], "no such file"),
    (["run", str(INPUT), "--format", "msf"], "--format"),
    (["run", str(INPUT), "--threads", "-1"], "--threads"),
    (["run", str(INPUT), "--gap-open", "3"], "gap-open"),
    (["run", str(INPUT), "--gap", "2"], "must be <= 0"),
    (["run", str(INPUT), "--gap", "-3", "--gap-open", "-2"], "either --gap or --gap-open"),
    (["run", str(INPUT), "--guide-tree", "/no/tree.nwk"], "no such file"),
    (["run", str(INPUT), "--guide-tree", str(DATA / "msa16_tree.nwk"), "--method", "nj"],
     "--method does not apply to a tree given with --guide-tree"),
    (["run", str(INPUT), "--device", "gpu", "--consistency", "0", "--guide-tree",
      str(DATA / "msa16_tree.nwk")], "no stage of this alignment has a GPU path"),
    (["run", str(INPUT), "--gpus", "0", "--device", "cpu"], "not 'cpu'"),
    (["run", str(INPUT), "--gpus", "0,x"], "--gpus takes comma-separated device numbers"),
    # the Aligner's errors in the command line's words
    (["run", str(INPUT), "--pairs-per-merge", "0"], "error: --pairs-per-merge must be"),
    (["run", str(INPUT), "--tree-distances", "kmer", "--tree-time-budget", "5"],
     "error: --tree-time-budget applies to the triplet and pair-score guide trees "
     "(--tree-distances auto, --tree-distances triplet or --tree-distances pair-score)"),
    (["run", str(INPUT), "--consistency", "-1"], "error: --consistency must lie within"),
    (["run", str(INPUT), "--pair-hmm", "trained", "--library-votes", "alignment"],
     "--pair-hmm applies to the consistency library's posteriors, which --consistency 0 or "
     "--library-votes alignment turn off"),
])
def test_bad_options(tmp_path, capsys, args, words):
    out = tmp_path / "out.fa"
    assert main(args + ["-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and words in err
    assert not out.exists()


@pytest.mark.parametrize("command, outputs, clash", [
    ("run", ["-o", "{inp}"], "the output (-o) would overwrite the input"),
    ("run", ["-o", "{link}"], "the output (-o) would overwrite the input"),
    ("run", ["-o", "{out}", "--tree-out", "{inp}"], "the tree (--tree-out) would overwrite the input"),
    ("run", ["-o", "{out}", "--tree-out", "{out}"],
     "the tree (--tree-out) would overwrite the output (-o)"),
    ("run", ["-o", "{out}", "--guide-tree", "{tree}", "--tree-out", "{tree}"],
     "the tree (--tree-out) would overwrite the guide tree (--guide-tree)"),
    ("tree", ["-o", "{inp}"], "the output (-o) would overwrite the input"),
    ("triplets", ["--triplets", "{tree}", "-o", "{tree}"],
     "the output (-o) would overwrite the triplet list (--triplets)"),
])
def test_outputs_never_overwrite_inputs_or_each_other(tmp_path, capsys, command, outputs,
                                                      clash):
    inp, tree = tmp_path / "in.fa", tmp_path / "t.nwk"
    inp.write_bytes(INPUT.read_bytes())
    tree.write_bytes((DATA / "msa16_tree.nwk").read_bytes())
    (tmp_path / "link.fa").symlink_to(inp)
    paths = dict(inp=inp, link=tmp_path / "link.fa", out=tmp_path / "out.fa", tree=tree)
    assert main([command, str(inp)] + [a.format(**paths) for a in outputs]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and clash in err
    assert inp.read_bytes() == INPUT.read_bytes()
    assert tree.read_bytes() == (DATA / "msa16_tree.nwk").read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.fa", "link.fa", "t.nwk"]


def test_gap_scores_are_integers(tmp_path, capsys):
    out = tmp_path / "out.fa"
    with pytest.raises(SystemExit) as exc:
        main(["run", str(INPUT), "--gap-extend", "-1.5", "-o", str(out)])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--gap-extend: invalid int value" in err
    assert not out.exists()


def test_bad_guide_tree_names(tmp_path, capsys):
    tree = tmp_path / "t.nwk"
    tree.write_text("(S1,(S2,NOPE));\n")
    out = tmp_path / "out.fa"
    assert main(["run", str(INPUT), "--guide-tree", str(tree), "-o", str(out)]) == 2
    assert "NOPE" in capsys.readouterr().err
    assert not out.exists()


def test_python_dash_m(tmp_path):
    out = tmp_path / "out.fa"
    root = Path(__file__).resolve().parents[1]
    r = subprocess.run([sys.executable, "-m", "trimsa", "run", str(INPUT), "-o", str(out)],
                       capture_output=True, text=True, cwd=root)
    assert r.returncode == 0, r.stderr
    assert r.stderr == ""  # no progress bar when stderr is not a terminal
    assert len(records(out)) == 16


def test_gap_options_mean_the_gap_model(tmp_path):
    """--gap G is linear gaps (open 0, extend G); --gap-open/--gap-extend set affine gaps."""
    from trimsa.progressive import Aligner

    out = tmp_path / "out.fa"
    assert main(["run", str(INPUT), "-o", str(out), "--gap", "-2"]) == 0
    linear = Aligner(gap_open=0, gap_extend=-2).align(str(INPUT))
    assert [s for _, s in records(out)] == list(linear.rows)
    assert main(["run", str(INPUT), "-o", str(out), "--gap-open", "-5"]) == 0
    affine = Aligner(gap_open=-5, gap_extend=-1).align(str(INPUT))   # extend: the default
    assert [s for _, s in records(out)] == list(affine.rows)
    assert affine.rows != linear.rows


def test_run_with_triplet_distances(tmp_path):
    out, tree = tmp_path / "out.fa", tmp_path / "t.nwk"
    assert main(["run", str(INPUT), "-o", str(out), "--tree-distances", "triplet", "--gap", "-2",
                 "--method", "nj", "--device", "cpu", "--tree-out", str(tree)]) == 0
    assert [(n, s.replace("-", "")) for n, s in records(out)] == records(INPUT)
    from trimsa.scoring import Scoring
    from trimsa.tree import build_guide_tree

    want = build_guide_tree(str(INPUT), distances="triplet", method="nj",
                            scoring=Scoring.dna(gap=-2, stage="progressive"))
    assert tree.read_text().strip() == want.newick()


def test_phylo_workflow_example(tmp_path):
    root = Path(__file__).resolve().parents[1]
    env = dict(os.environ, PYTHONPATH=str(root))
    r = subprocess.run([sys.executable, str(root / "examples" / "phylo_workflow.py"), "",
                        str(tmp_path / "out")], capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
    assert "SPFN" in r.stdout and (tmp_path / "out" / "aln.phy").exists()


def test_run_triplet_votes(tmp_path, capsys):
    out = tmp_path / "out.fa"
    assert main(["run", str(INPUT), "-o", str(out), "-v", "-q", "--triplet-votes", "0.25",
                 "--triplet-thirds", "1", "--triplet-width", "8", "--device", "cpu"]) == 0
    err = capsys.readouterr().err
    n = len(records(INPUT))
    line = [x for x in err.splitlines() if "triplets:" in x][0]
    assert f"cpu, {n * (n - 1) // 2} triplets" in line and "band of 8" in line
    assert [(n, s.replace("-", "")) for n, s in records(out)] == records(INPUT)
    out.unlink()
    assert main(["run", str(INPUT), "-o", str(out), "-q", "--triplet-width", "8"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--triplet-votes 0" in err[0] and not out.exists()
