"""Check the banded affine 3-way tracebacks (GPU against CPU), then time both.

One command::

    python eval/bench_band.py [--quick] [--out FILE]

1. Correctness: random bands (around random pairwise paths, half-widths 0..40, and
   bands that keep the whole cube) on random DNA (all 15 IUPAC codes) and protein
   triplets of mixed lengths, three gap models: the GPU's alignments
   (``align_triplets(..., bands=..., device="gpu")``) must equal the CPU's, row for
   row; any difference stops the run with status 1.
2. Rates: triplets of related DNA sequences (a root of length L, 15% substitutions,
   a few short indels) in bands of half-width w around the main diagonal
   (``jlo..jhi = i |b| / |a| -+ w``), cells = the bands' cells: the GPU kernels alone
   (``_gpu_affine.align_banded``), and ``triplet.api.align_banded`` (the arrays behind
   ``align_triplets(..., bands=...)``: the checks of the bands and the rescoring of
   every alignment included) on the GPU and on all CPU cores, in cells per second,
   with their GPU/CPU ratio. The full cube's cells are given beside.

Prints a markdown table and writes it to ``--out`` (default
``eval/results/bench_band_h100.md``; ``--out ''`` writes nothing).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
RESULT = Path(__file__).resolve().parent / "results" / "bench_band_h100.md"

import trimsa  # noqa: E402
from trimsa.io import as_sequence_set  # noqa: E402
from trimsa.scoring import Scoring  # noqa: E402
from bench_affine import header, timed, traceback_cases  # noqa: E402


def _path_band(rng, la, lb, width):
    """Per layer of a random pairwise path, the columns it visits widened by ``width``."""
    i = j = 0
    lo = np.full(la + 1, lb, np.int64)
    hi = np.zeros(la + 1, np.int64)
    lo[0] = 0
    while i < la or j < lb:
        m = int(rng.choice([x for x, ok in ((1, i < la), (2, j < lb), (3, i < la and j < lb))
                            if ok]))
        i += m & 1
        j += m >> 1
        lo[i] = min(lo[i], j)
        hi[i] = max(hi[i], j)
    return np.maximum(lo - width, 0), np.minimum(hi + width, lb)


def random_bands(rng, seqs, trip, widths):
    out = []
    for t in trip:
        la, lb, lc = (int(seqs.lengths[x]) for x in t)
        w = int(rng.choice(widths))
        if w < 0:
            out.append(np.array([[0, lb, 0, lc]] * (la + 1), np.int64))
            continue
        jl, jh = _path_band(rng, la, lb, w)
        kl, kh = _path_band(rng, la, lc, w)
        out.append(np.stack([jl, jh, kl, kh], axis=1))
    return out


def diagonal_band(la, lb, lc, w):
    i = np.arange(la + 1)
    jc = (2 * i * lb + la) // (2 * la)
    kc = (2 * i * lc + la) // (2 * la)
    return np.stack([np.maximum(jc - w, 0), np.minimum(jc + w, lb),
                     np.maximum(kc - w, 0), np.minimum(kc + w, lc)], axis=1)


def band_cells(bands):
    return float(sum(((b[:, 1] - b[:, 0] + 1) * (b[:, 3] - b[:, 2] + 1)).sum() for b in bands))


def correctness(rng, quick):
    rows = []
    n = 150 if quick else 500
    cases = traceback_cases(rng, 300, 200)
    bad = 0
    for label, seqs, scs in cases:
        trip = rng.integers(0, len(seqs), (n, 3))
        for sc in scs:
            bands = random_bands(rng, seqs, trip, [-1, 0, 1, 2, 4, 8, 16, 40])
            gpu = trimsa.align_triplets(seqs, trip, scoring=sc, bands=bands, device="gpu")
            cpu = trimsa.align_triplets(seqs, trip, scoring=sc, bands=bands, device="cpu")
            wrong = sum((g.rows, g.score) != (c.rows, c.score) for g, c in zip(gpu, cpu))
            bad += wrong
            rows.append(f"| {label} | {sc.gap_open}/{sc.gap_extend} | {n} | {wrong} |")
    return rows, bad


def related(rng, n, L):
    """``n`` sequences from one random root of length ``L``: 15% substitutions and a few
    indels of 1-6 residues."""
    letters = np.array(list("ACGT"))
    root = rng.integers(0, 4, L)
    out = []
    for q in range(n):
        s = root.copy()
        sub = rng.random(L) < 0.15
        s[sub] = rng.integers(0, 4, int(sub.sum()))
        s = list(s)
        for _ in range(int(rng.integers(0, 4))):
            p = int(rng.integers(0, len(s)))
            k = int(rng.integers(1, 7))
            if rng.random() < 0.5:
                del s[p:p + k]
            else:
                s[p:p] = list(rng.integers(0, 4, k))
        out.append((f"s{q}", "".join(letters[s])))
    return as_sequence_set(out)


def rates(rng, quick):
    from trimsa import _numba
    from trimsa.triplet import _checks, _gpu_affine
    from trimsa.triplet.api import align_banded

    threads = _numba.set_threads(0)
    rows = []
    sc = Scoring.dna(gap_open=-3, gap_extend=-1)
    for L in ((200, 400) if quick else (200, 400, 800)):
        for w in (8, 16, 32):
            T = int(min(10_000, (5e9 if not quick else 1e9) / (L * (2 * w + 1) ** 2)))
            seqs = related(rng, 3 * T, L)
            trip = np.arange(3 * T).reshape(T, 3)
            bands = [diagonal_band(*(int(seqs.lengths[x]) for x in t), w) for t in trip]
            c = band_cells(bands)
            cube = float(np.prod(seqs.lengths[trip].astype(np.float64) + 1, axis=1).sum())
            b_rows, b_off = _checks.check_bands(bands, trip.astype(np.int32), seqs.lengths)
            tk = timed(lambda: _gpu_affine.align_banded(seqs, trip.astype(np.int32), b_rows,
                                                        b_off, sc), 1)
            tg = timed(lambda: align_banded(seqs, trip, bands, sc, threads, "gpu"), 1)
            Tc = max(64, T // 20)
            tc = timed(lambda: align_banded(seqs, trip[:Tc], bands[:Tc], sc, threads, "cpu"), 1)
            cc = band_cells(bands[:Tc])
            rows.append(f"| {L} | {w} | {T} | {c / T:.3g} | {cube / T:.3g} | {c / tk:.3e} | "
                        f"{c / tg:.3e} | {cc / tc:.3e} | {(c / tg) / (cc / tc):.1f} |")
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--out", default=str(RESULT))
    args = ap.parse_args(argv)
    rng = np.random.default_rng(2026_11_27)
    lines = header("Banded affine 3-way tracebacks", "bench_band.py", argv)
    rows, bad = correctness(rng, args.quick)
    lines += ["## GPU alignments == CPU alignments (random bands, fresh random inputs)", "",
              "| case | gap open/extend | triplets | different |", "|---|---|---:|---:|"]
    lines += rows
    print("\n".join(lines), flush=True)
    if bad:
        print(f"FAILED: {bad} GPU alignments differ from the CPU", file=sys.stderr)
        return 1
    r = ["", "## Rates (affine -3/-1, DNA, global; cells per second of the bands' cells)", "",
         "| L | w | triplets | band cells per triplet | cube cells per triplet | GPU kernels | "
         "GPU API | CPU API (all cores) | GPU/CPU |", "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    r += rates(rng, args.quick)
    print("\n".join(r), flush=True)
    if args.out:
        Path(args.out).write_text("\n".join(lines + r) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
