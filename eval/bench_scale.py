"""Scaling of triplet scoring over 1, 2 and 4 GPUs (or Dask CPU workers), as in TrioSeq Fig. 7.

Three triplet sets, each built so that one static scheme is ideal and the
other is not (lengths are drawn between ``--lengths LMIN,LMAX``):

``alternating`` (ideal for blocked)
    triplet ``t`` is made of three long sequences (LMAX) when ``t`` is even
    and of three short ones (LMIN) when it is odd. Every contiguous block
    holds the same mix; round robin over an even number of devices gives
    all long triplets to the even devices.
``ramp`` (ideal for interleaved)
    the three lengths grow with ``t`` from LMIN to LMAX (on a grid of 32
    lengths). Round robin gives every device the same mix; the last block
    holds the longest triplets.
``random``
    three sequences of independent lengths, uniform in LMIN..LMAX.

Sequences are random DNA (the DP's cost does not depend on the residues);
each distinct length has a pool of 8 sequences; a triplet takes three
distinct members of its pool (in the random set, one member of each of three
pools, which may coincide). The number of triplets is chosen so that one device needs
about ``--seconds`` (from a rate calibrated on a sample). Each (set, N,
scheme) is timed once, after a warm-up that loads the kernels on every device
and one untimed run of the whole set at that N (``--warm-runs``: the first
run of a size grows the devices' memory pools, which the first scheme timed
would otherwise pay for); the speedup is over one device.

GPU mode (default) runs in one process with two host threads (CUDA streams) per GPU
(:func:`trimsa.triplet.devices.score_on_devices`). ``--cpu-workers W`` is a
dry run on CPUs: Dask local clusters of 1, 2, 4, ... up to W single-thread
worker processes (:func:`trimsa.distributed.score_triplets_distributed`).

Usage::

    python eval/bench_scale.py                       # every visible GPU (1, 2, 4)
    python eval/bench_scale.py --cpu-workers 2 --seconds 6 --lengths 16,96
    python eval/bench_scale.py --simulate 4                # sleeping fake GPUs

Writes ``--out``: by default ``eval/results/bench_scale.md``, this benchmark's
current result (listed in ``eval/results/README.md``), for a GPU run, and
``scale-<machine>-<date>.md`` in the current folder for a dry run; a folder as
``--out`` gets ``scale-<machine>-<date>.md`` in it.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import sys
import threading
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
RESULT = ROOT / "eval" / "results" / "bench_scale.md"

from trimsa.io import encode_records  # noqa: E402
from trimsa.scoring import Scoring  # noqa: E402
from trimsa.triplet import plan  # noqa: E402

SETS = ("alternating", "ramp", "random")
IDEAL = {"alternating": "blocked", "ramp": "interleaved", "random": "-"}
POOL = 8  # sequences per distinct length
GRID = 32  # distinct lengths of the ramp and random sets


def build(kind: str, T: int, lmin: int, lmax: int, seed: int = 0):
    """``(seqs, trip)`` of triplet set ``kind`` with ``T`` triplets."""
    rng = np.random.default_rng(seed)
    grid = np.unique(np.linspace(lmin, lmax, GRID).round().astype(int))
    if kind == "alternating":
        grid = np.array([lmin, lmax])
    pools = {int(L): [i * POOL + q for q in range(POOL)] for i, L in enumerate(grid)}
    records = []
    for L in grid:
        for q in range(POOL):
            s = "".join(rng.choice(list("ACGT"), int(L)))
            records.append((f"L{L}_{q}", f"L{L}_{q}", s))
    seqs = encode_records(records, "dna", f"<{kind}>")
    # three distinct members of a pool, for each triplet (one of the 8*7*6 orderings)
    perms = np.array([(a, b, c) for a in range(POOL) for b in range(POOL) for c in range(POOL)
                      if len({a, b, c}) == 3])
    pick = perms[rng.integers(0, len(perms), T)]
    if kind == "alternating":
        cls = np.where(np.arange(T) % 2 == 0, 1, 0)[:, None].repeat(3, 1)
    elif kind == "ramp":
        cls = (np.arange(T) * len(grid) // max(T, 1))[:, None].repeat(3, 1)
    elif kind == "random":
        cls = rng.integers(0, len(grid), (T, 3))
        pick = rng.integers(0, POOL, (T, 3))  # pools differ or the index may repeat: fine
    else:
        raise ValueError(kind)
    trip = (cls * POOL + pick).astype(np.int32)
    return seqs, trip


# -- runners -------------------------------------------------------------------------------

class GpuRunner:
    label = "GPU"

    def __init__(self, gpus):
        from trimsa.triplet.devices import CupyBackend, select_devices

        self.backend = CupyBackend()
        self.devs = select_devices(gpus, self.backend.count())
        import cupy

        self.cupy = cupy
        props = cupy.cuda.runtime.getDeviceProperties(self.devs[0])
        name = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
        self.machine = f"{len(self.devs)}x {name}"
        self.slug = f"{len(self.devs)}x{name.replace('NVIDIA ', '').replace(' ', '')}"

    def counts(self):
        return [n for n in (1, 2, 4, 8) if n <= len(self.devs)]

    def score(self, seqs, trip, n, scheme):
        from trimsa.triplet.devices import score_on_devices

        return score_on_devices(seqs, trip, 0, Scoring.dna(), gpus=self.devs[:n],
                                partition=scheme, backend=self.backend)

    def warm(self, seqs, trip, n):
        # compile and load the kernels of every length class on every device before timing
        spread = trip[np.unique(np.linspace(0, len(trip) - 1, 4096).astype(np.int64))]
        for d in self.devs[:n]:
            self._score_on(d, seqs, spread)

    def _score_on(self, dev, seqs, trip):
        from trimsa.triplet.devices import score_on_devices

        score_on_devices(seqs, trip, 0, Scoring.dna(), gpus=[dev], backend=self.backend)

    def sync(self):
        for d in self.devs:
            with self.cupy.cuda.Device(d):
                self.cupy.cuda.runtime.deviceSynchronize()

    def peak_bytes(self):
        out = []
        for d in self.devs:
            with self.cupy.cuda.Device(d):
                out.append(self.cupy.get_default_memory_pool().total_bytes())
        return max(out)

    def one_device(self, seqs, trip):
        self._score_on(self.devs[0], seqs, trip)

    def measured_balance(self):
        return None

    def close(self):
        pass


def _busy_scorer(seqs, trip, mode, scoring, device, threads):
    """``score_part`` that adds the worker process's CPU seconds to ``worker.trimsa_busy``."""
    from distributed import get_worker

    from trimsa.triplet.distributed import score_part

    t0 = time.process_time()
    res = score_part(seqs, trip, mode, scoring, device, threads)
    w = get_worker()
    w.trimsa_busy = getattr(w, "trimsa_busy", 0.0) + time.process_time() - t0
    return res


