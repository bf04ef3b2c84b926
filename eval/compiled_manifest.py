"""Write ``trimsa/progressive/compiled.json``: the jitted functions each kind of `trimsa run`
calls, with their argument types, compile seconds and when the run first needs them.

`trimsa run` reads it to compile, on a machine whose numba cache is cold, the functions it
will need in helper processes while it runs (``trimsa._numba.Precompiler``). Run this
after changing which jitted functions a run calls or their argument types
(``tests/test_precompile.py`` fails until then); on a GPU machine to cover the GPU
library too (kinds that need a GPU are kept from the existing file otherwise):

    python eval/compiled_manifest.py            # every kind this machine can run
    python eval/compiled_manifest.py --kinds 14,15   # those entries of KINDS only

Each kind runs twice in a fresh process with an empty numba cache: the first run records
the compilations (numba's compile events: the functions called from Python, and those
called from jitted functions that take :data:`NESTED_SECONDS` or more), the second, with
the cache filled, checks that it calls the same functions from Python
(``trimsa._numba.called_functions``). An entry is ``[name, argument types, compile
seconds, seconds from the start of the alignment to the compilation, nesting depth]``.

The kinds are runs on one GPU: the children see only the first visible one
(:func:`one_gpu_env`). On several GPUs, scoring triplets (the triplet guide tree)
also plans equal-cost chunks for the devices (``triplet.plan._greedy_owner`` and
``_bucket``) and gathers them (``triplet.devices._rows`` with other argument types);
the run compiles those three itself the first time, and numba's cache keeps them
(measured on two GPUs: ``eval/experiments/2026-11-27-two-gpus``).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "trimsa" / "progressive" / "compiled.json"

#: (input, Aligner options, needs a GPU): the kinds of run the file lists. The option
#: ``gpu_library`` (not the Aligner's) sends the library to the GPU under ``device="auto"``
#: as a large input would (``api.GPU_LIBRARY_CELLS`` set to 0 in the child), so that the
#: k-mer counts of these small inputs stay on the CPU, as ``auto`` keeps them below
#: ``tree.distances.KMER_GPU_SEQUENCES`` sequences.
KINDS = [
    ("examples/data/input.fa", {"device": "cpu"}, False),
    ("examples/data/input.fa", {"device": "cpu", "library": "tree",
                                "tree_distances": "kmer"}, False),
    ("tests/data/trip3.fa", {"device": "cpu"}, False),
    ("examples/data/input.fa", {"device": "gpu"}, True),
    ("examples/data/input.fa", {"device": "gpu", "library": "tree",
                                "tree_distances": "kmer"}, True),
    ("examples/data/input.fa", {"device": "auto", "gpu_library": True, "library": "tree",
                                "tree_distances": "kmer"}, True),
    # protein: the pair HMM fitted to each pair
    ("tests/data/prot8.fa", {"device": "cpu"}, False),
    ("tests/data/prot8.fa", {"device": "gpu"}, True),
    # the triplet options: the guide tree from triplet scores (the run's affine gaps and
    # linear ones), three sequences by the exact sum of pairs, the triplet votes in the
    # library
    ("examples/data/input.fa", {"device": "cpu", "tree_distances": "triplet"}, False),
    ("examples/data/input.fa", {"device": "gpu", "tree_distances": "triplet"}, True),
    ("examples/data/input.fa", {"device": "cpu", "tree_distances": "triplet", "gap": -3},
     False),
    ("examples/data/input.fa", {"device": "gpu", "tree_distances": "triplet", "gap": -3},
     True),
    ("tests/data/trip3.fa", {"device": "cpu", "exact_triplet": "sum-of-pairs"}, False),
    ("tests/data/trip3.fa", {"device": "gpu", "exact_triplet": "sum-of-pairs"}, True),
    ("examples/data/input.fa", {"device": "cpu", "triplet_votes": 0.1}, False),
    ("examples/data/input.fa", {"device": "gpu", "triplet_votes": 0.1}, True),
    # the same under "auto" on a GPU machine: this small library on the CPU, the triplet
    # stages on the GPU
    ("examples/data/input.fa", {"device": "auto", "tree_distances": "triplet"}, True),
    ("examples/data/input.fa", {"device": "auto", "tree_distances": "triplet", "gap": -3},
     True),
    ("tests/data/trip3.fa", {"device": "auto", "exact_triplet": "sum-of-pairs"}, True),
    ("examples/data/input.fa", {"device": "auto", "triplet_votes": 0.1}, True),
    # the tree's library beside the guide tree of banded pairwise scores (tree_distances
    # "auto" takes it there): on the CPU, on the GPU, and under "auto" on a GPU machine
    # with the library on the GPU (a large input) or on the CPU (a small one)
    ("examples/data/input.fa", {"device": "cpu", "library": "tree"}, False),
    ("examples/data/input.fa", {"device": "gpu", "library": "tree"}, True),
    ("examples/data/input.fa", {"device": "auto", "gpu_library": True, "library": "tree"},
     True),
    ("examples/data/input.fa", {"device": "auto", "library": "tree"}, True),
]

#: trimsa's functions called from other jitted functions are listed too when they take
#: this long to compile (a helper that has cached one spares the caller's compilation
#: that time).
NESTED_SECONDS = 0.5

CHILD = r"""
import json, sys, time
from numba.core import event
import trimsa, trimsa._numba as tn
from trimsa.progressive import api

