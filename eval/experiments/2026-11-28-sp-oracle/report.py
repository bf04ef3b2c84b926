"""Summarise `oracle.py`'s rows (tune only) next to MUSCLE5 run on the same triplets.

    python eval/experiments/2026-11-28-sp-oracle/report.py tune.tsv

Prints, as markdown, mean SPFN / SPFP over the cases every setting and MUSCLE5 have:
the default setting (3 / -2 / -3 / -8 / -2), the best single setting (lowest mean of
(SPFN + SPFP) / 2), the best setting per family and per triplet (each chosen by the
truth: bounds, not methods), and MUSCLE5 (`peers/muscle.fa`).
"""

from __future__ import annotations

import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "2026-11-24-affine-triplets"))

DEFAULT = (3, -2, -3, -8, -2)


def main(argv):
    from score import score

    tsv = Path(argv[0])
    cache = HERE.parents[2] / ".cache" / "affine-triplets" / "real" / "tune"
    rows = defaultdict(dict)   # setting -> case -> (spfn, spfp)
    for line in tsv.read_text().splitlines():
        f = line.split("\t")
        rows[tuple(int(x) for x in f[:5])][f[5]] = (float(f[6]), float(f[7]))
    muscle = {}
    for case in sorted(next(iter(rows.values()))):
        est = cache / case / "peers" / "muscle.fa"
        if est.exists():
            s = score(cache / case / "true.fa", est)
            muscle[case] = (s.spfn, s.spfp)
    cases = sorted(set(muscle).intersection(*[set(r) for r in rows.values()]))
    settings = sorted(rows)
    a = np.array([[rows[s][c] for c in cases] for s in settings])   # (settings, cases, 2)
    crit = a.mean(axis=2)
    mean = a.mean(axis=1)
    best = int(np.argmin(crit.mean(axis=1)))
    fam = np.array([c.rsplit("-t", 1)[0] for c in cases])
    per_family = np.empty((len(cases), 2))
    for f in np.unique(fam):
        idx = np.flatnonzero(fam == f)
        k = int(np.argmin(crit[:, idx].mean(axis=1)))
        per_family[idx] = a[k, idx]
    per_case = a[np.argmin(crit, axis=0), np.arange(len(cases))]
    m = np.array([muscle[c] for c in cases])
    d = settings.index(DEFAULT) if DEFAULT in settings else None
    print(f"{len(settings)} settings, {len(cases)} triplets (those with a MUSCLE5 output), "
          f"{len(np.unique(fam))} families\n")
    print("| alignment | SPFN | SPFP |")
    print("|---|---:|---:|")
    if d is not None:
        print(f"| default {'/'.join(map(str, DEFAULT))} | {mean[d, 0]:.4f} | {mean[d, 1]:.4f} |")
    print(f"| best single setting {'/'.join(map(str, settings[best]))} | {mean[best, 0]:.4f} | "
          f"{mean[best, 1]:.4f} |")
    print(f"| best setting per family (chosen by the truth) | {per_family[:, 0].mean():.4f} | "
          f"{per_family[:, 1].mean():.4f} |")
    print(f"| best setting per triplet (chosen by the truth) | {per_case[:, 0].mean():.4f} | "
          f"{per_case[:, 1].mean():.4f} |")
    print(f"| MUSCLE5 on the triplet | {m[:, 0].mean():.4f} | {m[:, 1].mean():.4f} |")
    better = (per_case.mean(axis=1) < m.mean(axis=1)).sum()
    print(f"\nthe per-triplet best beats MUSCLE5 on {better} of {len(cases)} triplets "
          f"(by (SPFN + SPFP) / 2); the default on "
          f"{(crit[d] < m.mean(axis=1)).sum() if d is not None else '-'}")
    order = np.argsort(crit.mean(axis=1))[:5]
    print("\nfive best single settings: " + "; ".join(
        f"{'/'.join(map(str, settings[k]))} {mean[k, 0]:.4f} / {mean[k, 1]:.4f}" for k in order))


if __name__ == "__main__":
    main(sys.argv[1:])
