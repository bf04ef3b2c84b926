"""Check the affine 3-way kernels (GPU against CPU), then time them.

One command::

    python eval/bench_affine.py [--quick] [--fasta FILE ...] [--out FILE]

1. Correctness: random DNA (all 15 IUPAC codes) and protein (BLOSUM62) batches of
   mixed lengths, every mode, three gap models: GPU scores must equal
   ``_affine.score_batch`` (CPU). Any mismatch stops the run with status 1.
2. GPU throughput: TCUPS (cells / seconds / 1e12, cells = la*lb*lc) of the
   affine score kernel per length 32..1024 and mode, for batches of
   equal-length random DNA triplets, with the linear kernel on the same
   batches beside it (same run); then the length mixes of real FASTA files
   (``--fasta``: random triplets of their records). Wall time of
   ``score_triplets`` after one warm-up, median of repeats.
3. Register-only ceiling: a kernel that runs the affine cell (the same
   ``exports`` function) on values held in registers, no memory and no
   shuffles; its cells per second bound what any layout of this recurrence
   reaches in 32 bits on this GPU.
4. Tracebacks: GPU alignments (``align_triplets(device="gpu")``) must equal the
   CPU's on fresh random DNA and protein triplets in every mode (any difference
   stops the run with status 1); then GPU traceback TCUPS per length 32..160
   (cubes that fit ``_affine.CUBE_CELLS``), of the kernels alone
   (``_gpu_affine.align_triplets``) and of the API (with the rescoring of every
   alignment and the rows), next to score-only TCUPS of the same batch.
5. Global tracebacks beyond ``_affine.CUBE_CELLS`` (L = 200..600): the divide and
   conquer with its splits and cubes on the GPU must give the CPU's alignments (on an
   eighth of the triplets); cells of the cube per second of the API on both, and of
   the GPU's score-only run of the same triplets (``--only-dc``: this section alone,
   printed).
6. CPU: affine and linear score rates on all cores, and the affine traceback
   rate (``align_triplets``), in cells per second.

7. With ``--ncu``: thread instructions per cell of the score kernel (one
   batch at L = 128) and of the ceiling kernel, counted by Nsight Compute
   (``smsp__thread_inst_executed.sum``) on a second run of this script.

Prints a markdown table and writes it to ``--out`` (default
``eval/results/bench_affine.md``; ``--out ''`` writes nothing).
"""

from __future__ import annotations

import argparse
import datetime
import platform
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
RESULT = Path(__file__).resolve().parent / "results" / "bench_affine.md"

import trimsa  # noqa: E402
from trimsa import alphabet as _alphabet  # noqa: E402
from trimsa.io import as_sequence_set, read_sequences  # noqa: E402
from trimsa.scoring import MODES, Scoring  # noqa: E402
from trimsa.triplet import _affine  # noqa: E402
from tests.fakes import random_set  # noqa: E402

GAPS = ((-3, -1), (-1, -2), (-8, -1))
CEILING = r"""
template <int NC>
__global__ void affine_ceiling(int iters, int go, int ge, int* out) {
    int X[NC][NSTATE];
#pragma unroll
    for (int c = 0; c < NC; ++c)
#pragma unroll
        for (int s = 0; s < NSTATE; ++s) X[c][s] = (threadIdx.x * 7 + c * 13 + s * 5) & 63;
    const int e2 = 2 * ge;
    const int sub = (threadIdx.x & 3) - 1;
    for (int it = 0; it < iters; ++it) {
#pragma unroll
        for (int c = 0; c < NC; ++c) {
            const int* P = X[(c + 1) % NC];
            const int* Q = X[(c + 2) % NC];
            int S[NSTATE];
            S[0] = P[0] + sub + sub + sub;
            S[1] = P[3] + sub + e2;
            S[2] = Q[2] + sub + e2;
            S[3] = Q[1] + sub + e2;
            S[4] = X[c][4] + e2; S[5] = X[c][5] + e2; S[6] = X[c][6] + e2;
            S[7] = P[7] + e2; S[8] = P[8] + e2; S[9] = P[9] + e2;
            S[10] = Q[10] + e2; S[11] = Q[11] + e2; S[12] = Q[12] + e2;
            exports(S, go, X[c]);
        }
    }
    int acc = 0;
#pragma unroll
    for (int c = 0; c < NC; ++c)
#pragma unroll
        for (int s = 0; s < NSTATE; ++s) acc ^= X[c][s];
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}
"""


