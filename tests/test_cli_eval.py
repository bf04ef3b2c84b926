"""``trimsa eval`` through the command line, in-process and once through ``python -m trimsa``."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import trimsa.cli as cli
from trimsa.evaluate import JSON_KEYS

DATA = Path(__file__).parent / "data" / "eval"
ROOT = Path(__file__).resolve().parent.parent


def fastsp_row(folder, tool):
    with open(DATA / folder / "peers" / "scores.tsv") as fh:
        return next(r for r in csv.DictReader(fh, delimiter="\t") if r["tool"] == tool)


def test_json(capsys):
    true = DATA / "msa-N16-h0.5" / "true.fa"
    est = DATA / "msa-N16-h0.5" / "peers" / "mafft.fa"
    assert cli.main(["eval", "--reference", str(true), "--estimate", str(est), "--json"]) == 0
    out, err = capsys.readouterr()
    d = json.loads(out)
    assert tuple(d) == JSON_KEYS
    row = fastsp_row("msa-N16-h0.5", "mafft")
    for key in ("spfn", "spfp", "tc"):
        assert abs(d[key] - float(row[key])) <= 1e-9
    assert d["spfn"] == pytest.approx(1 - d["sp_score"])
    assert d["n_seqs"] == 16 and d["est_columns"] == int(row["est_cols"])
    assert err == ""


def test_text_output_short_options(capsys):
    true = DATA / "trip-indel-L64-r0" / "true.fa"
    est = DATA / "trip-indel-L64-r0" / "peers" / "clustalo.fa"
    assert cli.main(["eval", "-r", str(true), "-e", str(est)]) == 0
    head, row_ = (line.split() for line in capsys.readouterr().out.splitlines())
    got = dict(zip(head, row_))
    row = fastsp_row("trip-indel-L64-r0", "clustalo")
    assert got["estimate"] == "clustalo"
    assert float(got["SPFN"]) == pytest.approx(float(row["spfn"]), abs=1e-4)
    assert float(got["TC"]) == pytest.approx(float(row["tc"]), abs=1e-4)
    assert got["NumSeq"] == "3"


def test_several_estimates_one_row_each_agree_with_single_runs(capsys):
    folder = DATA / "msa-N16-h0.5"
    ests = [folder / "peers" / f for f in ("mafft.fa", "kalign.fa.gz", "clustalo.fa")]
    assert cli.main(["eval", "-r", str(folder / "true.fa"), "-e", *map(str, ests),
                     "--tsv"]) == 0
    lines = capsys.readouterr().out.splitlines()
    head = lines[0].split("\t")
    rows = [dict(zip(head, line.split("\t"))) for line in lines[1:]]
    assert [r["estimate"] for r in rows] == ["mafft", "kalign", "clustalo"]
    for r, est in zip(rows, ests):
        assert cli.main(["eval", "-r", str(folder / "true.fa"), "-e", str(est), "--json"]) == 0
        one = json.loads(capsys.readouterr().out)
        assert float(r["SPFN"]) == one["spfn"] and float(r["SPFP"]) == one["spfp"]
        assert float(r["TC"]) == one["tc"] and int(r["LenEst"]) == one["est_columns"]
    assert cli.main(["eval", "-r", str(folder / "true.fa"), "-e", *map(str, ests[:2]),
                     "--label", "A", "--label", "B", "--json"]) == 0
    recs = json.loads(capsys.readouterr().out)
    assert [r["label"] for r in recs] == ["A", "B"]
    assert recs[0]["spfn"] == float(rows[0]["SPFN"])


def test_label_and_format_counts_are_checked(capsys):
    folder = DATA / "msa-N16-h0.5"
    args = ["eval", "-r", str(folder / "true.fa"), "-e", str(folder / "peers" / "mafft.fa"),
            str(folder / "peers" / "kalign.fa.gz")]
    assert cli.main(args + ["--label", "x"]) == 2
    assert "once per estimate" in capsys.readouterr().err
    assert cli.main(args + ["--estimate-format", "fasta", "--estimate-format", "fasta",
                            "--estimate-format", "fasta"]) == 2
    assert "--estimate-format" in capsys.readouterr().err
    assert cli.main(args + ["--label", "x", "--label", "x"]) == 2
    assert "names two" in capsys.readouterr().err


def test_compare_many_table_and_pandas():
    from trimsa.evaluate import compare, compare_many

    folder = DATA / "msa-N16-h0.5"
    ests = [folder / "peers" / "mafft.fa", folder / "peers" / "kalign.fa.gz"]
    table = compare_many(folder / "true.fa", ests)
    assert table.labels == ["mafft", "kalign"]
    for (label, s), est in zip(table, ests):
        assert s == compare(folder / "true.fa", est)
    assert table.to_markdown().count("\n") == 4
    pd = pytest.importorskip("pandas")
    df = table.to_pandas()
    assert isinstance(df, pd.DataFrame) and list(df.index) == ["mafft", "kalign"]
    assert df.loc["kalign", "spfp"] == compare(folder / "true.fa", ests[1]).spfp


def test_gzip_estimate(capsys):
    true = DATA / "msa-N16-h0.5" / "true.fa"
    est = DATA / "msa-N16-h0.5" / "peers" / "kalign.fa.gz"
    assert cli.main(["eval", "-r", str(true), "-e", str(est), "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert abs(d["spfp"] - float(fastsp_row("msa-N16-h0.5", "kalign")["spfp"])) <= 1e-9


def _write(path, rows):
    path.write_text("".join(f">{n}\n{r}\n" for n, r in rows))
    return str(path)


@pytest.mark.parametrize("ref, est, needle", [
    ([("a", "AC"), ("b", "AC")], [("a", "AC")], "'b'"),
    ([("a", "AC"), ("b", "AC")], [("a", "AC"), ("b", "AT")], "'b'"),
    ([("a", "AC"), ("b", "ACG")], [("a", "AC"), ("b", "ACG")], "not an alignment"),
    (None, [("a", "AC")], "empty"),
])
def test_bad_input_one_line_exit_2(tmp_path, capsys, ref, est, needle):
    r = tmp_path / "r.fa"
    if ref is None:
        r.write_text("")
    else:
        _write(r, ref)
    e = _write(tmp_path / "e.fa", est)
    before = sorted(os.listdir(tmp_path))
    assert cli.main(["eval", "-r", str(r), "-e", e, "--json"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("trimsa eval: error:") and needle in lines[0]
    assert sorted(os.listdir(tmp_path)) == before  # nothing written


def test_missing_option_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(["eval", "--reference", "x.fa"])
    assert exc.value.code == 2
    assert "--estimate" in capsys.readouterr().err


def test_through_python_m(tmp_path):
    r = _write(tmp_path / "r.fa", [("a", "AC"), ("b", "AC")])
    e = _write(tmp_path / "e.fa", [("a", "AC"), ("c", "AC")])
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    argv = [sys.executable, "-m", "trimsa"]
    p = subprocess.run(argv + ["eval", "-r", r, "-e", e, "--json"], capture_output=True,
                       text=True, cwd=tmp_path, env=env, timeout=120)
    assert p.returncode == 2
    assert p.stdout == ""
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and "'b'" in lines[0], p.stderr
    assert sorted(os.listdir(tmp_path)) == ["e.fa", "r.fa"]


def test_scores_without_pairs_to_count_are_nan_with_a_note(tmp_path, capsys):
    ref = tmp_path / "ref.fa"
    ref.write_text(">a\nAC--\n>b\n--GT\n")          # no two residues share a column
    est = tmp_path / "est.fa"
    est.write_text(">a\nA-C\n>b\n-GT\n")             # one pair: C with G
    assert cli.main(["eval", "-r", str(ref), "-e", str(est), str(ref), "--label", "x",
                 "--label", "same", "--tsv"]) == 0
    out, err = capsys.readouterr()
    rows = [line.split("\t") for line in out.splitlines()]
    assert rows[1][:3] == ["x", "nan", "1.0"] and rows[2][:3] == ["same", "nan", "nan"]
    assert err.splitlines() == [
        "trimsa eval: note: the reference puts no two residues in one column, so SPFN, "
        "SP-Score and TC are undefined (nan)",
        "trimsa eval: note: estimate 'same' puts no two residues in one column, so its SPFP "
        "and Modeler are undefined (nan)"]
    # with pairs on both sides: no note
    good = tmp_path / "good.fa"
    good.write_text(">a\nACGT\n>b\nACGT\n")
    assert cli.main(["eval", "-r", str(good), "-e", str(good)]) == 0
    assert capsys.readouterr().err == ""
