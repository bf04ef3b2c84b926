"""trimsa benchmark: data-set discovery, running, scoring (= trimsa eval per pair), report."""

from __future__ import annotations

import csv
import math
import shutil
import subprocess
from pathlib import Path

import pytest

from trimsa import benchmark as bm
from trimsa.cli import main
from trimsa.evaluate import compare

DATA = Path(__file__).parent / "data" / "eval"


def _read(path):
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh, delimiter="\t"))


def test_find_sets_takes_sets_and_folders_of_sets():
    one = bm.find_sets([DATA / "msa-N16-h0.5"])
    assert [s.name for s in one] == ["msa-N16-h0.5"]
    assert set(one[0].stored) >= {"twilight", "clustalo", "kalign", "mafft"}
    assert one[0].stored_wall["twilight"] > 0
    many = bm.find_sets([DATA])
    assert [s.name for s in many] == ["msa-N16-h0.5", "trip-indel-L64-r0", "trip-indel-L128-r1"]


def test_stored_estimates_score_as_trimsa_eval_does(tmp_path, capsys):
    assert main(["benchmark", str(DATA), "-o", str(tmp_path / "r"), "--run", "none",
                 "-q"]) == 0
    rows = _read(tmp_path / "r" / "results.tsv")
    assert rows and all(r["source"] == "stored" and not r["error"] for r in rows)
    for r in rows:
        ds = DATA / r["dataset"]
        est = next((ds / "peers").glob(f"{r['tool']}.fa*"))
        s = compare(ds / "true.fa", est)
        assert float(r["spfn"]) == s.spfn and float(r["spfp"]) == s.spfp
        assert float(r["tc"]) == s.tc or (math.isnan(s.tc) and r["tc"] == "nan")
    means = {m["tool"]: m for m in _read(tmp_path / "r" / "means.tsv")}
    tw = [float(r["spfn"]) for r in rows if r["tool"] == "twilight"]
    assert float(means["twilight"]["spfn"]) == pytest.approx(sum(tw) / len(tw), abs=1e-15)
    assert int(means["twilight"]["sets"]) == len(tw)
    md = (tmp_path / "r" / "report.md").read_text()
    assert "## means" in md and "## against twilight" in md
    for name in ("spfn_spfp.png", "per_set_spfn.png", "against_twilight.png", "report.html"):
        assert (tmp_path / "r" / name).stat().st_size > 1000


def test_trimsa_is_run_and_its_alignment_kept(tmp_path):
    out = tmp_path / "r"
    rows = bm.benchmark([DATA / "trip-indel-L64-r0"], out, run=("trimsa",), threads=1,
                        device="cpu")
    mine = [r for r in rows if r.tool == "trimsa"]
    assert len(mine) == 1 and mine[0].source == "run" and mine[0].wall_s >= 0
    aln = out / "alignments" / "trip-indel-L64-r0" / "trimsa.fa"
    s = compare(DATA / "trip-indel-L64-r0" / "true.fa", aln)
    assert (mine[0].spfn, mine[0].spfp) == (s.spfn, s.spfp)


@pytest.mark.skipif(shutil.which("mafft") is None, reason="mafft not installed")
def test_an_installed_peer_is_run(tmp_path):
    rows = bm.benchmark([DATA / "trip-indel-L64-r0"], tmp_path, run=("mafft",), threads=1)
    row = next(r for r in rows if r.tool == "mafft")
    assert row.source == "run" and not row.error and 0 <= row.spfn <= 1


def test_wins_count_lower_error_rates():
    R = bm.Row
    rows = [R("s1", "a", "run", 0.1, 0.1, 1), R("s1", "ref", "stored", 0.2, 0.1, 1),
            R("s2", "a", "run", 0.3, 0.3, 1), R("s2", "ref", "stored", 0.2, 0.2, 1),
            R("s3", "a", "run", error="failed"), R("s3", "ref", "stored", 0.2, 0.2, 1)]
    assert bm.wins(rows, "ref") == [("a", 2, 1, 0, 1, 0, 1, 1)]