def cpu_affine(seqs, trip, mode, sc):
    out = np.empty(len(trip), dtype=np.int64)
    _affine.score_batch(seqs.codes, seqs.offsets, np.ascontiguousarray(trip, np.int32), sc.table,
                        np.int32(sc.gap_open), np.int32(sc.gap_extend), mode, out, 64)
    return out


def cells(seqs, trip):
    L = seqs.lengths[np.asarray(trip)].astype(np.float64)
    return float(np.prod(L, axis=1).sum())


def timed(fn, repeats):
    fn()
    ts = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts)


def correctness(rng, quick):
    rows = []
    n = 300 if quick else 1000
    dna = random_set(rng, rng.integers(1, 301, 40), _alphabet.DNA, k=15)
    prot = random_set(rng, rng.integers(1, 201, 30), _alphabet.PROTEIN, k=24)
    cases = [("dna mixed 1..300", dna, Scoring.dna(gap_open=go, gap_extend=ge)) for go, ge in GAPS]
    cases.append(("protein BLOSUM62 1..200", prot, Scoring.protein(gap_open=-10, gap_extend=-1)))
    bad = 0
    for label, seqs, sc in cases:
        trip = rng.integers(0, len(seqs), (n, 3)).astype(np.int32)
        for m, mode in enumerate(MODES):
            gpu = trimsa.score_triplets(seqs, trip, mode=mode, scoring=sc, device="gpu")
            wrong = int((gpu != cpu_affine(seqs, trip, m, sc)).sum())
            bad += wrong
            rows.append(f"| {label} | {sc.gap_open}/{sc.gap_extend} | {mode} | {n} | {wrong} |")
    return rows, bad


def gpu_rates(rng, quick, fastas):
    rows = []
    lengths = (32, 64, 128, 256, 512) if quick else (32, 64, 128, 256, 512, 1024)
    aff = Scoring.dna(gap_open=-3, gap_extend=-1)
    lin = Scoring.dna(gap=-3)
    target = 3e10 if quick else 1e11
    for L in lengths:
        T = int(max(64, min(200_000, target / L**3)))
        seqs = random_set(rng, np.full(3 * T, L), _alphabet.DNA)
        trip = np.arange(3 * T, dtype=np.int32).reshape(T, 3)
        c = cells(seqs, trip)
        for mode in (MODES if L == 256 else ("global",)):
            ta = timed(lambda: trimsa.score_triplets(seqs, trip, mode=mode, scoring=aff,
                                                     device="gpu"), 1 if quick else 3)
            tl = timed(lambda: trimsa.score_triplets(seqs, trip, mode=mode, scoring=lin,
                                                     device="gpu"), 1 if quick else 3)
            rows.append(f"| {L} | {mode} | {T} | {c / ta / 1e12:.4f} | {c / tl / 1e12:.4f} | "
                        f"{tl / ta:.3f} |")
    for path in fastas:
        seqs = read_sequences(path)
        T = 20_000 if not quick else 2_000
        trip = rng.integers(0, len(seqs), (T, 3)).astype(np.int32)
        c = cells(seqs, trip)
        ta = timed(lambda: trimsa.score_triplets(seqs, trip, scoring=aff, device="gpu"), 1)
        tl = timed(lambda: trimsa.score_triplets(seqs, trip, scoring=lin, device="gpu"), 1)
        rows.append(f"| mix of {Path(path).parent.name} (mean {seqs.lengths.mean():.0f}) | global | "
                    f"{T} | {c / ta / 1e12:.4f} | {c / tl / 1e12:.4f} | {tl / ta:.3f} |")
    return rows


def _strings(rng, n, lengths, letters, alphabet="dna"):
    letters = np.array(list(letters))
    return as_sequence_set([(f"s{q}", "".join(letters[rng.integers(0, len(letters), int(L))]))
                            for q, L in zip(range(n), lengths)], alphabet)


def traceback_cases(rng, dna_max, protein_max):
    """``(label, sequences, scorings)``: random DNA (every IUPAC code) of lengths
    1..``dna_max`` under :data:`GAPS`, and protein of lengths 1..``protein_max``."""
    return [(f"dna IUPAC 1..{dna_max}",
             _strings(rng, 40, rng.integers(1, dna_max + 1, 40), "ACGTRYSWKMBDHVN"),
             [Scoring.dna(gap_open=go, gap_extend=ge) for go, ge in GAPS]),
            (f"protein BLOSUM62 1..{protein_max}",
             _strings(rng, 30, rng.integers(1, protein_max + 1, 30), "ACDEFGHIKLMNPQRSTVWY",
                      "protein"),
             [Scoring.protein(gap_open=-10, gap_extend=-1)])]


