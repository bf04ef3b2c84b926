"""Counts of shared k-mers in blocks (``trimsa.tree.distances.KmerSets``), on the CPU, on
stand-in GPUs (the host side of several devices) and on real GPUs (``-m gpu``): the same
counts, distances and trees, whatever the device and the size of the blocks."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from trimsa.errors import BackendUnavailableError, OptionError
from trimsa.io import read_sequences
from trimsa.progressive import Aligner
from trimsa.tree import bounded, build_guide_tree, distances
from trimsa.tree.distances import KmerSets, resolve_kmer_device

from .test_tree_bounded import dense_matrix, random_sets, shared_reference

DATA = Path(__file__).parent / "data"
MSA16 = DATA / "msa16_input.fa"


def _gpu_present() -> bool:
    from trimsa.triplet import _gpu

    return _gpu.available() is not None


def _random_bits(rng, n, words):
    bits = rng.integers(0, 2 ** 63, size=(n, words), dtype=np.int64).astype(np.uint64)
    bits &= rng.integers(0, 2 ** 63, size=(n, words), dtype=np.int64).astype(np.uint64)
    bits[rng.random(n) < 0.1] = 0  # sequences with no k-mer
    counts = np.unpackbits(bits.view(np.uint8), axis=1).sum(1).astype(np.int64)
    return bits, counts


class StandInGpus:
    """The host side of :class:`trimsa.tree._gpu.SharedOnGpus` with numpy for the kernel;
    records which device computed each block."""

    def __init__(self, bits, devices):
        self.bits, self.devices, self.used = bits, tuple(devices), []

    def block(self, device, rows, cols, dtype):
        self.used.append(device)
        return shared_reference(self.bits, rows, cols).astype(dtype)


def _with_stand_in(ks, devices=(0, 1, 2)):
    ks._gpus = StandInGpus(ks.bits, devices)
    return ks


def _collect(ks, rows, cols, first):
    return [(i0, i1, c0, s.copy()) for i0, i1, c0, s in ks.blocks(rows, cols, first)]


@pytest.mark.parametrize("seed", range(6))
def test_blocks_are_the_shared_counts_on_the_cpu_and_on_stand_in_gpus(seed, monkeypatch):
    rng = np.random.default_rng(seed)
    n, words = int(rng.integers(2, 60)), int(rng.integers(1, 40))
    bits, counts = _random_bits(rng, n, words)
    rows = rng.permutation(n)[: int(rng.integers(1, n + 1))]
    cols = rng.permutation(n)
    first = (lambda i0: min(i0, n)) if seed % 2 else None
    monkeypatch.setattr(distances, "SHARED_BLOCK_BYTES", int(rng.integers(1, 400)))
    cpu = KmerSets(bits, counts, threads=2)
    got = _collect(cpu, rows, cols, first)
    assert len(got) > 1 and got[0][0] == 0 and got[-1][1] == rows.size
    for (i0, i1, c0, s), nxt in zip(got, got[1:] + [None]):
        assert s.dtype == np.uint16
        assert np.array_equal(s, shared_reference(bits, rows[i0:i1], cols[c0:]))
        assert nxt is None or nxt[0] == i1
    fake = _with_stand_in(KmerSets(bits, counts, threads=2))
    again = _collect(fake, rows, cols, first)
    assert [(a, b, c) for a, b, c, _ in again] == [(a, b, c) for a, b, c, _ in got]
    assert all(np.array_equal(x[3], y[3]) for x, y in zip(again, got))
    assert fake._gpus.used == [(0, 1, 2)[b % 3] for b in range(len(got))]


def test_progress_counts_the_pairs_of_the_blocks(monkeypatch):
    rng = np.random.default_rng(3)
    bits, counts = _random_bits(rng, 30, 3)
    monkeypatch.setattr(distances, "SHARED_BLOCK_BYTES", 100)
    calls = []
    every = np.arange(30)
    for _ in KmerSets(bits, counts).blocks(every, every, lambda i0: i0,
                                           lambda d, t: calls.append((d, t))):
        pass
    assert calls[-1] == (sum(30 - i for i in range(30)),) * 2
    assert [d for d, _ in calls] == sorted(d for d, _ in calls)


def test_counts_of_wide_sets_are_32_bit():
    bits, counts = _random_bits(np.random.default_rng(1), 5, 1024)
    assert KmerSets(bits, counts).dtype == np.int32
    assert KmerSets(bits[:, :1023], counts).dtype == np.uint16


@pytest.mark.parametrize("seed", range(8))
def test_distances_neighbours_and_cluster_sums_do_not_depend_on_blocks_or_devices(
        seed, monkeypatch):
    """One row per block, a few rows, everything in one block, and stand-in GPUs: the same
    matrix, neighbour lists and bounded UPGMA joins, bit for bit; the matrix is numpy's."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 70))
    bits, counts = random_sets(rng, n)
    m = int(rng.integers(2, n + 1))
    K = int(rng.integers(1, n))
    results = []
    for budget, stand_in in ((1, False), (700, False), (1 << 28, False), (300, True)):
        monkeypatch.setattr(distances, "SHARED_BLOCK_BYTES", budget)
        ks = KmerSets(bits, counts, threads=2)
        if stand_in:
            _with_stand_in(ks)
        results.append((ks.distance_matrix(), bounded.neighbours(ks, K),
                        bounded.upgma_joins(ks, 8.0 * m * m, 2)))
    assert np.array_equal(results[0][0], dense_matrix(bits, counts))
    for D, nbrs, (joins, heights, info) in results[1:]:
        assert np.array_equal(D, results[0][0])
        assert all(np.array_equal(a, b) for a, b in zip(nbrs, results[0][1]))
        assert np.array_equal(joins, results[0][2][0])
        assert np.array_equal(heights, results[0][2][1])


