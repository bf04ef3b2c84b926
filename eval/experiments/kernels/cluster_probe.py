"""Probe of thread-block clusters through CuPy (GPU, sm_90): do they work, and what a handoff costs.

A design for multi-region planes (eval/experiments/kernels/LOG.md, session 11) would sweep a plane's regions
at once in the blocks of a cluster and pass each layer's faces to the neighbour region
through distributed shared memory (DSMEM) instead of global memory. Before building it,
this script checks the pieces on the machine at hand:

1. a kernel with a compile-time cluster shape (``__cluster_dims__``) compiles with NVRTC
   and launches through ``cupy.RawModule`` like any other (no launch API change);
2. DSMEM (``mapa`` + ``st.shared::cluster``) and the cluster barrier move the right
   values: every thread writes into the next block's shared memory, then each block
   reads its own (checked against numpy);
3. the latency of one handoff: two threads take turns, each waiting for its flag and
   then raising the other's, ``--rounds`` times: in two blocks of a cluster of 2 through
   DSMEM (release / acquire at cluster scope, and relaxed), in two blocks of a plain
   launch through global memory (volatile loads, ``__threadfence``, as the split mode's
   flags), and in two warps of one block through its shared memory (the floor).
   Cycles per handoff by ``clock64``; several runs, the median.

Usage::

    python eval/experiments/kernels/cluster_probe.py [--cluster 2,4,8] [--rounds 20000] [--out FILE]
"""

from __future__ import annotations

import argparse
import datetime
import platform

import numpy as np

SOURCE = r"""
__device__ __forceinline__ unsigned cluster_rank() {
    unsigned r; asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r)); return r;
}
__device__ __forceinline__ unsigned cluster_blocks() {
    unsigned n; asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(n)); return n;
}
// the address of the same shared variable in block `rank` of the cluster
__device__ __forceinline__ unsigned peer_addr(const void* local, unsigned rank) {
    unsigned a = (unsigned)__cvta_generic_to_shared(local), r;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(rank));
    return r;
}
__device__ __forceinline__ void cluster_sync() {
    asm volatile("barrier.cluster.arrive.release;\n\tbarrier.cluster.wait.acquire;" ::: "memory");
}

template <int C>
__global__ void __cluster_dims__(C, 1, 1) exchange(unsigned* out) {
    __shared__ unsigned box[128];
    const unsigned rank = cluster_rank();
    const unsigned next = (rank + 1) % cluster_blocks();
    cluster_sync();   // every block of the cluster has started (its shared memory exists)
    const unsigned v = blockIdx.x * 1000u + threadIdx.x;
    asm volatile("st.shared::cluster.u32 [%0], %1;" :: "r"(peer_addr(&box[threadIdx.x], next)), "r"(v) : "memory");
    cluster_sync();
    out[blockIdx.x * 128 + threadIdx.x] = box[threadIdx.x];
    cluster_sync();   // nobody leaves while another block may still write to it
}

// RELAXED: plain accesses to the flag (no release / acquire), the flag alone
template <bool RELAXED>
__global__ void __cluster_dims__(2, 1, 1) pingpong_dsmem(int rounds, long long* cycles) {
    __shared__ int flag;
    const unsigned rank = cluster_rank();
    if (threadIdx.x == 0) flag = rank == 0 ? 0 : -1;
    cluster_sync();
    if (threadIdx.x == 0) {
        const unsigned mine = (unsigned)__cvta_generic_to_shared(&flag), peer = peer_addr(&flag, rank ^ 1);
        const long long t0 = clock64();
        for (int k = (int)rank; k < 2 * rounds; k += 2) {
            int seen;
            do {
                if (RELAXED) asm volatile("ld.volatile.shared.u32 %0, [%1];" : "=r"(seen) : "r"(mine) : "memory");
                else asm volatile("ld.acquire.cluster.shared::cta.u32 %0, [%1];" : "=r"(seen) : "r"(mine) : "memory");
            } while (seen != k);
            if (RELAXED) asm volatile("st.relaxed.cluster.shared::cluster.u32 [%0], %1;" :: "r"(peer), "r"(k + 1) : "memory");
            else asm volatile("st.release.cluster.shared::cluster.u32 [%0], %1;" :: "r"(peer), "r"(k + 1) : "memory");
        }
        cycles[blockIdx.x] = clock64() - t0;
    }
    cluster_sync();
}

// two warps of one block through its own shared memory: the floor of any handoff
__global__ void pingpong_block(int rounds, long long* cycles) {
    __shared__ volatile int flags[2];
    const int rank = threadIdx.x / 32;
    if (threadIdx.x == 0) { flags[0] = 0; flags[1] = -1; }
    __syncthreads();
    if (threadIdx.x % 32 == 0) {
        const long long t0 = clock64();
        for (int k = rank; k < 2 * rounds; k += 2) {
            while (flags[rank] != k) { }
            flags[rank ^ 1] = k + 1;
        }
        cycles[rank] = clock64() - t0;
    }
}

__global__ void pingpong_global(int rounds, volatile int* flags, long long* cycles) {
    const int rank = blockIdx.x;
    if (threadIdx.x == 0) {
        const long long t0 = clock64();
        for (int k = rank; k < 2 * rounds; k += 2) {
            while (flags[rank] != k) { }
            __threadfence();
            flags[rank ^ 1] = k + 1;
        }
        cycles[blockIdx.x] = clock64() - t0;
    }
}
"""


