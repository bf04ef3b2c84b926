"""How `run` aligns two and three sequences, on the tune triplets only.

    python eval/experiments/2026-11-27-three-sequences/three.py triplets --variants '{}' '{"exact_triplet": "off"}'
    python eval/experiments/2026-11-27-three-sequences/three.py pairs --variants '{}' '{"consistency": 0}' --muscle

``triplets``: each case of the tune triplet groups (``sim/trip-indel``,
``sim2/tune/trip-geo``, ``sim2/tune/trip-pow``, and the 240 triplets drawn from the
``real/tune`` families by ``../2026-11-24-affine-triplets/draw.py``) is aligned by
``Aligner(**variant)``; mean SPFN / SPFP per group. ``pairs``: each of the three pairs of
every such case is aligned alone (two sequences), and scored against the true alignment
projected on the pair; ``--muscle`` adds MUSCLE5 (``muscle -align``, one thread) on the
same pairs. Validate groups are refused, except by ``triplets --report`` (report time
only, after the choice was committed), which also scores the stored peer outputs.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
HARNESS = HERE.parent / "2026-11-24-affine-triplets"
sys.path.insert(0, str(HARNESS))
sys.path.insert(0, str(HERE.parents[2]))

from score import (DEFAULT_PEERS, evaluate_groups, expand_groups,  # noqa: E402
                   group_cases, is_validate, markdown_table, read_records, score)

from trimsa.progressive import Aligner  # noqa: E402


def rows_in_order(result, records) -> list:
    rows = {r.id: str(r.seq) for r in result.alignment}
    return [rows[n.split()[0]] for n, _ in records]


def trimsa_aligner(options: dict):
    aligner = Aligner(threads=1, device="cpu", **options)
    return lambda records: rows_in_order(aligner.align(records), records)


def muscle(records) -> list:
    with tempfile.TemporaryDirectory() as d:
        inp, out = os.path.join(d, "in.fa"), os.path.join(d, "out.fa")
        with open(inp, "w") as fh:
            fh.writelines(f">{n}\n{s}\n" for n, s in records)
        subprocess.run(["muscle", "-align", inp, "-output", out, "-threads", "1"], check=True,
                       capture_output=True)
        rows = {n.split()[0]: s for n, s in read_records(out)}
    return [rows[n.split()[0]] for n, _ in records]


def project(rows, keep_rows) -> list:
    sub = [rows[i] for i in keep_rows]
    cols = [c for c in range(len(sub[0])) if any(r[c] != "-" for r in sub)]
    return ["".join(r[c] for c in cols) for r in sub]


def pair_scores(cases, aligners: dict) -> dict:
    out = {name: [] for name in aligners}
    for case in cases:
        recs = read_records(case / "input.fa")
        true = {n.split()[0]: s for n, s in read_records(case / "true.fa")}
        for idx in ((0, 1), (0, 2), (1, 2)):
            pr = [recs[i] for i in idx]
            names = [n.split()[0] for n, _ in pr]
            ref = list(zip(names, project([true[n] for n in names], (0, 1))))
            for name, align in aligners.items():
                s = score(ref, list(zip(names, align(pr))))
                out[name].append((s.spfn, s.spfp))
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", choices=("triplets", "pairs"))
    ap.add_argument("--variants", nargs="+", default=["{}"])
    ap.add_argument("--groups", nargs="+", default=["tune"])
    ap.add_argument("--muscle", action="store_true")
    ap.add_argument("--report", action="store_true",
                    help="triplets only: allow validate groups and score the stored peers")
    args = ap.parse_args(argv)
    names = expand_groups(args.groups)
    if any(is_validate(g) for g in names) and not (args.report and args.what == "triplets"):
        ap.error("tune groups only (validate: triplets --report, at report time)")
    groups = {g: c for g in names if (c := group_cases(g))}
    if args.what == "triplets":
        for spec in args.variants:
            t = time.time()
            res = evaluate_groups(groups, aligner=trimsa_aligner(json.loads(spec)),
                                  peers=DEFAULT_PEERS if args.report else ())
            print(f"## Aligner(**{spec}), {time.time() - t:.1f} s\n\n{markdown_table(res)}\n",
                  flush=True)
        return 0
    aligners = {f"trimsa {spec}": trimsa_aligner(json.loads(spec)) for spec in args.variants}
    if args.muscle:
        aligners["muscle"] = muscle
    print("| group | pairs | " + " | ".join(aligners) + " |")
    print("|---|---:|" + "---|" * len(aligners))
    for g, cases in groups.items():
        res = pair_scores(cases, aligners)
        cells = [f"{m[0]:.4f} / {m[1]:.4f}" for m in (np.mean(res[k], axis=0) for k in aligners)]
        print(f"| {g} | {len(res[next(iter(aligners))])} | " + " | ".join(cells) + " |",
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
