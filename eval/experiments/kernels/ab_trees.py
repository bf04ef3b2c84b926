"""A/B timing of whole source trees: the same batches, each tree in its own process, interleaved (GPU).

Where ``eval/experiments/kernels/proxy_kernels.py`` derives its variants from this tree by text edits, this
times trees you made yourself: a copy of an earlier commit (``git archive``) beside the
working tree, or copies with an edit each. Each ``NAME=ROOT`` names a directory holding
``trimsa/`` and ``eval/bench_kernels.py``; the batches are ``bench_kernels``' (equal
lengths, and ``--shapes`` of unequal ones). The table keeps each tree's best of
``--passes`` and gives ratios to the first tree. Compare ratios within one run.

Usage::

    mkdir -p /tmp/base && git archive HEAD trimsa eval | tar -x -C /tmp/base
    python eval/experiments/kernels/ab_trees.py base=/tmp/base new=. --lengths 32,64,128 --shapes 2048x32x64 \
        --modes global --precisions int16,int32
"""

from __future__ import annotations

import argparse
import datetime
import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from proxy_kernels import ratio_table  # noqa: E402

def child(root, lengths, shapes, modes, precs, cells):
    """Time the batches with the tree at ``root`` (in a fresh process); one ``ROW`` line each."""
    sys.path.insert(0, str(root))
    sys.path.insert(0, str(root / "eval"))
    import bench_kernels as bk
    import numpy as np
    from trimsa.scoring import Scoring
    from trimsa.triplet import _gpu

    sc = Scoring.dna()
    cases = [("eq", (L, L, L)) for L in lengths] + [("sh", tuple(int(x) for x in s.split("x"))) for s in shapes]
    for kind, (la, lb, lc) in cases:
        rng = np.random.default_rng(7)
        if kind == "eq":
            seqs, trip = bk.equal_lengths(rng, la, cells)
        else:
            seqs, trip = bk.unequal_lengths(rng, la, lb, lc, cells)
        for mode in modes:
            for prec in precs:
                batch = _gpu.Batch(seqs, trip, bk.MODES.index(mode), sc, prec)
                t = bk.time_batch(batch, 5)
                inf = batch.info[0]
                print("ROW " + json.dumps([f"{la}x{lb}x{lc}", mode, prec, trip.shape[0] * la * lb * lc / t / 1e12,
                                           inf["regs"], inf["local_bytes"], list(inf["shape"]), bool(inf.get("stage")),
                                           bool(inf.get("profile"))]), flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("trees", nargs="*", help="NAME=ROOT, the first is the reference")
    ap.add_argument("--lengths", default="32,64,128")
    ap.add_argument("--shapes", default="")
    ap.add_argument("--modes", default="global")
    ap.add_argument("--precisions", default="int16,int32")
    ap.add_argument("--cells", type=float, default=3e10)
    ap.add_argument("--passes", type=int, default=2)
    ap.add_argument("--out", type=Path, help="markdown file for the table")
    ap.add_argument("--child", default="", help=argparse.SUPPRESS)
    a = ap.parse_args()
    L = [int(x) for x in a.lengths.split(",") if x]
    S = [s for s in a.shapes.split(",") if s]
    M, P = a.modes.split(","), a.precisions.split(",")
    if a.child:
        child(Path(a.child), L, S, M, P, a.cells)
        return
    if not a.trees or any("=" not in t for t in a.trees):
        ap.error("give the trees as NAME=ROOT")
    trees = [t.split("=", 1) for t in a.trees]
    best, info = {}, {}
    for ps in range(a.passes):
        for name, root in trees:
            cmd = [sys.executable, __file__, "--child", str(Path(root).resolve()), "--lengths", a.lengths,
                   "--shapes", a.shapes, "--modes", a.modes, "--precisions", a.precisions, "--cells", str(a.cells)]
            out = subprocess.run(cmd, capture_output=True, text=True)
            if out.returncode:
                sys.exit(f"ab_trees: tree {name} failed:\n{out.stderr[-3000:]}")
            for line in out.stdout.splitlines():
                if line.startswith("ROW "):
                    shape, mode, prec, tc, regs, lb, cfg, st, pf = json.loads(line[4:])
                    k = (shape, mode, prec, name)
                    best[k] = max(best.get(k, 0), tc)
                    info[k] = f"{regs}r {lb}B {'x'.join(map(str, cfg))} st{int(st)} pf{int(pf)}"
                    print(f"pass {ps + 1} {name:10s} {shape:12s} {mode:10s} {prec} {tc:.3f}", flush=True)
    shapes = [f"{x}x{x}x{x}" for x in L] + S
    lines = ratio_table(best, [(sh, m, pr) for sh in shapes for m in M for pr in P], [n for n, _ in trees], "shape")
    lines += ["", "Launches (registers, local bytes, configuration TJxTKxPxQ, staged, A-residue profile):", ""]
    lines += [f"- {k[3]} {k[0]} {k[1]} {k[2]}: {info[k]}" for k in sorted(info)]
    print("\n" + "\n".join(lines))
    if a.out:
        import cupy

        gpu = cupy.cuda.runtime.getDeviceProperties(0)["name"].decode()
        head = (f"<!-- {gpu}, {datetime.date.today()}; command: python eval/experiments/kernels/ab_trees.py {' '.join(sys.argv[1:])}; "
                f"TCUPS, best of {a.passes} passes, ratios against the first tree -->\n")
        a.out.write_text(head + "\n".join(lines) + "\n")

if __name__ == "__main__":
    main()
