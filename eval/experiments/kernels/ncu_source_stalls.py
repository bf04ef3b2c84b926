"""Where a kernel's warps stall, per SASS instruction, from Nsight Compute's source page.

Reads the CSV that ``ncu --import REPORT --page source --csv --print-source sass``
writes for a report taken with ``--section SourceCounters`` (and prints, for each
file given: the share of the warp-state samples per stall reason and per opcode,
and the instructions that hold the most samples, with their top three reasons).

Usage (the report from a GPU machine; the summary runs anywhere)::

    ncu --kernel-name regex:triplet_score --launch-skip 1 --launch-count 1 \\
        --section WarpStateStats --section SourceCounters -o rep \\
        python eval/experiments/kernels/profile_kernel.py --length 512 --mode global --precision int16
    ncu --import rep.ncu-rep --page source --csv --print-source sass > src.csv
    python eval/experiments/kernels/ncu_source_stalls.py src.csv [--top 25]
"""

from __future__ import annotations

import argparse
import collections
import csv

SAMPLES = "Warp Stall Sampling (All Samples)"


def _opcode(source: str) -> str:
    words = source.split()
    if words and words[0].startswith("@"):
        words = words[1:]
    return words[0].split(".")[0] if words else "?"


def summary(path: str, top: int) -> list[str]:
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    # the first row names the kernel, the second the columns
    head = rows[1]
    col = {h: i for i, h in enumerate(head)}
    reasons = [h for h in head if h.startswith("stall_") and "Not Issued" not in h]
    data = [r for r in rows[2:] if len(r) == len(head)]

    def samples(r, h=SAMPLES):
        return int(r[col[h]] or 0)

    total = sum(samples(r) for r in data) or 1
    by_reason = collections.Counter({h[6:]: sum(samples(r, h) for r in data) for h in reasons})
    by_op = collections.Counter()
    for r in data:
        by_op[_opcode(r[col["Source"]])] += samples(r)
    out = [f"{path}: {total} samples over {len(data)} instructions",
           "  by reason: " + ", ".join(f"{k} {v / total:.3f}" for k, v in by_reason.most_common(10)),
           "  by opcode: " + ", ".join(f"{k} {v / total:.3f}" for k, v in by_op.most_common(12))]
    for r in sorted(data, key=lambda r: -samples(r))[:top]:
        why = sorted(((samples(r, h), h[6:]) for h in reasons), reverse=True)[:3]
        out.append(f"  {r[col['Address']][-5:]} {samples(r) / total:.4f} {r[col['Source']].strip()[:64]:64s} "
                   + ", ".join(f"{n} {c}" for c, n in why if c))
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("csv", nargs="+")
    ap.add_argument("--top", type=int, default=25)
    args = ap.parse_args(argv)
    for path in args.csv:
        print("\n".join(summary(path, args.top)))


if __name__ == "__main__":
    main()