def traceback_correctness(rng, quick):
    rows = []
    n = 200 if quick else 600
    cases = traceback_cases(rng, 160, 120)
    bad = 0
    for label, seqs, scs in cases:
        trip = rng.integers(0, len(seqs), (n, 3))
        for sc in scs:
            for mode in MODES:
                gpu = trimsa.align_triplets(seqs, trip, mode=mode, scoring=sc, device="gpu")
                cpu = trimsa.align_triplets(seqs, trip, mode=mode, scoring=sc, device="cpu")
                wrong = sum((g.rows, g.score, g.core) != (c.rows, c.score, c.core)
                            for g, c in zip(gpu, cpu))
                bad += wrong
                rows.append(f"| {label} | {sc.gap_open}/{sc.gap_extend} | {mode} | {n} | "
                            f"{wrong} |")
    return rows, bad


def traceback_rates(rng, quick):
    from trimsa.triplet import _gpu_affine

    rows = []
    aff = Scoring.dna(gap_open=-3, gap_extend=-1)
    target = 4e9 if quick else 2e10
    for L in (32, 64, 96, 128, 160):
        T = int(max(64, min(100_000, target / L**3)))
        seqs = _strings(rng, 3 * T, np.full(3 * T, L), "ACGT")
        trip = np.arange(3 * T, dtype=np.int32).reshape(T, 3)
        c = cells(seqs, trip)
        tk = timed(lambda: _gpu_affine.align_triplets(seqs, trip, 0, aff), 1)
        tapi = timed(lambda: trimsa.align_triplets(seqs, trip, scoring=aff, device="gpu"), 1)
        ts = timed(lambda: trimsa.score_triplets(seqs, trip, scoring=aff, device="gpu"), 1)
        rows.append(f"| {L} | {T} | {c / tk / 1e12:.4f} | {c / tapi / 1e12:.4f} | "
                    f"{c / ts / 1e12:.4f} | {ts / tk:.2f} |")
    return rows


DC_HEAD = ["", "## GPU tracebacks beyond the full cube (divide and conquer; semiglobal and "
           "local: end and start sweeps first; DNA, affine -3/-1; cells of the cube per second; "
           "GPU score-only: the same triplets' scores, `score_triplets`)",
           "", "| L | mode | triplets | GPU API | GPU score-only | traceback/score | "
           "CPU API (all cores) | GPU/CPU | triplets checked | different |",
           "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|"]