starts = []
events = []
t_align = [None]
class Compiles(event.Listener):
    def on_start(self, ev):
        starts.append(time.perf_counter())
    def on_end(self, ev):
        t0 = starts.pop()
        d = ev.data["dispatcher"]
        try:
            args = [tn.encode_type(t) for t in ev.data["args"]]
        except ValueError:
            if not starts:
                raise
            return   # a function called from jitted code with a type the file cannot hold
        if t_align[0] is not None:
            events.append([tn.name_of(d), args,
                           round(time.perf_counter() - t0, 2), round(t0 - t_align[0], 2),
                           len(starts)])
event.register("numba:compile", Compiles())
align = api.Aligner.align
def timed(self, *args, **kwargs):
    t_align[0] = time.perf_counter()
    return align(self, *args, **kwargs)
api.Aligner.align = timed
kinds = []
def spy(self, *args):   # the run's kind, and no helpers: this run compiles everything
    kinds.append(self.compile_kind(*args))
    return []
api.Aligner._compile_ahead = spy
options = json.loads(sys.argv[2])
if options.pop("gpu_library", False):
    api.GPU_LIBRARY_CELLS = 0
trimsa.align(sys.argv[1], **options)
events.sort(key=lambda e: e[3])
print(json.dumps({"key": kinds[0], "events": events,
                  "called": sorted([n, list(a)] for n, a in tn.called_functions())}))
"""


def one_gpu_env(env: dict) -> dict:
    """``env`` with CUDA_VISIBLE_DEVICES narrowed to its first device (the kinds are
    runs on one GPU)."""
    first = env.get("CUDA_VISIBLE_DEVICES", "0").split(",")[0].strip()
    return dict(env, CUDA_VISIBLE_DEVICES=first)


def run_kind(path: str, options: dict, cache: str) -> dict:
    env = one_gpu_env(dict(
        os.environ, NUMBA_CACHE_DIR=cache, TRIMSA_NUMBA_CACHE="1",
        PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))))
    out = subprocess.run([sys.executable, "-c", CHILD, path, json.dumps(options)],
                         env=env, cwd=ROOT, capture_output=True, text=True)
    if out.returncode:
        raise SystemExit(f"{path} {options}:\n{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cpu-only", action="store_true", help="skip the kinds that need a GPU")
    ap.add_argument("--kinds", default=None, metavar="I,J,...",
                    help="only these entries of KINDS (numbered from 0); the file keeps the "
                         "others as they are")
    args = ap.parse_args(argv)
    chosen = (set(range(len(KINDS))) if args.kinds is None
              else {int(i) for i in args.kinds.split(",")})
    try:
        import cupy

        gpu = cupy.cuda.runtime.getDeviceCount() > 0 and not args.cpu_only
    except Exception:
        gpu = False
    manifest = json.loads(OUT.read_text()) if OUT.exists() else {}
    for i, (path, options, needs_gpu) in enumerate(KINDS):
        if i not in chosen:
            continue
        if needs_gpu and not gpu:
            print(f"skipped (no GPU): {path} {options}", file=sys.stderr)
            continue
        with tempfile.TemporaryDirectory() as cache:
            first = run_kind(path, options, cache)
            second = run_kind(path, options, cache)
        recorded = sorted([n, a] for n, a, _, _, depth in first["events"] if depth == 0)
        if recorded != second["called"]:
            raise SystemExit(f"{path} {options}: the functions compiled on a cold cache "
                             f"differ from those called on a warm one")
        manifest[first["key"]] = [e for e in first["events"] if e[4] == 0 or (
            e[2] >= NESTED_SECONDS and e[0].startswith("trimsa.") and "<" not in e[0])]
        total = sum(e[2] for e in first["events"] if e[4] == 0)
        print(f"{first['key']}: {len(recorded)} functions, {total:.1f} s to compile",
              file=sys.stderr)
    OUT.write_text("{\n" + ",\n".join(
        f" {json.dumps(kind)}: [\n" + ",\n".join(f"  {json.dumps(e)}" for e in entries) + "\n ]"
        for kind, entries in sorted(manifest.items())) + "\n}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
