"""Per-set SPFN/SPFP of two bench_run.py results (tsv) of the trimsa variant: how many
sets differ, and the means. Usage: python compare_tsv.py BEFORE.tsv AFTER.tsv"""
import csv
import sys


def load(path):
    with open(path) as fh:
        return {r["set"]: (float(r["spfn"]), float(r["spfp"]), r["group"])
                for r in csv.DictReader(fh, delimiter="\t") if r["tool"] == "trimsa"}


a, b = load(sys.argv[1]), load(sys.argv[2])
groups = {}
for s in sorted(a):
    if s not in b:
        print(f"{s}: missing after")
        continue
    g = a[s][2]
    groups.setdefault(g, []).append((a[s][:2], b[s][:2]))
    if a[s][:2] != b[s][:2]:
        print(f"{s:40s} before {a[s][0]:.4f}/{a[s][1]:.4f}  after {b[s][0]:.4f}/{b[s][1]:.4f}")
for g, rows in groups.items():
    k = len(rows)
    mb = [sum(r[0][i] for r in rows) / k for i in (0, 1)]
    ma = [sum(r[1][i] for r in rows) / k for i in (0, 1)]
    same = sum(r[0] == r[1] for r in rows)
    print(f"{g:30s} sets {k:3d} same {same:3d}  before {mb[0]:.4f}/{mb[1]:.4f}  after {ma[0]:.4f}/{ma[1]:.4f}")