@pytest.mark.parametrize("argv,needle", [
    (["benchmark", "nowhere", "-o", "r"], "not a folder"),
    (["benchmark", "EMPTY", "-o", "r"], "holds no data set"),
    (["benchmark", "DATA", "-o", "r", "--run", "bogus"], "unknown aligner"),
    (["benchmark", "DATA", "-o", "r", "--run", "none", "--versus", "nobody"], "--versus"),
    (["benchmark", "DATA", "-o", "r", "--timeout", "0"], "--timeout"),
    (["benchmark", "DATA", "-o", "r", "--timeout", "nan"], "--timeout"),
    (["benchmark", "DATA", "-o", "r", "--timeout", "inf"], "--timeout"),
    (["benchmark", "DATA", "-o", "r", "--versus", "nobody"], "--versus"),
    (["benchmark", "DATA", "-o", "", "--run", "none"], "empty report folder"),
    (["benchmark", "BROKEN", "-o", "r"], "none of the"),
], ids=["missing-folder", "no-data-set", "unknown-tool", "unknown-versus", "bad-timeout",
        "nan-timeout", "infinite-timeout", "unknown-versus-before-running", "empty-report-path",
        "nothing-scored"])
def test_bad_benchmark_input_is_one_line(tmp_path, monkeypatch, capsys, argv, needle):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "EMPTY").mkdir()
    broken = tmp_path / "BROKEN"   # a data set whose reference is empty
    shutil.copytree(DATA / "trip-indel-L64-r0", broken)
    (broken / "true.fa").write_text("")
    argv = [str(DATA) if a == "DATA" else a for a in argv]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and needle in err[0]
    assert not (tmp_path / "r").exists()   # nothing written, not even the aligners' outputs


def test_a_missing_peer_program_is_named(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(bm, "peer_available", lambda tool: False)
    assert main(["benchmark", str(DATA), "-o", str(tmp_path / "r"), "--run", "kalign"]) == 2
    assert "kalign is not installed" in capsys.readouterr().err


def _browser():
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        if shutil.which(name):
            return shutil.which(name)
    return None


@pytest.mark.skipif(_browser() is None, reason="no headless Chromium installed")
def test_html_report_renders_in_headless_chromium(tmp_path):
    assert main(["benchmark", str(DATA), "-o", str(tmp_path / "r"), "--run", "none",
                 "-q"]) == 0
    page = (tmp_path / "r" / "report.html").resolve()
    js = ("<script>window.addEventListener('load', () => { document.body.dataset.images = "
          "[...document.images].every(i => i.complete && i.naturalWidth > 0) ? 'IMAGES-OK' "
          ": 'IMAGES-BROKEN'; });</script>")
    probe = tmp_path / "probe.html"
    probe.write_text(page.read_text().replace("</body>", js + "</body>"))
    dom = subprocess.run([_browser(), "--headless", "--disable-gpu", "--no-sandbox",
                          "--dump-dom", probe.as_uri()], capture_output=True, text=True,
                         timeout=60).stdout
    assert dom.count("<table>") >= 3 and "IMAGES-OK" in dom


@pytest.mark.slow
def test_documented_workflow_script(tmp_path):
    import importlib.util
    import os
    import sys

    if importlib.util.find_spec("piqtree") is None:
        pytest.skip("piqtree not installed (the sim extra, Python >= 3.12)")
    root = Path(__file__).resolve().parents[1]
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    r = subprocess.run(["bash", str(root / "examples" / "benchmark_workflow.sh"),
                        str(tmp_path / "demo")], capture_output=True, text=True, env=env,
                       timeout=900)
    assert r.returncode == 0, r.stderr
    rows = _read(tmp_path / "demo" / "report" / "results.tsv")
    assert {r["dataset"] for r in rows} == {"sim1", "sim2", "sim3"}
    assert all(not r["error"] for r in rows if r["tool"] == "trimsa")
