"""Check the GPU triplet kernels against the CPU engine, then time them.

One command::

    python eval/bench_kernels.py [--quick] [--out FILE]

1. Correctness: random DNA and protein (BLOSUM62) batches of mixed lengths
   (1..300 and a few long ones), every mode, both precisions, plus scores
   built to overflow 16 bits and a table with negative shifted scores (16 bits
   without the IMAD update, ``S16x2``): GPU scores must equal ``_cpu.score_batch``.
   Any mismatch stops the run with status 1.
2. Throughput: TCUPS (cells / kernel seconds / 1e12, cells = la*lb*lc) per
   length 8..1024 x mode x precision, for large batches of equal-length
   random DNA triplets (about ``--cells`` cells, rounded to whole waves of the
   GPU's resident thread groups, at least ``WAVES`` of them up to ``MAX_CELLS``
   cells), then a few triplet shapes of unequal lengths
   (``--shapes``: a long A over one region, planes that pad), then the length
   mixes of real FASTA files if given (``--fasta``); CUDA events, one warm-up,
   median of repeats.
3. Table I: time to score one triplet of three sequences of each length
   (kernel time by events, and the whole ``score_triplets`` call).

Prints a short table and writes it (markdown) to ``--out``: by default
``eval/results/bench_kernels.md``, this benchmark's current result (listed in
``eval/results/README.md``; ``--out ''`` writes nothing).
"""

from __future__ import annotations

import argparse
import datetime
import platform
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
RESULT = Path(__file__).resolve().parent / "results" / "bench_kernels.md"

from trimsa import alphabet as _alphabet  # noqa: E402
from trimsa.io import read_sequences  # noqa: E402
from trimsa.scoring import Scoring  # noqa: E402
from trimsa.triplet import _cpu, _gpu, _gpu_plan  # noqa: E402
from tests.fakes import random_set  # noqa: E402

MODES = ("global", "semiglobal", "local")
PRECS = ("int32", "int16")
#: equal-length batches: whole waves of resident groups (:func:`wave_size`), at least this many ...
WAVES = 8
#: ... unless that exceeds this many cells (then fewer, at least one: L = 1024 takes one wave)
MAX_CELLS = 3e12
PAPER = {  # TrioSeq on H100 (000_*.txt): Table I single triplet, ms
    8: 0.013, 16: 0.028, 32: 0.053, 64: 0.100, 128: 0.311, 256: 1.432, 512: 15.66, 1024: 52.79}


def cpu_scores(seqs, trip, mode, sc):
    out = np.empty(trip.shape[0], dtype=np.int64)
    _cpu.score_batch(seqs.codes, seqs.offsets, trip.astype(np.int32), sc.table,
                     np.int32(sc.gap), mode, mode, out, max(1, min(trip.shape[0], 256)))
    return out


