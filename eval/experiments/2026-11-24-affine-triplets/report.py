"""Report on the validate groups: exact affine (the setting chosen on tune) and exact
linear (the current default) next to the stored and re-run peers.

    python eval/experiments/2026-11-24-affine-triplets/report.py --affine 3:1 --out validate.md

Run once, after the choice on tune (tune_sweep.md); nothing here feeds back into it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[2]))

from score import (DEFAULT_PEERS, evaluate_groups, expand_groups, group_cases,  # noqa: E402
                   markdown_table)
from sweep import trimsa_aligner  # noqa: E402


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--affine", required=True, help="O:E of the setting chosen on tune")
    ap.add_argument("--groups", nargs="+", default=["validate"])
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args(argv)
    go, ge = (-abs(int(x)) for x in args.affine.split(":"))
    groups = {g: c for g in expand_groups(args.groups) if (c := group_cases(g))}
    aff = evaluate_groups(groups, aligner=trimsa_aligner(go, ge), peers=DEFAULT_PEERS)
    lin = evaluate_groups(groups, aligner=trimsa_aligner(0, -3), peers=())
    for g in aff:   # one table: the linear run as a second method
        aff[g].per_case["trimsa-linear"] = lin[g].per_case["trimsa"]
        aff[g].per_case[f"trimsa-affine({go},{ge})"] = aff[g].per_case.pop("trimsa")
    text = markdown_table(aff) + "\nTC:\n\n" + markdown_table(aff, ("tc",))
    print(text)
    args.out.write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