def _take_busy(dask_worker):
    busy = getattr(dask_worker, "trimsa_busy", 0.0)
    dask_worker.trimsa_busy = 0.0
    return busy


class SimDevices:
    """Simulated GPUs for :func:`score_on_devices`: a batch sleeps for its modelled time.

    A batch of triplets takes ``cells / rate + count * overhead`` seconds
    (times ``slow`` on the last device); the "score" is the triplet's cells.
    Sleeping releases the GIL as a GPU kernel does, so this measures the
    orchestration and planning on the host with devices of known speed.
    """

    def __init__(self, n, rate, overhead, slow):
        self.n, self.rate, self.overhead, self.slow = n, rate, overhead, slow
        self.local = threading.local()

    def count(self):
        return self.n

    def context(self, device, slot=0):
        sim = self

        class Ctx:
            def __enter__(self):
                sim.local.dev = device

            def __exit__(self, *exc):
                sim.local.dev = None

        return Ctx()

    def free_bytes(self, device):
        return 80 << 30

    def memory_model(self, seqs):
        return plan.memory_model("gpu", sequence_bytes=seqs.codes.nbytes + seqs.offsets.nbytes)

    def score(self, seqs, trip, mode, scoring, out):
        cells = plan.triplet_cells(seqs.lengths, trip)
        dt = cells.sum() / self.rate + len(trip) * self.overhead
        if getattr(self.local, "dev", 0) == self.n - 1:
            dt *= self.slow
        time.sleep(dt)
        out[:] = cells