def check(rng, quick, log):
    dna = _alphabet.get("dna")
    prot = _alphabet.get("protein")
    cases = []
    n = 120
    lens = rng.integers(1, 301, size=n)
    lens[:4] = [1, 2, 3, 0 + 1]
    cases.append(("dna mixed 1..300", random_set(rng, lens, dna), Scoring.dna(), 1500 if quick else 4000))
    lens = rng.integers(1, 301, size=n)
    cases.append(("protein BLOSUM62 mixed", random_set(rng, lens, prot), Scoring.protein("BLOSUM62"),
                  1000 if quick else 3000))
    lens = np.concatenate([rng.integers(400, 1100, size=6), rng.integers(1, 60, size=6)])
    cases.append(("dna long 400..1100", random_set(rng, lens, dna), Scoring.dna(), 24))
    lens = rng.integers(100, 700, size=10)
    big = Scoring.dna(match=40, mismatch=-30, gap=-50)
    cases.append(("dna overflow16 (match 40, gap -50)", random_set(rng, lens, dna), big, 60))
    lens = rng.integers(1, 40, size=40)
    cases.append(("dna short 1..40", random_set(rng, lens, dna), Scoring.dna(2, -1, -2), 3000))
    # mismatch < 2 * gap: shifted scores below 0, so 16 bits without the IMAD update (S16x2)
    lens = np.concatenate([rng.integers(1, 70, size=30), rng.integers(100, 300, size=6)])
    cases.append(("dna mismatch < 2 gap (S16x2)", random_set(rng, lens, dna), Scoring.dna(3, -9, -2),
                  800 if quick else 2000))
    bad = 0
    rows = []
    for name, seqs, sc, T in cases:
        trip = rng.integers(0, len(seqs), size=(T, 3))
        for mi, mode in enumerate(MODES):
            ref = cpu_scores(seqs, trip, mi, sc)
            for prec in PRECS:
                st = {}
                got = _gpu.score_triplets(seqs, trip, mi, sc, precision=prec, stats=st)
                wrong = int((got != ref).sum())
                used = sorted({(ln["bits"], "split" if ln["split"] else "stream", "imad" if ln.get("imad") else "")
                               for ln in st.get("launches", [])})
                rows.append((name, mode, prec, T, wrong, used))
                if wrong:
                    bad += wrong
                    w = np.flatnonzero(got != ref)[:5]
                    for t in w:
                        log(f"  MISMATCH {name} {mode} {prec} t={t} trip={trip[t].tolist()} "
                            f"lens={seqs.lengths[trip[t]].tolist()} gpu={got[t]} cpu={ref[t]}")
    log("| case | mode | precision | triplets | wrong | launches (bits, kind, 16-bit IMAD update) |")
    log("|---|---|---|---:|---:|---|")
    for r in rows:
        log(f"| {r[0]} | {r[1]} | {r[2]} | {r[3]} | {r[4]} | {r[5]} |")
    return bad


def time_batch(batch, reps):
    import cupy

    batch.run()
    cupy.cuda.Device().synchronize()
    times = []
    for _ in range(reps):
        a = cupy.cuda.Event()
        b = cupy.cuda.Event()
        a.record()
        batch.run()
        b.record()
        b.synchronize()
        times.append(cupy.cuda.get_elapsed_time(a, b) / 1e3)
    return float(np.median(times))


