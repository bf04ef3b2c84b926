"""The packed 16-bit affine score sweep against the 32-bit one, and its register budget.

    python eval/experiments/2026-11-28-packed-affine/ab.py [BLOCKS ...]

For equal-length random DNA batches (affine -3/-1) at L = 64..512 (global; semiglobal
and local at 256): TCUPS in 32 bits and in packed 16 bits compiled for each BLOCKS
(default 4 3) blocks of 128 threads per SM: 4 caps the registers at 128 (the
default), 3 leaves the compiler what it needs, 5 caps them at 102 (it spills). Every
16-bit score is checked against the 32-bit one.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import trimsa  # noqa: E402
from trimsa import alphabet, kernels  # noqa: E402
from trimsa.scoring import Scoring  # noqa: E402
from trimsa.triplet import _gpu_affine  # noqa: E402
from tests.fakes import random_set  # noqa: E402
from bench_affine import timed  # noqa: E402


def use_blocks(blocks):
    """Compile the affine module with TRIMSA_AFFINE16_BLOCKS = ``blocks``."""
    def module(dev=None):
        import cupy

        return kernels.module(_gpu_affine.KERNEL, _gpu_affine._MODULE_NAMES,
                              options=(f"-DTRIMSA_AFFINE16_BLOCKS={blocks}",),
                              device=cupy.cuda.Device().id if dev is None else dev)
    _gpu_affine._module = module
    _gpu_affine._FUNCTIONS.clear()


def main(argv):
    variants = [int(b) for b in argv] or [4, 3]
    rng = np.random.default_rng(2026_11_28)
    sc = Scoring.dna(gap_open=-3, gap_extend=-1)
    print("| L | mode | triplets | 32-bit TCUPS | "
          + " | ".join(f"16-bit ({b} blocks)" for b in variants) + " | registers |")
    print("|---|---|---:|---:|" + "---:|" * len(variants) + "---|")
    for L in (64, 128, 256, 512):
        T = int(max(2000, min(100_000, 6e10 / L ** 3)))
        seqs = random_set(rng, np.full(3 * T, L), alphabet.DNA)
        trip = np.arange(3 * T, dtype=np.int32).reshape(T, 3)
        cells = T * L ** 3
        for mode in (("global", "semiglobal", "local") if L == 256 else ("global",)):
            row = {}
            regs = []
            use_blocks(4)
            want = trimsa.score_triplets(seqs, trip, mode=mode, scoring=sc, device="gpu",
                                         precision="int32")
            row["32"] = timed(lambda: trimsa.score_triplets(seqs, trip, mode=mode, scoring=sc,
                                                            device="gpu", precision="int32"), 3)
            for blocks in variants:
                use_blocks(blocks)
                got = trimsa.score_triplets(seqs, trip, mode=mode, scoring=sc, device="gpu",
                                            precision="int16")
                assert got.tolist() == want.tolist(), (L, mode, blocks)
                row[blocks] = timed(lambda: trimsa.score_triplets(
                    seqs, trip, mode=mode, scoring=sc, device="gpu", precision="int16"), 3)
                regs.append(int(_gpu_affine._function("score16")[0].num_regs))
            print(f"| {L} | {mode} | {T} | {cells / row['32'] / 1e12:.4f} | "
                  + " | ".join(f"{cells / row[b] / 1e12:.4f}" for b in variants)
                  + f" | {' / '.join(map(str, regs))} |", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