def dc_rates(rng, quick):
    """Tracebacks of cubes beyond ``_affine.CUBE_CELLS`` (the divide and conquer; in
    semiglobal and local mode after the end and start sweeps): GPU alignments must
    equal the CPU's; cells per second of the API on both."""
    rows, bad = [], 0
    aff = Scoring.dna(gap_open=-3, gap_extend=-1)
    runs = [(L, "global") for L in ((200, 300) if quick else (200, 300, 400, 600))]
    runs += [(L, m) for L in ((200,) if quick else (300, 400)) for m in ("semiglobal", "local")]
    for L, mode in runs:
        T = max(4, int((2e9 if quick else 1e10) / L**3))
        seqs = _strings(rng, 3 * T, np.full(3 * T, L), "ACGT")
        trip = np.arange(3 * T).reshape(T, 3)
        c = cells(seqs, trip)

        def run(part, device):
            return trimsa.align_triplets(seqs, part, scoring=aff, mode=mode, device=device)

        tg = timed(lambda: run(trip, "gpu"), 1)
        ts = timed(lambda: trimsa.score_triplets(seqs, trip, scoring=aff, mode=mode,
                                                 device="gpu"), 3)
        gpu = run(trip, "gpu")
        run(trip[:1], "cpu")   # compiled
        t0 = time.perf_counter()
        cpu = run(trip[:max(2, T // 8)], "cpu")
        tc = time.perf_counter() - t0
        wrong = sum((g.rows, g.score) != (x.rows, x.score) for g, x in zip(gpu, cpu))
        bad += wrong
        cc = cells(seqs, trip[:max(2, T // 8)])
        rows.append(f"| {L} | {mode} | {T} | {c / tg:.3e} | {c / ts:.3e} | {ts / tg:.2f} | "
                    f"{cc / tc:.3e} | {(c / tg) / (cc / tc):.1f} | {len(cpu)} | {wrong} |")
    return rows, bad


def _ceiling_kernel():
    import cupy

    from trimsa import kernels

    src = kernels.source("triplet_affine.cu") + CEILING
    mod = cupy.RawModule(code=src, options=("-std=c++17",), name_expressions=["affine_ceiling<4>"])
    return mod.get_function("affine_ceiling<4>")


def profile_launches(L, path):
    """The launches ``--ncu`` counts: one affine batch at length ``L`` and one ceiling run.

    Writes the cells of each to ``path`` (JSON).
    """
    import json

    import cupy

    rng = np.random.default_rng(1)
    T = 4096
    seqs = random_set(rng, np.full(3 * T, L), _alphabet.DNA)
    trip = np.arange(3 * T, dtype=np.int32).reshape(T, 3)
    trimsa.score_triplets(seqs, trip, scoring=Scoring.dna(gap_open=-3, gap_extend=-1),
                          device="gpu")
    fn = _ceiling_kernel()
    blocks, threads, iters = 132, 256, 200
    fn((blocks,), (threads,), (np.int32(iters), np.int32(-3), np.int32(-1),
                               cupy.empty(blocks * threads, dtype=np.int32)))
    cupy.cuda.Device().synchronize()
    Path(path).write_text(json.dumps({"score": cells(seqs, trip),
                                      "ceiling": blocks * threads * iters * 4}))


def instructions_per_cell(L=128):
    """Run :func:`profile_launches` under ``ncu``; thread instructions per cell of each kernel."""
    import csv
    import json
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        log, cells_file = Path(tmp) / "ncu.csv", Path(tmp) / "cells.json"
        subprocess.run(["ncu", "--csv", "--log-file", str(log), "--metrics",
                        "smsp__thread_inst_executed.sum", "-k", "regex:affine_",
                        sys.executable, __file__, "--profile-launches", str(L), str(cells_file)],
                       check=True, capture_output=True)
        cells_of = json.loads(cells_file.read_text())
        inst = {"score": 0.0, "ceiling": 0.0}
        for row in csv.DictReader(line for line in log.read_text().splitlines()
                                  if line.startswith('"')):
            key = "ceiling" if "ceiling" in row["Kernel Name"] else "score"
            inst[key] += float(row["Metric Value"].replace(",", ""))
    return {k: inst[k] / cells_of[k] for k in inst}


def ceiling(quick):
    import cupy

    fn = _ceiling_kernel()
    sms = cupy.cuda.runtime.getDeviceProperties(0)["multiProcessorCount"]
    blocks, threads, iters = sms * 8, 256, 2000 if quick else 20000
    out = cupy.empty(blocks * threads, dtype=np.int32)
    args = (np.int32(iters), np.int32(-3), np.int32(-1), out)
    fn((blocks,), (threads,), args)
    cupy.cuda.Device().synchronize()
    start, stop = cupy.cuda.Event(), cupy.cuda.Event()
    start.record()
    fn((blocks,), (threads,), args)
    stop.record()
    stop.synchronize()
    sec = cupy.cuda.get_elapsed_time(start, stop) / 1e3
    return blocks * threads * iters * 4 / sec / 1e12, int(fn.num_regs)


def cpu_rates(rng, quick):
    rows = []
    aff = Scoring.dna(gap_open=-3, gap_extend=-1)
    lin = Scoring.dna(gap=-3)
    L = 96 if quick else 128
    T = 64 if quick else 512
    seqs = random_set(rng, np.full(3 * T, L), _alphabet.DNA)
    trip = np.arange(3 * T, dtype=np.int32).reshape(T, 3)
    c = cells(seqs, trip)
    ta = timed(lambda: trimsa.score_triplets(seqs, trip, scoring=aff, device="cpu"), 1)
    tl = timed(lambda: trimsa.score_triplets(seqs, trip, scoring=lin, device="cpu"), 1)
    Tt = max(8, T // 8)
    letters = np.array(list("ACGT"))
    named = as_sequence_set([(f"s{q}", "".join(letters[rng.integers(0, 4, L)]))
                             for q in range(3 * Tt)])
    tt = timed(lambda: trimsa.align_triplets(named, trip[:Tt], scoring=aff), 1)
    ct = cells(named, trip[:Tt])
    rows.append(f"| score, affine | {L} | {T} | {c / ta:.3e} |")
    rows.append(f"| score, linear | {L} | {T} | {c / tl:.3e} |")
    rows.append(f"| traceback (full cube), affine | {L} | {Tt} | {ct / tt:.3e} |")
    return rows


def header(title, script, argv):
    """The first lines of a result: the GPU, the date, the command and the host."""
    import cupy
    import numba

    name = cupy.cuda.runtime.getDeviceProperties(0)["name"]
    name = name.decode() if isinstance(name, bytes) else name
    return [f"# {title}: {name}, "
            f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC",
            f"command: python eval/{script} {' '.join(argv or sys.argv[1:])}",
            f"host: {platform.node()}, python {platform.python_version()}, "
            f"{numba.config.NUMBA_NUM_THREADS} CPU threads", ""]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--fasta", nargs="*", default=[])
    ap.add_argument("--out", default=str(RESULT))
    ap.add_argument("--ncu", action="store_true", help="also count instructions per cell (ncu)")
    ap.add_argument("--profile-launches", nargs=2, metavar=("L", "JSON"), help=argparse.SUPPRESS)
    ap.add_argument("--only-dc", action="store_true",
                    help="only the divide-and-conquer tracebacks (printed, no file written)")
    args = ap.parse_args(argv)
    if args.only_dc:
        rows, bad = dc_rates(np.random.default_rng(2026_11_27), args.quick)
        print("\n".join(DC_HEAD + rows))
        return 1 if bad else 0
    if args.profile_launches:
        profile_launches(int(args.profile_launches[0]), args.profile_launches[1])
        return 0
    rng = np.random.default_rng(2026_11_24)
    lines = header("Affine 3-way kernels", "bench_affine.py", argv)
    rows, bad = correctness(rng, args.quick)
    lines += ["## correctness (GPU == CPU, fresh random inputs)", "",
              "| case | gap open/extend | mode | triplets | wrong |", "|---|---|---|---:|---:|"]
    lines += rows
    print("\n".join(lines), flush=True)
    if bad:
        print(f"FAILED: {bad} GPU scores differ from the CPU", file=sys.stderr)
        return 1
    rate, regs = ceiling(args.quick)
    g = ["", "## GPU throughput (TCUPS; affine -3/-1 and linear -3, DNA, same batches)", "",
         "| L | mode | triplets | affine TCUPS | linear TCUPS | affine/linear time ratio |",
         "|---|---|---:|---:|---:|---:|"] + gpu_rates(rng, args.quick, args.fasta)
    g += ["", f"Register-only ceiling of the affine cell (32 bits, {regs} registers): "
          f"{rate:.3f} TCUPS", ""]
    if args.ncu:
        ipc = instructions_per_cell()
        g += [f"Thread instructions per cell (ncu, smsp__thread_inst_executed.sum): score kernel "
              f"{ipc['score']:.1f} (L = 128), register-only ceiling kernel {ipc['ceiling']:.1f}", ""]
    print("\n".join(g), flush=True)
    if args.out:
        Path(args.out).write_text("\n".join(lines + g) + "\n")
    rows, bad = traceback_correctness(rng, args.quick)
    g += ["## tracebacks: GPU alignments == CPU alignments (fresh random inputs)", "",
          "| case | gap open/extend | mode | triplets | different |", "|---|---|---|---:|---:|"]
    g += rows
    print("\n".join(g[-len(rows) - 4:]), flush=True)
    if bad:
        print(f"FAILED: {bad} GPU alignments differ from the CPU", file=sys.stderr)
        return 1
    t = ["", "## GPU tracebacks (TCUPS, affine -3/-1, DNA, global, full cubes)", "",
         "| L | triplets | traceback kernels | traceback API | score-only | "
         "traceback/score rate |", "|---|---:|---:|---:|---:|---:|"] + traceback_rates(
             rng, args.quick)
    g += t + [""]
    print("\n".join(t), flush=True)
    if args.out:
        Path(args.out).write_text("\n".join(lines + g) + "\n")
    rows, bad = dc_rates(rng, args.quick)
    g += DC_HEAD + rows + [""]
    print("\n".join(DC_HEAD + rows), flush=True)
    if bad:
        print(f"FAILED: {bad} GPU alignments differ from the CPU", file=sys.stderr)
        return 1
    c = ["## CPU (all cores; cells per second)", "", "| what | L | triplets | cells/s |",
         "|---|---|---:|---:|"] + cpu_rates(rng, args.quick)
    print("\n".join(c), flush=True)
    if args.out:
        Path(args.out).write_text("\n".join(lines + g + c) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