def equal_lengths(rng, L, budget_cells, wave=0, max_cells=MAX_CELLS):
    """``(seqs, trip)``: about ``budget_cells`` cells of triplets of 64 random DNA sequences of length L
    (at least 2048, at most 2^20 triplets). With ``wave`` (triplets per wave of the GPU's resident
    thread groups, :func:`wave_size`): a whole number of waves, at least ``WAVES`` unless that
    exceeds ``max_cells`` cells, and at least one."""
    T = int(min(1 << 20, max(2048, budget_cells // L**3)))
    if wave:
        least = min(WAVES, max(1, int(max_cells // (L**3 * wave))))
        T = max(T // wave, least) * wave
    seqs = random_set(rng, np.full(64, L), _alphabet.get("dna"))
    trip = np.stack([rng.permutation(64)[:3] for _ in range(256)])
    return seqs, trip[rng.integers(0, 256, size=T)]


def unequal_lengths(rng, la, lb, lc, budget_cells):
    """``(seqs, trip)``: about ``budget_cells`` cells of triplets (A, B, C) of lengths (la, lb, lc),
    each drawn from 16 random DNA sequences of its length (at least 256 triplets)."""
    T = int(max(256, min(1 << 20, budget_cells // (la * lb * lc))))
    seqs = random_set(rng, np.array([la] * 16 + [lb] * 16 + [lc] * 16), _alphabet.get("dna"))
    trip = np.stack([rng.integers(0, 16, T), 16 + rng.integers(0, 16, T), 32 + rng.integers(0, 16, T)], axis=1)
    return seqs, trip


def fasta_triplets(rng, path, budget_cells):
    """``(seqs, trip)``: triplets of three distinct sequences of a FASTA file, drawn at
    random, about ``budget_cells`` cells (at least 256 triplets): the file's own length mix."""
    seqs = read_sequences(path)
    n = len(seqs.names)
    if n < 3:
        raise SystemExit(f"bench_kernels: {path}: needs at least 3 sequences, found {n}")
    T = int(max(256, min(1 << 20, budget_cells // np.mean(seqs.lengths.astype(np.float64)) ** 3)))
    return seqs, distinct_triplets(rng, n, T)


def data_label(path):
    """A FASTA file's name in tables: its directory for the simulated sets' ``input.fa[.gz]``."""
    path = Path(path)
    return path.parent.name if path.name.startswith("input.") else path.stem


def distinct_triplets(rng, n, T):
    """``(T, 3)`` rows of three distinct indices below ``n`` (redrawn until distinct)."""
    trip = rng.integers(0, n, size=(T, 3))
    while True:
        bad = (trip[:, 0] == trip[:, 1]) | (trip[:, 0] == trip[:, 2]) | (trip[:, 1] == trip[:, 2])
        if not bad.any():
            return trip
        trip[bad] = rng.integers(0, n, size=(int(bad.sum()), 3))


def wave_size():
    """Triplets in one wave of the device's resident thread groups in the multi-region
    configuration, as 16-bit pairs (two waves of 32-bit items). A batch that ends in a
    partial wave idles part of the GPU at its end (session 16: a set of lengths near 500
    ran at 1.99 TCUPS in 1.6 waves, 2.47 in 5.8); whole waves time the steady state."""
    return 2 * _gpu._groups(_gpu_plan.CONFIGS[_gpu_plan.MULTI], 16, 0)


def throughput(rng, shapes, modes, precs, log, budget_cells):
    """Rows of TCUPS per shape x mode x precision; a shape is L (equal lengths), (la, lb, lc),
    or a FASTA file (a :class:`~pathlib.Path`: triplets of its sequences, :func:`fasta_triplets`).
    Equal lengths take whole waves (:func:`equal_lengths` with :func:`wave_size`)."""
    sc = Scoring.dna()
    out = []
    wave = wave_size() if any(isinstance(x, int) for x in shapes) else 0
    for shape in shapes:
        if isinstance(shape, Path):
            seqs, trip = fasta_triplets(rng, shape, budget_cells)
            L = data_label(shape)
            cells = _gpu_plan.cells(seqs.lengths[trip])
        elif isinstance(shape, tuple):
            seqs, trip = unequal_lengths(rng, *shape, budget_cells)
            L = "x".join(map(str, shape))
            cells = trip.shape[0] * int(np.prod(shape))
        else:
            seqs, trip = equal_lengths(rng, shape, budget_cells, wave)
            L = shape
            cells = trip.shape[0] * L**3
        T = trip.shape[0]
        for mode in modes:
            mi = MODES.index(mode)
            for prec in precs:
                batch = _gpu.Batch(seqs, trip, mi, sc, prec)
                reps = 3 if cells >= 1e12 else 5
                t = time_batch(batch, reps)
                info = batch.info[0]
                out.append((L, mode, prec, T, t, cells / t / 1e12, info["regs"], info["local_bytes"],
                            info["shape"], info["bits"]))
                log(f"L={L:>5} {mode:10s} {prec:5s} T={T:8d} {t * 1e3:9.3f} ms "
                    f"{cells / t / 1e12:6.3f} TCUPS regs={info['regs']} local={info['local_bytes']} "
                    f"group={info['shape']} bits={info['bits']} stage={int(info.get('stage', 0))} "
                    f"profile={int(info.get('profile', 0))} imad={int(info.get('imad', 0))}")
    return out


def single(rng, lengths, log):
    dna = _alphabet.get("dna")
    sc = Scoring.dna()
    out = []
    for L in lengths:
        seqs = random_set(rng, [L, L, L], dna)
        trip = np.array([[0, 1, 2]])
        batch = _gpu.Batch(seqs, trip, 0, sc, "auto")
        t = time_batch(batch, 3)
        t0 = time.perf_counter()
        _gpu.score_triplets(seqs, trip, 0, sc)
        wall = time.perf_counter() - t0
        out.append((L, t, wall))
        log(f"single L={L}: kernel {t * 1e3:.3f} ms, call {wall * 1e3:.3f} ms")
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="smaller checks and fewer lengths")
    ap.add_argument("--out", default=str(RESULT), help="markdown file for the table (default: the current "
                    "result, eval/results/bench_kernels.md; '' for none)")
    ap.add_argument("--lengths", default="8,16,32,64,128,256,512,1024")
    ap.add_argument("--modes", default=",".join(MODES))
    ap.add_argument("--precisions", default=",".join(PRECS))
    ap.add_argument("--cells", type=float, default=4e11, help="cells per timed batch (about)")
    ap.add_argument("--skip-check", action="store_true")
    ap.add_argument("--shapes", default="2048x32x64,64x32x64,40x17x40,300x200x100",
                    help="unequal lengths LAxLBxLC (comma list) timed after the equal ones; '' for none")
    ap.add_argument("--fasta", default="", help="FASTA files (comma list) whose sequences' own length mix is "
                    "timed after the shapes: random triplets of distinct sequences, about --cells cells each")
    ap.add_argument("--single", default="8,16,32,64,128,256,512,1024")
    ap.add_argument("--multi", default="", help="experiment: configs TJxTKxPxQ[:MINBLOCKS] (comma list) "
                    "to try in turn for planes larger than one region")
    args = ap.parse_args(argv)
    lines = []

    def log(s):
        print(s, flush=True)
        lines.append(s)

    name = _gpu.require()
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    log(f"# GPU triplet kernels: {name}, {date}")
    log(f"command: python eval/bench_kernels.py {' '.join(argv if argv is not None else sys.argv[1:])}")
    log(f"host: {platform.node()}, python {platform.python_version()}")
    rng = np.random.default_rng(int(time.time()))
    if not args.skip_check:
        log("\n## correctness (GPU == CPU, fresh random inputs)\n")
        bad = check(rng, args.quick, log)
        log(f"\nmismatches: {bad}")
        if bad:
            _write(args.out, lines)
            return 1
    lengths = [int(x) for x in args.lengths.split(",") if x]
    lengths += [tuple(int(y) for y in x.split("x")) for x in args.shapes.split(",") if x]
    lengths += [Path(x) for x in args.fasta.split(",") if x]
    log("\n## throughput (random DNA: equal lengths L, then unequal LAxLBxLC; then the sequences of --fasta files; kernel time by CUDA events, median)\n")
    rows = []
    for cfg in (args.multi.split(",") if args.multi else [None]):
        if cfg:
            shape, _, minb = cfg.partition(":")
            conf = tuple(int(x) for x in shape.split("x"))
            _gpu_plan.CONFIGS = _gpu_plan.CONFIGS[:-1] + (conf,)
            for bits in (16, 32):   # this configuration only: one-region planes keep theirs
                _gpu_plan.MIN_BLOCKS[(conf, bits)] = int(minb or 1)
            log(f"multi-region config {conf}, min blocks per SM {int(minb or 1)}")
        rows += throughput(rng, lengths, args.modes.split(","), args.precisions.split(","), log, args.cells)
    log("\n| L | mode | precision | triplets | ms | TCUPS | regs | local bytes | config TJxTKxPxQ | bits |")
    log("|---:|---|---|---:|---:|---:|---:|---:|---|---:|")
    for r in rows:
        log(f"| {r[0]} | {r[1]} | {r[2]} | {r[3]} | {r[4] * 1e3:.3f} | {r[5]:.3f} | {r[6]} | {r[7]} "
            f"| {'x'.join(str(x) for x in r[8])} | {r[9]} |")
    if args.single:
        log("\n## one triplet (global, auto precision); TrioSeq H100 Table I for comparison\n")
        srows = single(rng, [int(x) for x in args.single.split(",") if x], log)
        log("\n| L | kernel ms | call ms | TrioSeq H100 ms |")
        log("|---:|---:|---:|---:|")
        for L, t, wall in srows:
            log(f"| {L} | {t * 1e3:.3f} | {wall * 1e3:.3f} | {PAPER.get(L, '')} |")
    _write(args.out, lines)
    return 0


def _write(path, lines):
    if path:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    sys.exit(main())
