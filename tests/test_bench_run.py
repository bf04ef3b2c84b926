"""eval/bench_run.py's tables, rewritten from a result's TSV (no runs)."""

from __future__ import annotations

import csv
import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _bench_run():
    spec = importlib.util.spec_from_file_location("bench_run", ROOT / "eval" / "bench_run.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    sys.modules.pop("bench_run", None)
    return mod


def test_retable_writes_group_means_of_spfn_spfp_tc_and_time(tmp_path):
    bench = _bench_run()
    rows = [  # set, group, tool, spfn, spfp, tc, wall
        ("a", "g1", "trimsa", 0.1, 0.2, 0.5, 1.0),
        ("b", "g1", "trimsa", 0.3, 0.4, 0.7, 3.0),
        ("a", "g1", "muscle", 0.2, 0.2, 0.6, 10.0),
        ("c", "g2", "trimsa", 0.05, 0.05, 0.9, 0.5),
        ("c", "g2", "muscle", 0.15, 0.10, 0.8, 2.0),
    ]
    with open(tmp_path / "r.tsv", "w", newline="") as fh:
        w = csv.writer(fh, delimiter="\t")
        w.writerow(["set", "group", "n", "tool", "spfn", "spfp", "tc", "wall_s", "source"])
        for s, g, t, fn, fp, tc, wall in rows:
            w.writerow([s, g, 10, t, fn, fp, tc, wall, "run"])
    md = tmp_path / "r.md"
    md.write_text("# title\n\nMeasured then. " + bench.LEGEND + " more.\n\n"
                  "## Group means over all sets\n\nold tables\n")
    assert bench.retable(md) == 0
    text = md.read_text()
    assert text.startswith("# title\n\nMeasured then. " + bench.LEGEND + " more.\n\n")
    assert "old tables" not in text
    first, common = text.split("## Group means over the sets every tool completed")
    # g1: trimsa over sets a and b; muscle ran on a only
    assert "| g1 | 2 | 0.200/0.300/0.600 (2.0 s) | 0.200/0.200/0.600 (10.0 s) [1/2] |" in first
    assert "| g2 | 1 | 0.050/0.050/0.900 (0.5 s) | 0.150/0.100/0.800 (2.0 s) |" in first
    assert "| g1 | 1 | 0.100/0.200/0.500 (1.0 s) | 0.200/0.200/0.600 (10.0 s) |" in common
    assert "| group | sets | trimsa | muscle |" in first
    assert "Per set: `r.tsv`." in common
