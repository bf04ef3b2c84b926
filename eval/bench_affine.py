"""Check the affine 3-way kernels (GPU against CPU), then time them.

One command::

    python eval/bench_affine.py [--quick] [--fasta FILE ...] [--out FILE]

1. Correctness: random DNA (all 15 IUPAC codes) and protein (BLOSUM62) batches of
   mixed lengths, every mode, three gap models: GPU scores, in 32 bits and with
   ``precision="int16"`` (packed 16 bits wherever the bound admits), must equal
   ``_affine.score_batch`` (CPU). Any mismatch stops the run with status 1.
2. GPU throughput: TCUPS (cells / seconds / 1e12, cells = la*lb*lc) of the
   affine score kernel in 32 bits, in packed 16 bits and by the default choice,
   per length 32..1024 and mode, for batches of equal-length random DNA
   triplets, with the linear kernel on the same batches beside it (same run);
   then the length mixes of real FASTA files (``--fasta``: random triplets of
   their records). Wall time of ``score_triplets`` after one warm-up, median of
   repeats.
3. Register-only ceiling: a kernel that runs the affine cell (the same
   ``exports`` function) on values held in registers, no memory and no
   shuffles, in 32 bits and in packed 16 bits; its cells per second bound what
   any layout of this recurrence reaches in that arithmetic on this GPU.
4. Tracebacks: GPU alignments (``align_triplets(device="gpu")``) must equal the
   CPU's on fresh random DNA and protein triplets in every mode (any difference
   stops the run with status 1); then GPU traceback TCUPS per length 32..160
   (cubes that fit ``_affine.CUBE_CELLS``), of the kernels alone
   (``_gpu_affine.align_triplets``) and of the API (with the rescoring of every
   alignment and the rows), next to score-only TCUPS of the same batch.
5. Global tracebacks beyond ``_affine.CUBE_CELLS`` (L = 200..1024): the divide and
   conquer with its splits and cubes on the GPU must give the CPU's alignments (on an
   eighth of the triplets); cells of the cube per second of the API on both, and of
   the GPU's score-only run of the same triplets (``--only-dc``: this section alone,
   printed).
6. CPU: affine and linear score rates on all cores, and the affine traceback
   rate (``align_triplets``), in cells per second.

7. With ``--ncu``: thread instructions per cell of the score kernel (one
   batch at L = 128, in 32 and in packed 16 bits) and of the ceiling kernels, counted by
   Nsight Compute
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
from trimsa.triplet import _affine, _gpu_affine  # noqa: E402
from tests.fakes import random_set  # noqa: E402

GAPS = ((-3, -1), (-1, -2), (-8, -1))
CEILING = r"""
template <int NC, class A>
__global__ void affine_ceiling(int iters, int go, int ge, int* out) {
    typedef typename A::T T;
    T X[NC][NSTATE];
#pragma unroll
    for (int c = 0; c < NC; ++c)
#pragma unroll
        for (int s = 0; s < NSTATE; ++s)
            X[c][s] = A::splat((threadIdx.x * 7 + c * 13 + s * 5) & 63);
    const T e2 = A::splat(2 * ge), o = A::splat(go), o2 = A::splat(2 * go);
    const T sub = A::splat((threadIdx.x & 3) - 1);
    for (int it = 0; it < iters; ++it) {
#pragma unroll
        for (int c = 0; c < NC; ++c) {
            const T* P = X[(c + 1) % NC];
            const T* Q = X[(c + 2) % NC];
            T S[NSTATE];
            S[0] = A::add(A::add(P[0], sub), A::add(sub, sub));
            S[1] = A::add(P[3], A::add(sub, e2));
            S[2] = A::add(Q[2], A::add(sub, e2));
            S[3] = A::add(Q[1], A::add(sub, e2));
            S[4] = A::add(X[c][4], e2); S[5] = A::add(X[c][5], e2); S[6] = A::add(X[c][6], e2);
            S[7] = A::add(P[7], e2); S[8] = A::add(P[8], e2); S[9] = A::add(P[9], e2);
            S[10] = A::add(Q[10], e2); S[11] = A::add(Q[11], e2); S[12] = A::add(Q[12], e2);
            exports<A>(S, o, o2, X[c]);
        }
    }
    int acc = 0;
#pragma unroll
    for (int c = 0; c < NC; ++c)
#pragma unroll
        for (int s = 0; s < NSTATE; ++s) acc ^= (int)X[c][s];
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
            want = cpu_affine(seqs, trip, m, sc)
            wrong = []
            for precision in ("int32", "int16"):
                gpu = trimsa.score_triplets(seqs, trip, mode=mode, scoring=sc, device="gpu",
                                            precision=precision)
                wrong.append(int((gpu != want).sum()))
            packed = int(_gpu_affine.packed_bound(seqs.lengths[trip], sc, m)[0].sum())
            bad += sum(wrong)
            rows.append(f"| {label} | {sc.gap_open}/{sc.gap_extend} | {mode} | {n} | {packed} | "
                        f"{wrong[0]} | {wrong[1]} |")
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
        for mode in (MODES if L == 256 else ("global",)):
            rows.append(_rate_row(str(L), mode, seqs, trip, aff, lin, 1 if quick else 3))
    for path in fastas:
        seqs = read_sequences(path)
        T = 20_000 if not quick else 2_000
        trip = rng.integers(0, len(seqs), (T, 3)).astype(np.int32)
        rows.append(_rate_row(f"mix of {Path(path).parent.name} (mean {seqs.lengths.mean():.0f})",
                              "global", seqs, trip, aff, lin, 1))
    return rows


def _rate_row(label, mode, seqs, trip, aff, lin, repeats):
    """One row of the throughput table: TCUPS of the affine kernel in 32 bits, packed 16
    bits and the default (``auto``) choice, of the linear kernel, and ratios."""
    c = cells(seqs, trip)
    t = {}
    for key, sc, precision in (("a32", aff, "int32"), ("a16", aff, "int16"), ("auto", aff, "auto"),
                               ("lin", lin, "auto")):
        t[key] = timed(lambda: trimsa.score_triplets(seqs, trip, mode=mode, scoring=sc,
                                                     device="gpu", precision=precision), repeats)
    tc = {k: c / v / 1e12 for k, v in t.items()}
    return (f"| {label} | {mode} | {len(trip)} | {tc['a32']:.4f} | {tc['a16']:.4f} | "
            f"{tc['auto']:.4f} | {tc['lin']:.4f} | {t['a32'] / t['a16']:.2f} | "
            f"{t['lin'] / t['auto']:.3f} |")


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
    runs = [(L, "global") for L in ((200, 300) if quick else (200, 300, 400, 600, 800, 1024))]
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
        print(rows[-1], flush=True)   # as it comes: a long run keeps what it measured
    return rows, bad


#: Cells per thread and iteration of the ceiling kernel, per arithmetic.
CEILING_CELLS = {"I32": 4, "S16x2": 8}


def _ceiling_kernel(arith="I32"):
    import cupy

    from trimsa import kernels

    src = kernels.source("triplet_affine.cu") + CEILING
    name = f"affine_ceiling<4, {arith}>"
    mod = cupy.RawModule(code=src, options=("-std=c++17",), name_expressions=[name])
    return mod.get_function(name)


def profile_launches(L, path):
    """The launches ``--ncu`` counts: one affine batch at length ``L`` in 32 bits, the
    same batch in packed 16 bits, and one run of each ceiling kernel.

    Writes the cells of each to ``path`` (JSON).
    """
    import json

    import cupy

    rng = np.random.default_rng(1)
    T = 4096
    seqs = random_set(rng, np.full(3 * T, L), _alphabet.DNA)
    trip = np.arange(3 * T, dtype=np.int32).reshape(T, 3)
    sc = Scoring.dna(gap_open=-3, gap_extend=-1)
    # the order of the launches is the order of the keys in the log (instructions_per_cell)
    trimsa.score_triplets(seqs, trip, scoring=sc, device="gpu", precision="int32")
    trimsa.score_triplets(seqs, trip, scoring=sc, device="gpu", precision="int16")
    blocks, threads, iters = 132, 256, 200
    for arith in CEILING_CELLS:
        _ceiling_kernel(arith)((blocks,), (threads,), (np.int32(iters), np.int32(-3), np.int32(-1),
                                                      cupy.empty(blocks * threads, dtype=np.int32)))
    cupy.cuda.Device().synchronize()
    Path(path).write_text(json.dumps({
        "score": cells(seqs, trip), "score16": cells(seqs, trip),
        "ceiling": blocks * threads * iters * CEILING_CELLS["I32"],
        "ceiling16": blocks * threads * iters * CEILING_CELLS["S16x2"]}))


def instructions_per_cell(L=128):
    """Run :func:`profile_launches` under ``ncu``; thread instructions per cell of each kernel."""
    import csv
    import json
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        log, cells_file = Path(tmp) / "ncu.csv", Path(tmp) / "cells.json"
        # mangled names carry the template arguments (the arithmetic: I32 or S16x2)
        subprocess.run(["ncu", "--csv", "--print-kernel-base", "mangled", "--log-file", str(log),
                        "--metrics",
                        "smsp__thread_inst_executed.sum", "-k", "regex:affine_",
                        sys.executable, __file__, "--profile-launches", str(L), str(cells_file)],
                       check=True, capture_output=True)
        cells_of = json.loads(cells_file.read_text())
        inst = {k: 0.0 for k in cells_of}
        for row in csv.DictReader(line for line in log.read_text().splitlines()
                                  if line.startswith('"')):
            name = row["Kernel Name"]
            key = "ceiling" if "ceiling" in name else "score"
            if "S16x2" in name:
                key += "16"
            inst[key] += float(row["Metric Value"].replace(",", ""))
    return {k: inst[k] / cells_of[k] for k in inst}


def ceiling(quick, arith="I32"):
    import cupy

    fn = _ceiling_kernel(arith)
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
    return blocks * threads * iters * CEILING_CELLS[arith] / sec / 1e12, int(fn.num_regs)


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
        print("\n".join(DC_HEAD), flush=True)
        rows, bad = dc_rates(np.random.default_rng(2026_11_27), args.quick)
        return 1 if bad else 0
    if args.profile_launches:
        profile_launches(int(args.profile_launches[0]), args.profile_launches[1])
        return 0
    rng = np.random.default_rng(2026_11_24)
    lines = header("Affine 3-way kernels", "bench_affine.py", argv)
    rows, bad = correctness(rng, args.quick)
    lines += ["## correctness (GPU == CPU, fresh random inputs)", "",
              "Every triplet in 32 bits, then with `precision=\"int16\"` (packed 16 bits for the "
              "triplets `packed_bound` admits, 32 bits for the rest).", "",
              "| case | gap open/extend | mode | triplets | admitted to 16 bits | wrong (32) | "
              "wrong (16) |", "|---|---|---|---:|---:|---:|---:|"]
    lines += rows
    print("\n".join(lines), flush=True)
    if bad:
        print(f"FAILED: {bad} GPU scores differ from the CPU", file=sys.stderr)
        return 1
    rate, regs = ceiling(args.quick)
    rate16, regs16 = ceiling(args.quick, "S16x2")
    g = ["", "## GPU throughput (TCUPS; affine -3/-1 and linear -3, DNA, same batches)", "",
         "Affine in 32 bits (`precision=\"int32\"`), packed 16 bits (`\"int16\"`) and the "
         "default choice (`\"auto\"`: 16 bits when there are at least as many admitted "
         "triplets as the packed kernel has resident warps).", "",
         "| L | mode | triplets | affine 32-bit | affine 16-bit | affine auto | linear | "
         "16-bit speed-up | affine auto/linear time ratio |",
         "|---|---|---:|---:|---:|---:|---:|---:|---:|"] + gpu_rates(rng, args.quick, args.fasta)
    g += ["", f"Register-only ceiling of the affine cell: 32 bits ({regs} registers) "
          f"{rate:.3f} TCUPS; packed 16 bits ({regs16} registers) {rate16:.3f} TCUPS", ""]
    if args.ncu:
        ipc = instructions_per_cell()
        g += [f"Thread instructions per cell (ncu, smsp__thread_inst_executed.sum, L = 128): "
              f"score kernel {ipc['score']:.1f} in 32 bits, {ipc['score16']:.1f} in packed 16 "
              f"bits; register-only ceiling kernel {ipc['ceiling']:.1f} / {ipc['ceiling16']:.1f}",
              ""]
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
    print("\n".join(DC_HEAD), flush=True)
    rows, bad = dc_rates(rng, args.quick)
    g += DC_HEAD + rows + [""]
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