def test_the_kmer_device_is_chosen_and_checked():
    assert resolve_kmer_device("auto", distances.KMER_GPU_SEQUENCES - 1) == "cpu"
    assert resolve_kmer_device("cpu", 10 ** 6) == "cpu"
    with pytest.raises(OptionError, match="gpus applies to device 'gpu' or 'auto'"):
        resolve_kmer_device("cpu", 10, gpus=(0,))
    with pytest.raises(OptionError, match="unknown device"):
        resolve_kmer_device("tpu", 10)
    seqs = read_sequences(MSA16)
    tree = build_guide_tree(seqs, distances="kmer", device="auto")
    assert tree.distances.info["device"] == "cpu"


@pytest.mark.skipif("_gpu_present()")
def test_kmer_tree_on_a_gpu_without_one_is_an_error():
    seqs = read_sequences(MSA16)
    with pytest.raises(BackendUnavailableError, match="GPU backend unavailable"):
        build_guide_tree(seqs, distances="kmer", device="gpu")
    with pytest.raises(BackendUnavailableError):
        Aligner(device="gpu", tree_distances="kmer", consistency=0).align(seqs)


# ------------------------------------------------------------------------------ GPU

@pytest.mark.gpu
@pytest.mark.parametrize("words", [1, 31, 33, 64, 70, 1024])
def test_gpu_blocks_are_the_cpu_blocks(words, monkeypatch):
    rng = np.random.default_rng(words)
    n = 300
    bits, counts = _random_bits(rng, n, words)
    rows = rng.permutation(n)[:101]
    cols = rng.permutation(n)[:267]
    monkeypatch.setattr(distances, "SHARED_BLOCK_BYTES", 40 * 267 * 4)
    cpu = _collect(KmerSets(bits, counts, device="cpu"), rows, cols, lambda i0: i0)
    gpu = _collect(KmerSets(bits, counts, device="gpu"), rows, cols, lambda i0: i0)
    assert len(cpu) == len(gpu) > 1
    for a, b in zip(cpu, gpu):
        assert a[:3] == b[:3] and a[3].dtype == b[3].dtype
        assert np.array_equal(a[3], b[3])


@pytest.mark.gpu
def test_kmer_trees_and_alignments_on_the_gpu_are_the_cpus(monkeypatch):
    import cupy

    from trimsa.tree import api as tree_api

    seqs = read_sequences(MSA16)
    for budget in (None, 8 * 6 ** 2):   # the full matrix, then bounded memory
        if budget:
            monkeypatch.setattr(tree_api, "MATRIX_BYTES", budget)
        cpu = Aligner(device="cpu", tree_distances="kmer").align(seqs)
        gpu = Aligner(device="gpu", tree_distances="kmer").align(seqs)
        assert gpu.newick() == cpu.newick() and gpu.rows == cpu.rows
        stage = next(s for s in gpu.stages if s.name == "guide tree")
        visible = cupy.cuda.runtime.getDeviceCount()   # every visible GPU counts k-mers
        assert stage.device == ("gpu" if visible == 1 else f"{visible} gpus")


@pytest.mark.gpu
def test_kmer_tree_on_every_visible_gpu_is_the_one_gpu_tree(monkeypatch):
    import cupy

    count = cupy.cuda.runtime.getDeviceCount()
    if count < 2:
        pytest.skip("one GPU visible")
    rng = np.random.default_rng(5)
    bits, counts = random_sets(rng, 500)
    monkeypatch.setattr(distances, "SHARED_BLOCK_BYTES", 500 * 2 * 16)
    one = bounded.upgma_joins(KmerSets(bits, counts, device="gpu", gpus=(0,)), 8.0 * 50 ** 2)
    every = KmerSets(bits, counts, device="gpu")
    assert every.where == f"{count} gpus"
    many = bounded.upgma_joins(every, 8.0 * 50 ** 2)
    assert np.array_equal(one[0], many[0]) and np.array_equal(one[1], many[1])


def test_kmer_sets_are_the_hashed_kmers_of_each_sequence():
    """Against a Python reading of the definition: the codes present, renumbered, make a
    base-``b`` number of each k-mer, reduced modulo the slots; on two threads."""
    from trimsa.tree.distances import kmer_k, kmer_sets

    seqs = read_sequences(MSA16)
    bits, counts = kmer_sets(seqs, threads=2)
    k = kmer_k(seqs.alphabet.name)
    used = np.unique(seqs.codes)
    rank = {int(c): i for i, c in enumerate(used)}
    nbits = 64 * bits.shape[1]
    for s in range(len(seqs)):
        codes = [rank[int(c)] for c in seqs.code(s)]
        slots = set()
        for p in range(len(codes) - k + 1):
            v = 0
            for c in codes[p:p + k]:
                v = v * used.size + c
            slots.add(v % nbits)
        row = np.unpackbits(bits[s].view(np.uint8), bitorder="little")
        assert set(np.flatnonzero(row)) == slots and counts[s] == len(slots)