class SimRunner(GpuRunner):
    def __init__(self, n, rate, slow):
        self.backend = SimDevices(n, rate, 2e-8, slow)
        self.devs = list(range(n))
        extra = f", last device {slow}x slower" if slow != 1 else ""
        self.machine = (f"SIMULATED devices: {n} sleeping fake GPUs at {rate:.3g} cells/s"
                        f"{extra}, host {platform.node()} ({os.cpu_count()} cores)")
        self.slug = f"sim{n}" + (f"-slow{slow:g}" if slow != 1 else "")

    def sync(self):
        pass

    def peak_bytes(self):
        return None


class DaskCpuRunner:
    label = "Dask CPU worker"

    def __init__(self, workers):
        import cloudpickle
        import distributed

        cloudpickle.register_pickle_by_value(sys.modules[__name__])
        self.distributed = distributed
        self.max = workers
        self.clusters = {}
        self.machine = f"CPU dry run: Dask local workers (1 thread each) on {platform.node()}, " \
                       f"{os.cpu_count()} cores"
        self.slug = "cpu-dryrun"

    def counts(self):
        return [n for n in (1, 2, 4, 8) if n <= self.max]

    def client(self, n):
        if n not in self.clusters:
            for c, cl in self.clusters.values():
                c.close()
                cl.close()
            self.clusters.clear()
            cl = self.distributed.LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                                               dashboard_address=":0", silence_logs=40)
            c = self.distributed.Client(cl)
            c.wait_for_workers(n)
            self.clusters[n] = (c, cl)
        return self.clusters[n][0]

    def score(self, seqs, trip, n, scheme):
        from trimsa.triplet.distributed import score_triplets_distributed

        client = self.client(n)
        client.run(_take_busy)
        res = score_triplets_distributed(seqs, trip, scheduler=client, partition=scheme,
                                         device="cpu", threads=1, rate=plan.default_rate("cpu"),
                                         scorer=_busy_scorer)
        busy = np.array(list(client.run(_take_busy).values()))
        self.balance = n / (busy.max() / busy.mean()) if busy.max() > 0 else float(n)
        return res

    def warm(self, seqs, trip, n):
        self.score(seqs, trip[:4 * n], n, "interleaved")  # every worker loads the kernels

    def measured_balance(self):
        return self.balance

    def sync(self):
        pass

    def peak_bytes(self):
        return None

    def one_device(self, seqs, trip):
        from trimsa.triplet import score_triplets

        score_triplets(seqs, trip, device="cpu", threads=1)

    def close(self):
        for c, cl in self.clusters.values():
            c.close()
            cl.close()


