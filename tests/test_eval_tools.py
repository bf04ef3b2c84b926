"""Helpers of eval/bench_kernels.py (a maintained benchmark) that run without a GPU.

The tests of the kernel-study tools live with them: ``python -m pytest eval/experiments/kernels``.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _load(name):
    spec = importlib.util.spec_from_file_location(name, ROOT / "eval" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def test_bench_unequal_lengths_builds_the_shape_asked_for():
    bk = _load("bench_kernels")
    import numpy as np

    seqs, trip = bk.unequal_lengths(np.random.default_rng(3), 40, 17, 29, 40 * 17 * 29 * 1000)
    assert trip.shape == (1000, 3)
    lens = seqs.lengths[trip]
    assert (lens[:, 0] == 40).all() and (lens[:, 1] == 17).all() and (lens[:, 2] == 29).all()
    # a small budget still gives a batch that fills the GPU
    assert bk.unequal_lengths(np.random.default_rng(3), 40, 17, 29, 1)[1].shape[0] == 256


def test_bench_fasta_triplets_draw_distinct_sequences_of_the_file():
    bk = _load("bench_kernels")
    import numpy as np

    path = ROOT / "tests" / "data" / "six.fa"
    seqs, trip = bk.fasta_triplets(np.random.default_rng(5), path, 1)
    assert len(seqs.names) == 6 and trip.shape == (256, 3)
    assert trip.min() >= 0 and trip.max() < 6
    assert (trip[:, 0] != trip[:, 1]).all() and (trip[:, 0] != trip[:, 2]).all() and (trip[:, 1] != trip[:, 2]).all()
    # every sequence gets drawn: the rows are not stuck on a few indices
    assert set(np.unique(trip)) == set(range(6))
    # three sequences: every row is a permutation of the three
    assert (np.sort(bk.distinct_triplets(np.random.default_rng(1), 3, 50), axis=1) == [0, 1, 2]).all()


def test_bench_equal_lengths_takes_whole_waves_within_the_cell_cap():
    bk = _load("bench_kernels")
    import numpy as np

    rng = np.random.default_rng(2)
    wave = 2112   # an H100's 1,056 resident groups of (8, 8, 4, 8), two triplets each
    # the budget alone: 4e11 // 512^3 = 2980 triplets (1.4 waves); 8 waves (16896) are under 3e12 cells
    seqs, trip = bk.equal_lengths(rng, 512, 4e11, wave, 3e12)
    assert trip.shape == (16896, 3) and (seqs.lengths == 512).all()
    # L = 1024: 3e12 cells hold 1.3 waves: one whole wave
    assert bk.equal_lengths(rng, 1024, 4e11, wave, 3e12)[1].shape[0] == 2112
    # L = 256: 4e11 // 256^3 = 23841 triplets, 11.3 waves -> 11 whole ones
    assert bk.equal_lengths(rng, 256, 4e11, wave, 3e12)[1].shape[0] == 11 * 2112
    # without a wave: the budget, at least 2048
    assert bk.equal_lengths(rng, 512, 4e11)[1].shape[0] == 2980
    assert bk.equal_lengths(rng, 1024, 4e11)[1].shape[0] == 2048

