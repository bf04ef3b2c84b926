"""eval/harness.py on the small copied data sets, with TWILIGHT's stored alignments only (no runs)."""

from __future__ import annotations

import csv
import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).parent / "data" / "eval"


@pytest.fixture(scope="module")
def harness():
    spec = importlib.util.spec_from_file_location("harness", ROOT / "eval" / "harness.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules["harness"] = mod
    spec.loader.exec_module(mod)
    yield mod
    sys.modules.pop("harness", None)


def test_report_from_stored_alignments(harness, tmp_path):
    out = tmp_path / "res"
    rc = harness.main(["--data", str(DATA), "--tools", "twilight", "--out", str(out),
                       "--cache", str(tmp_path / "cache"), "--no-figures"])
    assert rc == 0
    rows = list(csv.DictReader(open(out / "accuracy.tsv"), delimiter="\t"))
    assert [r["dataset"] for r in rows] == ["msa-N16-h0.5", "trip-indel-L64-r0", "trip-indel-L128-r1"]
    for r in rows:
        with open(DATA / r["dataset"] / "peers" / "scores.tsv") as fh:
            want = next(x for x in csv.DictReader(fh, delimiter="\t") if x["tool"] == "twilight")
        assert r["status"] == "ok"
        assert abs(float(r["spfn"]) - float(want["spfn"])) <= 1e-9
        assert float(r["wall_s"]) == float(want["wall_s"])
    text = (out / "accuracy.md").read_text()
    assert "## trip-indel" in text and "| msa-N16-h0.5 | 16 |" in text


def test_set_filter_and_unknown_tool(harness, tmp_path, capsys):
    assert harness.main(["--data", str(DATA), "--tools", "nosuch"]) == 2
    assert "unknown tool" in capsys.readouterr().err
    assert harness.main(["--data", str(DATA), "--sets", "zzz*", "--tools", "twilight"]) == 2
    sets = harness.find_sets(DATA, ["trip-*"])
    assert [s.name for s in sets] == ["trip-indel-L64-r0", "trip-indel-L128-r1"]
    assert all(s.is_triplet for s in sets)


def test_peer_commands_are_the_scoreboards(harness):
    argv, stdout = harness.peer_command("mafft", "IN", "OUT", 2)
    assert argv == ["mafft", "--auto", "--thread", "2", "--quiet", "--preservecase", "IN"]
    assert stdout == "OUT"
    argv, stdout = harness.peer_command("kalign", "IN", "OUT", 2)
    assert argv == ["kalign", "-i", "IN", "-o", "OUT", "--type", "dna", "-n", "2"] and stdout is None