def run(cluster_sizes, rounds, reps, log):
    import cupy

    # (label, kernel, blocks, threads): the handoff paths timed
    handoffs = (("dsmem", "pingpong_dsmem<false>", 2, 32), ("dsmem_relaxed", "pingpong_dsmem<true>", 2, 32),
                ("global", "pingpong_global", 2, 32), ("block", "pingpong_block", 1, 64))
    names = [f"exchange<{c}>" for c in cluster_sizes] + [h[1] for h in handoffs]
    mod = cupy.RawModule(code=SOURCE, options=("-std=c++17",), name_expressions=names)
    bad = 0
    log("| check | cluster | blocks | wrong |\n|---|---:|---:|---:|")
    for c in cluster_sizes:
        blocks = 4 * c
        out = cupy.zeros(blocks * 128, dtype=cupy.uint32)
        mod.get_function(f"exchange<{c}>")((blocks,), (128,), (out,))
        b = np.arange(blocks)
        prev = (b // c) * c + (b % c - 1) % c   # the block of the cluster that writes into b
        want = (prev[:, None] * 1000 + np.arange(128)[None, :]).ravel().astype(np.uint32)
        wrong = int((out.get() != want).sum())
        bad += wrong
        log(f"| DSMEM exchange | {c} | {blocks} | {wrong} |")
    res = []
    cyc = cupy.zeros(2, dtype=cupy.int64)
    for label, kernel, blocks, threads in handoffs:
        per = []
        for _ in range(reps):
            # the global path's flags: thread 0 of block 0 goes first
            flags = (cupy.array([0, -1], dtype=cupy.int32),) if label == "global" else ()
            mod.get_function(kernel)((blocks,), (threads,), (np.int32(rounds),) + flags + (cyc,))
            cupy.cuda.Device().synchronize()
            per.append(float(cyc.get().max()) / (2 * rounds))
        res.append((label, float(np.median(per)), min(per), max(per)))
    log("\n| handoff | cycles (median) | min | max |\n|---|---:|---:|---:|")
    for label, med, lo, hi in res:
        log(f"| {label} | {med:.0f} | {lo:.0f} | {hi:.0f} |")
    return bad


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cluster", default="2,4,8", help="cluster sizes to check")
    ap.add_argument("--rounds", type=int, default=20000)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--out")
    args = ap.parse_args(argv)
    import cupy

    lines = []

    def log(s):
        print(s, flush=True)
        lines.append(s)

    name = cupy.cuda.runtime.getDeviceProperties(0)["name"].decode()
    log(f"<!-- {name}, {datetime.date.today()}, {platform.node()}; command: python eval/experiments/kernels/cluster_probe.py "
        f"--cluster {args.cluster} --rounds {args.rounds} --reps {args.reps} -->")
    bad = run([int(x) for x in args.cluster.split(",")], args.rounds, args.reps, log)
    log(f"\nwrong values: {bad}")
    if args.out:
        with open(args.out, "w") as f:
            f.write("\n".join(lines) + "\n")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
