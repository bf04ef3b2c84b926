"""Where the time of the library on Dask workers goes (n10k, the tree's 128 pairs per merge).

    python eval/experiments/2026-11-25-run-scale/dask_overhead.py SET/input.fa.gz [cpu]

Builds the same library in this process (GPU and CPU) and on local clusters (1 GPU
worker; 4 CPU workers), each cluster warmed up on 2,000 pairs first, and prints the wall
time next to the workers' compute time per part (Dask's task stream).
"""
import os
import sys
import time

import numpy as np

from trimsa.io import read_sequences
from trimsa.progressive import consistency as C
from trimsa.progressive.api import Aligner
from trimsa.tree import build_guide_tree
from trimsa.triplet.distributed import connect


def main():
    import distributed

    seqs = read_sequences(sys.argv[1])
    al = Aligner()
    used, codes = al._compact(seqs)
    sc = al.scoring(seqs)
    from trimsa.progressive import engine

    ps = engine.make_profile_scoring(sc.table, used, sc.gap_open, sc.gap_extend, 0.5)
    tree = build_guide_tree(seqs, distances="kmer", method="upgma").binary()
    pairs = C.tree_pairs(tree, 128)
    args = (codes, ps.table[:-1, :-1], ps.gap_open, ps.gap_extend, ps.term)
    print(f"{len(seqs)} sequences, {len(pairs)} pairs", flush=True)
    gpu = sys.argv[2:] != ["cpu"]
    for device in ("gpu", "cpu")[0 if gpu else 1:]:
        C.build_library(*args, pairs=pairs[:2000], posterior=True, device=device, threads=os.cpu_count())
        t = time.perf_counter()
        C.build_library(*args, pairs=pairs, posterior=True, device=device, threads=os.cpu_count())
        print(f"in this process, {device}: {time.perf_counter() - t:.1f} s", flush=True)
    for spec, device in (("local:1", "gpu"), ("local:4", "cpu"))[0 if gpu else 1:]:
        t = time.perf_counter()
        with connect(spec, device=device) as client:
            print(f"{spec} started in {time.perf_counter() - t:.1f} s", flush=True)
            C.build_library(*args, pairs=pairs[:2000], posterior=True, device=device,
                            scheduler=client)
            with distributed.get_task_stream(client) as ts:
                t = time.perf_counter()
                C.build_library(*args, pairs=pairs, posterior=True, device=device,
                                scheduler=client)
                wall = time.perf_counter() - t
            acts = {}
            for task in ts.data:
                for ss in task["startstops"]:
                    acts[ss["action"]] = acts.get(ss["action"], 0.0) + ss["stop"] - ss["start"]
            print(f"{spec} {device}: wall {wall:.1f} s; summed over tasks: "
                  + ", ".join(f"{k} {v:.1f} s" for k, v in sorted(acts.items())), flush=True)


if __name__ == "__main__":
    main()
