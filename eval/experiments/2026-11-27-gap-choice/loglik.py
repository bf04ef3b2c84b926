"""Does the pair HMM's likelihood tell which gap probabilities align a set better? (tune)

    python eval/experiments/2026-11-27-gap-choice/loglik.py [--pairs 40] > loglik.log

For every family of ``real/tune`` and every msa set of ``sim2/tune`` with N <= 256, up to
``--pairs`` random pairs (seed 0) get their forward log-likelihood under the package's
five-state pair HMM (trained emissions) with the estimated gaps and with MUSCLE5's
(``../2026-11-27-muscle-hmm``), over the whole DP table. Printed per set: the mean
log-likelihood difference per residue (MUSCLE5's minus estimated) next to the
difference in SPFN + SPFP of ``run`` under the two (``run2.default.tsv`` against
``package.tsv`` of that experiment).
"""

from __future__ import annotations

import argparse
import csv
import math
import sys
from pathlib import Path

import numpy as np
from numba import njit

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
sys.path.insert(0, str(ROOT / "eval"))

from trimsa.progressive import pair_hmm  # noqa: E402

ESTIMATED = np.array([0.015019, 0.493975, 0.014020, 0.883883])
MUSCLE = np.array([0.012, 0.35, 0.008, 0.90])


@njit(cache=True)
def forward_loglik(a, b, odds, gaps):
    """log P(a, b) under the five-state HMM of ``_cpu.posterior_slots`` (start as a
    match, free end), over odds (so in nats relative to the background model)."""
    d1, e1, d2, e2 = gaps[0], gaps[1], gaps[2], gaps[3]
    mm = 1.0 - 2.0 * d1 - 2.0 * d2
    la, lb = a.size, b.size
    M = np.zeros(lb + 1)
    X = np.zeros(lb + 1)
    Y = np.zeros(lb + 1)
    U = np.zeros(lb + 1)
    V = np.zeros(lb + 1)
    M[0] = 1.0
    for j in range(1, lb + 1):
        Y[j] = d1 * M[j - 1] + e1 * Y[j - 1]
        V[j] = d2 * M[j - 1] + e2 * V[j - 1]
    logs = 0.0
    for i in range(1, la + 1):
        pM, pX, pY, pU, pV = M.copy(), X.copy(), Y.copy(), U.copy(), V.copy()
        M[0] = 0.0
        Y[0] = 0.0
        V[0] = 0.0
        X[0] = d1 * pM[0] + e1 * pX[0]
        U[0] = d2 * pM[0] + e2 * pU[0]
        top = max(X[0], U[0])
        for j in range(1, lb + 1):
            M[j] = odds[a[i - 1], b[j - 1]] * (mm * pM[j - 1] + (1 - e1) * (pX[j - 1] + pY[j - 1])
                                               + (1 - e2) * (pU[j - 1] + pV[j - 1]))
            X[j] = d1 * pM[j] + e1 * pX[j]
            U[j] = d2 * pM[j] + e2 * pU[j]
            Y[j] = d1 * M[j - 1] + e1 * Y[j - 1]
            V[j] = d2 * M[j - 1] + e2 * V[j - 1]
            top = max(top, M[j], X[j], Y[j], U[j], V[j])
        M /= top
        X /= top
        Y /= top
        U /= top
        V /= top
        logs += math.log(top)
    return logs + math.log(M[lb] + X[lb] + Y[lb] + U[lb] + V[lb])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pairs", type=int, default=40)
    args = ap.parse_args()
    from bench_run import DATA, data_sets

    odds = pair_hmm.dna_odds()
    exp = HERE.parent / "2026-11-27-muscle-hmm"

    def load(f):
        return {r[1]: float(r[4]) + float(r[5]) for r in csv.reader(open(f), delimiter="\t")
                if len(r) > 5 and r[0] != "group"}

    est_err, mus_err = load(exp / "run2.default.tsv"), load(exp / "package.tsv")
    rows = []
    for split in ("tune",):
        for folder, _inp, _ref, seqs in data_sets(split, 256, DATA):
            if folder.name not in est_err:
                continue
            assert seqs.alphabet.name == "dna"
            codes = [seqs.codes[seqs.offsets[i]:seqs.offsets[i + 1]].astype(np.int64)
                     for i in range(len(seqs))]
            n = len(codes)
            rng = np.random.default_rng(0)
            pairs = [(s, t) for s in range(n) for t in range(s + 1, n)]
            if len(pairs) > args.pairs:
                pairs = [pairs[k] for k in rng.choice(len(pairs), args.pairs, replace=False)]
            dl = 0.0
            res = 0
            for s, t in pairs:
                dl += (forward_loglik(codes[s], codes[t], odds, MUSCLE)
                       - forward_loglik(codes[s], codes[t], odds, ESTIMATED))
                res += codes[s].size + codes[t].size
            group = "real" if folder.name.startswith("rfam") else "sim2"
            rows.append((group, folder.name, dl / res, mus_err[folder.name] - est_err[folder.name]))
            print(f"{group:5s} {folder.name:38s} dloglik/res {dl / res:+.5f}  "
                  f"d(SPFN+SPFP) {rows[-1][3]:+.4f}", flush=True)
    x = np.array([r[2] for r in rows])
    y = np.array([r[3] for r in rows])
    agree = np.mean((x > 0) == (y < 0))
    print(f"\nsets {len(rows)}; the likelihood prefers MUSCLE5's gaps on {np.sum(x > 0)}; "
          f"MUSCLE5's gaps align better on {np.sum(y < 0)}; the two agree on {agree:.2f}")
    for g in ("real", "sim2"):
        sel = [r for r in rows if r[0] == g]
        print(g, "likelihood prefers MUSCLE5's on", sum(r[2] > 0 for r in sel), "of", len(sel))


if __name__ == "__main__":
    main()
