"""Record what `trimsa` writes on the shared data sets, to compare two source trees.

Usage::

    python equivalence.py ROOT OUTDIR [--data ../shared/data] [--only GLOB]

Runs ``python -m trimsa ...`` with ``PYTHONPATH=ROOT`` (so ROOT's package is the
one that runs) for every case below and stores each output file and the command's
stderr under OUTDIR. Two OUTDIRs are then compared with ``diff -r``.

Cases (options as the command line of the tree under test takes them):

* ``run`` with its defaults on every msa set of ``sim/`` and ``sim2/tune`` and
  every family of ``real/tune`` (alignment and ``--tree-out``);
* ``run --method nj`` on the small sets;
* ``run --format F`` for every other output format on the bundled example;
* ``tree`` (NJ and UPGMA, sampled designs, fixed 10 s budget; all exact triplets
  on the 16-sequence sets);
* ``triplets`` (all three modes) and ``align3`` (all three modes) on every
  triplet set of ``sim/`` and ``sim2/tune``; ``run`` on the triplet sets.
"""

from __future__ import annotations

import argparse
import fnmatch
import os
import subprocess
import sys
import time
from pathlib import Path


def find(folder: Path, name: str) -> Path:
    for cand in (folder / f"{name}.fa", folder / f"{name}.fa.gz"):
        if cand.exists():
            return cand
    raise FileNotFoundError(folder / name)


def cases(data: Path, example: Path):
    msa = sorted(data.glob("sim/msa-*")) + sorted(data.glob("sim2/tune/msa-*"))
    real = sorted(data.glob("real/tune/*"))
    trips = sorted(data.glob("sim/trip-*")) + sorted(data.glob("sim2/tune/trip-*"))
    for d in msa + real:
        tag = f"{d.parent.name}-{d.name}"
        yield f"run-{tag}", ["run", find(d, "input"), "-o", "{out}/aln.fa", "--tree-out",
                             "{out}/tree.nwk", "-q"]
    small = [d for d in msa + real if any(s in d.name for s in ("N16-", "N21", "N64-h0.5", "N48-h0.7"))]
    for d in small:
        tag = f"{d.parent.name}-{d.name}"
        yield f"runnj-{tag}", ["run", find(d, "input"), "-o", "{out}/aln.fa", "--tree-out",
                               "{out}/tree.nwk", "-q", "--method", "nj"]
    for fmt in ("clustal", "phylip", "stockholm", "nexus"):
        yield f"runfmt-{fmt}", ["run", example, "-o", "{out}/aln", "--format", fmt, "-q"]
    for d in msa:
        if any(s in d.name for s in ("N1000", "N3000", "N384", "N256")):
            continue
        tag = f"{d.parent.name}-{d.name}"
        for method in ("nj", "upgma"):
            yield f"tree-{method}-{tag}", ["tree", find(d, "input"), "-o", "{out}/tree.nwk",
                                           "--method", method, "--time-budget", "10",
                                           "--triplets", "sampled", "-v"]
        if "N16-" in d.name:
            yield f"treeall-{tag}", ["tree", find(d, "input"), "-o", "{out}/tree.nwk",
                                     "--band", "exact", "--triplets", "all", "-v"]
    for d in trips:
        tag = f"{d.parent.name}-{d.name}"
        for mode in ("global", "semiglobal", "local"):
            yield f"triplets-{mode}-{tag}", ["triplets", find(d, "input"), "-o",
                                             "{out}/scores.tsv", "--mode", mode]
            yield f"align3-{mode}-{tag}", ["align3", find(d, "input"), "-o", "{out}/aln.fa",
                                           "--mode", mode]
        yield f"run-{tag}", ["run", find(d, "input"), "-o", "{out}/aln.fa", "-q"]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("root", type=Path)
    ap.add_argument("outdir", type=Path)
    ap.add_argument("--data", type=Path, default=Path(__file__).resolve().parents[3] / ".." / "shared" / "data")
    ap.add_argument("--only", default="*")
    args = ap.parse_args(argv)
    root = args.root.resolve()
    env = dict(os.environ, PYTHONPATH=str(root))
    example = root / "examples" / "data" / "input.fa"
    for name, argv_ in cases(args.data.resolve(), example):
        if not fnmatch.fnmatch(name, args.only):
            continue
        out = args.outdir / name
        out.mkdir(parents=True, exist_ok=True)
        cmd = [sys.executable, "-m", "trimsa"] + [str(a).replace("{out}", str(out)) for a in argv_]
        t = time.perf_counter()
        p = subprocess.run(cmd, cwd=root, env=env, capture_output=True, text=True)
        (out / "stderr.txt").write_text(p.stderr)
        (out / "rc.txt").write_text(f"{p.returncode}\n")
        print(f"{name}: rc {p.returncode} {time.perf_counter() - t:.1f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
