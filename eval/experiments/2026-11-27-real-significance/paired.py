"""trimsa against MUSCLE5 on the real families, family by family, from the committed
validate benchmark (no new run): how many families each has the lower SPFN / SPFP on,
and a bootstrap interval of the mean difference.

    python eval/experiments/2026-11-27-real-significance/paired.py [eval/results/bench_run.tsv]
"""
import csv
import sys

import numpy as np

def compare(t, m, seed=0):
    """Print, for SPFN and SPFP, the families each is lower on and a bootstrap interval of
    the mean difference; ``t`` and ``m``: set -> (spfn, spfp) of trimsa and MUSCLE5."""
    common = sorted(s for s in t if s in m)
    rng = np.random.default_rng(seed)
    for k, name in enumerate(("SPFN", "SPFP")):
        d = np.array([t[s][k] - m[s][k] for s in common])
        boot = [d[rng.integers(0, d.size, d.size)].mean() for _ in range(10000)]
        lo, hi = np.percentile(boot, [2.5, 97.5])
        print(f"{name}: {len(common)} families; trimsa lower on {(d < 0).sum()}, higher on "
              f"{(d > 0).sum()}, equal on {(d == 0).sum()}; mean difference (trimsa - MUSCLE5) "
              f"{d.mean():+.4f}, 95% bootstrap interval {lo:+.4f}..{hi:+.4f}")


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "eval/results/bench_run.tsv"
    rows = [r for r in csv.DictReader(open(path), delimiter="\t")
            if r["group"].startswith("real")]

    def scores(tool):
        return {r["set"]: (float(r["spfn"]), float(r["spfp"])) for r in rows
                if r["tool"] == tool and r["spfn"] not in ("", "nan")}

    compare(scores("trimsa"), scores("muscle"))


if __name__ == "__main__":
    main()