def timed(fn):
    t0 = time.perf_counter()
    res = fn()
    return time.perf_counter() - t0, res


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--gpus", default=None, help="GPUs to use (default: every visible one)")
    ap.add_argument("--cpu-workers", type=int, default=0,
                    help="dry run on Dask local CPU workers (1, 2, ... up to this many)")
    ap.add_argument("--simulate", type=int, default=0, metavar="N",
                    help="dry run of the multi-GPU path on N simulated (sleeping) devices")
    ap.add_argument("--sim-rate", type=float, default=5e11,
                    help="cells/s of a simulated device (default 5e11)")
    ap.add_argument("--sim-slow", type=float, default=1.0,
                    help="the last simulated device is this much slower (default 1)")
    ap.add_argument("--seconds", type=float, default=8.0,
                    help="target time of one device per set (default 8)")
    ap.add_argument("--lengths", default="32,256", help="LMIN,LMAX (default 32,256)")
    ap.add_argument("--sets", default=",".join(SETS))
    ap.add_argument("--schemes", default=",".join(plan.SCHEMES),
                    help="partition schemes to time on N > 1 devices (default: all)")
    ap.add_argument("--max-triplets", type=int, default=20_000_000)
    ap.add_argument("--warm-runs", type=int, default=1,
                    help="untimed runs of the whole set at each N before timing it (default 1)")
    ap.add_argument("--out", default=None,
                    help="markdown file, or a folder for scale-<machine>-<date>.md (default: "
                    "eval/results/bench_scale.md for a GPU run, the current folder for a dry run)")
    args = ap.parse_args(argv)
    lmin, lmax = (int(x) for x in args.lengths.split(","))
    sets = args.sets.split(",")
    if args.simulate:
        runner = SimRunner(args.simulate, args.sim_rate, args.sim_slow)
    elif args.cpu_workers:
        runner = DaskCpuRunner(args.cpu_workers)
    else:
        from trimsa.triplet.devices import parse_gpus

        runner = GpuRunner(parse_gpus(args.gpus) if args.gpus else None)
    start = datetime.datetime.now(datetime.timezone.utc)
    load0 = os.getloadavg()[0]
    rows = []
    notes = []
    try:
        for kind in sets:
            seqs, sample = build(kind, 4096, lmin, lmax, seed=1)
            runner.one_device(seqs, sample)  # compile / load the kernels of every length
            rate = plan.calibrate(lambda t: (runner.one_device(seqs, t), runner.sync()),
                                  seqs.lengths, sample, sample=4096 if runner.label == "GPU" else 256)
            per = float(rate.seconds(plan.triplet_cells(seqs.lengths, sample)).mean())
            T = int(min(args.max_triplets, max(1000, args.seconds / per)))
            seqs, trip = build(kind, T, lmin, lmax, seed=2)
            # the small calibration sample overstates the time per triplet of a large set
            # (fixed costs per launch): one timed run on one device sets the size instead
            runner.warm(seqs, trip, 1)
            runner.sync()
            first, _ = timed(lambda: (runner.one_device(seqs, trip), runner.sync()))
            resized = ""
            if first < 0.8 * args.seconds and T < args.max_triplets:
                T2 = int(min(args.max_triplets, T * args.seconds / max(first, 1e-3)))
                resized = f" (resized from {T}, whose one-device run took {first:.2f} s)"
                T = T2
                seqs, trip = build(kind, T, lmin, lmax, seed=2)
            cells = plan.triplet_cells(seqs.lengths, trip)
            notes.append(f"{kind}: T = {T} triplets{resized}, {cells.sum() / 1e9:.2f} G cells, "
                         f"calibrated {rate.cells_per_s / 1e9:.3g} G cells/s + "
                         f"{rate.overhead_s * 1e6:.3g} us/triplet")
            costs = rate.seconds(cells)
            base = None
            ref = None
            for n in runner.counts():
                runner.warm(seqs, trip, n)
                schemes = ["dynamic"] if n == 1 else args.schemes.split(",")
                for _ in range(args.warm_runs):
                    # untimed: the devices' memory pools grow to their working size here,
                    # not inside the first timed scheme
                    runner.score(seqs, trip, n, schemes[0])
                    runner.sync()
                for scheme in schemes:
                    runner.sync()
                    dt, res = timed(lambda: (runner.score(seqs, trip, n, scheme), runner.sync())[0])
                    if ref is None:
                        ref, base = res, dt
                    same = bool(np.array_equal(res, ref))
                    if scheme == "dynamic":
                        parts = plan.dynamic(costs, n)
                    else:
                        parts = plan.partition(costs, n, scheme)
                    ld = plan.loads(costs, parts)
                    model = n / (ld.max() / ld.mean()) if ld.max() > 0 else float(n)
                    rows.append(dict(set=kind, n=n, scheme=scheme if n > 1 else "(one device)",
                                     seconds=dt, speedup=base / dt, model=model,
                                     same=same, peak=runner.peak_bytes(),
                                     busy=runner.measured_balance()))
                    print(f"{kind:12s} N={n} {rows[-1]['scheme']:12s} {dt:8.3f} s  "
                          f"speedup {base / dt:5.2f}  (cost model {model:5.2f})  "
                          f"{'identical' if same else 'DIFFERENT'}", flush=True)
    finally:
        runner.close()
    notes.append(f"load average (1 min) at start / end: {load0:.1f} / {os.getloadavg()[0]:.1f} "
                 f"on {os.cpu_count()} cores")
    write(args, runner, start, rows, notes, lmin, lmax)


