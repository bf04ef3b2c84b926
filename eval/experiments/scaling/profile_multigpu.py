"""Where the time of multi-GPU triplet scoring goes: host planning, kernels, waiting.

Runs the sets of ``eval/bench_scale.py`` through
:func:`trimsa.triplet.devices.score_on_devices` with several settings of the
host side (streams per GPU; how a thread waits for its kernels) and records,
for every batch, when its planning started, when its kernels were launched
and when it was done. It prints, per run, the wall time, the speedup over
the one-device single-stream run, the summed host planning time and the
summed busy time of the devices (union of each device's batch intervals),
so that a poor speedup can be told apart as host-bound, idle devices or
slow kernels.

Usage::

    python eval/experiments/scaling/profile_multigpu.py --triplets 600000 --out /tmp/prof.md
"""

from __future__ import annotations

import argparse
import datetime
import sys
import threading
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "eval"))

from bench_scale import build  # noqa: E402
from trimsa.scoring import Scoring  # noqa: E402
from trimsa.triplet import _gpu  # noqa: E402
from trimsa.triplet.devices import CupyBackend, score_on_devices  # noqa: E402

LOG: list = []
_lock = threading.Lock()


def _instrument():
    """Time stamps on :class:`_gpu.Batch`; returns its own (polling) ``wait``."""
    init, run, wait = _gpu.Batch.__init__, _gpu.Batch.run, _gpu.Batch.wait

    def init_(self, seqs, trip, *a, **k):
        self._t0 = time.perf_counter()
        init(self, seqs, trip, *a, **k)

    def run_(self):
        self._t1 = time.perf_counter()
        return run(self)

    _gpu.Batch.__init__, _gpu.Batch.run = init_, run_
    return wait


def _blocking_wait(self):
    """The old behaviour: no wait; :meth:`_gpu.Batch.result`'s copy to the host blocks."""
    return self


def busy_union(iv):
    """Length of the union of intervals ``[(a, b), ...]``."""
    tot, end = 0.0, -np.inf
    for a, b in sorted(iv):
        if b > end:
            tot += b - max(a, end)
            end = b
    return tot


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--triplets", type=int, default=600_000)
    ap.add_argument("--lengths", default="32,256")
    ap.add_argument("--sets", default="alternating,random")
    ap.add_argument("--counts", default="1,2,4")
    ap.add_argument("--settings", default="1:poll:8,2:poll:8,2:poll:4",
                    help="streams:wait:chunks settings to compare (wait = block | poll; "
                         "chunks = chunks_per_device of the dynamic scheme)")
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    import cupy

    poll_wait = _instrument()
    lmin, lmax = (int(x) for x in args.lengths.split(","))
    ndev = cupy.cuda.runtime.getDeviceCount()
    counts = [int(c) for c in args.counts.split(",") if int(c) <= ndev]
    lines = [f"# Host-side profile of multi-GPU scoring\n",
             f"- date: {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC",
             f"- machine: {ndev}x {cupy.cuda.runtime.getDeviceProperties(0)['name'].decode()}",
             f"- command: `python {' '.join(sys.argv)}`", "",
             "| set | T | N | streams | wait | chunks | seconds | speedup | calls | host plan s | "
             "device busy s (mean) | same |", "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for kind in args.sets.split(","):
        seqs, trip = build(kind, args.triplets, lmin, lmax, seed=2)
        sc = Scoring.dna()
        base = ref = None
        # the GPU against the CPU engine on a sample, in every mode
        from trimsa.triplet import score_triplets

        sample = trip[:: max(1, len(trip) // 5000)]
        for mode in ("global", "semiglobal", "local"):
            cpu = score_triplets(seqs, sample, mode=mode, device="cpu")
            gpu = score_triplets(seqs, sample, mode=mode, device="gpu")
            print(f"{kind} {mode}: GPU == CPU on {len(sample)} triplets: {np.array_equal(cpu, gpu)}",
                  flush=True)
            lines.insert(5, f"- {kind} {mode}: GPU == CPU on a sample of {len(sample)}: "
                            f"{'yes' if np.array_equal(cpu, gpu) else 'NO'}")
        for setting in args.settings.split(","):
            streams, how, chunks = setting.split(":")
            _instrument_wait(_blocking_wait if how == "block" else poll_wait)
            backend = CupyBackend(streams=int(streams))
            for n in counts:
                devs = list(range(n))
                # warm: load the kernels on every device and stream
                for d in devs:
                    score_on_devices(seqs, trip[:20000], 0, sc, gpus=[d], backend=backend,
                                     min_chunk=1024)
                for d in devs:
                    with cupy.cuda.Device(d):
                        cupy.cuda.runtime.deviceSynchronize()
                LOG.clear()
                t0 = time.perf_counter()
                res = score_on_devices(seqs, trip, 0, sc, gpus=devs, backend=backend,
                                       chunks_per_device=int(chunks))
                dt = time.perf_counter() - t0
                if ref is None:
                    ref, base = res, dt
                host = sum(t1 - a for _, a, t1, _, _ in LOG)
                busy = np.mean([busy_union([(t1, e) for d2, _, t1, e, _ in LOG if d2 == d])
                                for d in devs])
                row = (f"| {kind} | {len(trip)} | {n} | {streams} | {how} | {chunks} | {dt:.3f} | "
                       f"{base / dt:.2f} | {len(LOG)} | {host:.3f} | {busy:.3f} | "
                       f"{'yes' if np.array_equal(res, ref) else 'NO'} |")
                print(row, flush=True)
                lines.append(row)
    # per-call cost on one device: the same triplets in k consecutive calls, one stream
    lines += ["", "One device, one stream, the set cut into k consecutive calls:", "",
              "| set | k | seconds | per extra call ms |", "|---|---|---|---|"]
    _instrument_wait(poll_wait)
    backend = CupyBackend(streams=1)
    for kind in args.sets.split(","):
        seqs, trip = build(kind, args.triplets, lmin, lmax, seed=2)
        t1 = None
        for k in (1, 8, 32, 128):
            out = np.empty(len(trip), dtype=np.int64)
            cupy.cuda.runtime.deviceSynchronize()
            t0 = time.perf_counter()
            for part in np.array_split(np.arange(len(trip)), k):
                backend.score(seqs, trip[part], 0, Scoring.dna(), out[part])
            dt = time.perf_counter() - t0
            t1 = dt if t1 is None else t1
            extra = (dt - t1) / (k - 1) * 1e3 if k > 1 else 0.0
            row = f"| {kind} | {k} | {dt:.3f} | {extra:.2f} |"
            print(row, flush=True)
            lines.append(row)
    lines += ["", "host plan s: summed time from a batch's start to its launch (planning, "
              "uploads) over all batches; device busy s: per device, the union of the "
              "intervals from launch to done, averaged over devices."]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        Path(args.out).write_text(text)


def _instrument_wait(inner):
    """``Batch.wait`` = ``inner``, logging (device, start, launch, done, count) of each batch.

    With the blocking variant "done" is when the launch returned; the copy in
    ``result`` then waits (so the device busy column is not meaningful there).
    """
    import cupy

    def wait_(self):
        out = inner(self)
        with _lock:
            LOG.append((cupy.cuda.Device().id, self._t0, self._t1, time.perf_counter(), self.T))
        return out

    _gpu.Batch.wait = wait_


if __name__ == "__main__":
    main()