def write(args, runner, start, rows, notes, lmin, lmax):
    lines = []
    if isinstance(runner, DaskCpuRunner):
        title = "CPU DRY RUN of the scaling benchmark (not GPU numbers)"
    elif isinstance(runner, SimRunner):
        title = "SIMULATED-DEVICE DRY RUN of the multi-GPU path (not GPU numbers)"
    else:
        title = "Scaling of triplet scoring over GPUs"
    lines.append(f"# {title}\n")
    lines.append(f"- machine: {runner.machine}")
    lines.append(f"- date: {start:%Y-%m-%d %H:%M} UTC")
    lines.append(f"- command: `python {' '.join([sys.argv[0]] + sys.argv[1:])}`")
    lines.append(f"- lengths {lmin}..{lmax}; one device targeted at {args.seconds} s per set")
    for n in notes:
        lines.append(f"- {n}")
    lines.append("")
    lines.append("speedup = time on one device / time on N; 'cost model' = N / (max part cost / "
                 "mean part cost) under the calibrated rate (the speedup if every device ran at "
                 "that rate); 'same' = scores identical to the one-device run.\n")
    peak = any(r["peak"] is not None for r in rows)
    busy = any(r["busy"] is not None for r in rows)
    if busy:
        lines.append("'CPU balance' = N / (max / mean of the CPU seconds each worker process "
                     "spent scoring): the balance actually achieved, which contention for "
                     "the machine's cores does not distort as it distorts wall time. For the "
                     "static schemes it checks the partition; dynamic hands each part to "
                     "whichever worker is free, so a worker that gets more of the shared cores "
                     "does more of the work and its CPU balance shows how unequally the "
                     "machine served the workers.\n")
    head = "| set | N | scheme | seconds | speedup | efficiency | cost model | same |" + \
        (" peak pool MiB |" if peak else "") + (" CPU balance |" if busy else "")
    lines.append(head)
    lines.append("|" + "---|" * (head.count("|") - 1))
    for r in rows:
        line = (f"| {r['set']} | {r['n']} | {r['scheme']} | {r['seconds']:.3f} | "
                f"{r['speedup']:.2f} | {r['speedup'] / r['n']:.2f} | {r['model']:.2f} | "
                f"{'yes' if r['same'] else 'NO'} |")
        if peak:
            line += f" {r['peak'] / 2**20:.0f} |"
        if busy:
            line += f" {r['busy']:.2f} |"
        lines.append(line)
    dyn = [r for r in rows if r["scheme"] == "dynamic" and r["n"] > 1]
    if dyn:
        ok = all(r["speedup"] >= 0.95 * r["n"] for r in dyn)
        lines.append("")
        lines.append(f"Target (dynamic >= 0.95 N for every set and N > 1): "
                     f"{'met' if ok else 'NOT met'} "
                     f"(worst efficiency {min(r['speedup'] / r['n'] for r in dyn):.3f}).")
    text = "\n".join(lines) + "\n"
    print()
    print(text)
    dry = isinstance(runner, (DaskCpuRunner, SimRunner))
    out = Path(args.out) if args.out is not None else (Path(".") if dry else RESULT)
    if out.suffix == ".md":
        out.parent.mkdir(parents=True, exist_ok=True)
        path = out
    else:
        out.mkdir(parents=True, exist_ok=True)
        path = out / f"scale-{runner.slug}-{start:%Y-%m-%d}.md"
    path.write_text(text)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
