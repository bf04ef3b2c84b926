"""The consistency library's pairwise stage on the GPU (``progressive/_gpu.py``,
``kernels/pair_library.cu``) against the CPU's: the same arrays, bit for bit.

Without a GPU, the kernels' logic is checked compiled as C++ for the CPU
(:class:`tests.fakes.EmulatedKernels`); on a GPU (``-m gpu``) the real thing.
"""

from __future__ import annotations

import shutil
import sys

import numpy as np
import pytest

from trimsa.errors import BackendUnavailableError, OptionError
from trimsa.progressive import Aligner, _gpu, consistency
from trimsa.progressive.pair_hmm import FITTED, PairHmm

from .fakes import EmulatedKernels
from .fakes import assert_same_library as assert_same


def related(rng, n, k, length, mutate, indels):
    """``n`` code arrays over ``k`` codes: copies of one random sequence with substitutions
    (share ``mutate``) and up to ``indels`` insertions or deletions of 1-14 residues."""
    base = rng.integers(0, k, length)
    out = []
    for _ in range(n):
        c = base.copy()
        hit = rng.random(c.size) < mutate
        c[hit] = rng.integers(0, k, hit.sum())
        for _ in range(int(rng.integers(0, indels + 1))):
            p, L = int(rng.integers(0, c.size + 1)), int(rng.integers(1, 15))
            c = (np.concatenate([c[:p], rng.integers(0, k, L), c[p:]]) if rng.random() < 0.5
                 else np.concatenate([c[:p], c[p + L:]]))
        out.append((c if c.size else rng.integers(0, k, 1)).astype(np.int64))
    return out


def random_case(seed):
    rng = np.random.default_rng(seed)
    k = int(rng.choice([4, 5, 21]))
    codes = related(rng, int(rng.integers(2, 8)), k, int(rng.integers(1, 90)),
                    rng.uniform(0, 0.5), 3)
    table = rng.normal(0, 2, (k, k)).round().astype(np.float32)
    table = (table + table.T) / 2 + 3 * np.eye(k, dtype=np.float32)
    gaps = (float(rng.choice([0.0, -3.0, -10.0])), float(rng.choice([-0.5, -1.0])),
            float(rng.choice([0.0, 0.5, 1.0])))
    return codes, table, gaps, bool(rng.random() < 0.8), random_hmm(rng, k)


def random_hmm(rng, k):
    """The fitted pair HMM, or (two times in three) a five-state one with random odds over
    ``k`` codes and random short and long gaps."""
    if rng.random() < 1 / 3:
        return FITTED
    odds = rng.uniform(0.1, 4.0, (k, k))
    gaps = np.array([rng.uniform(0.001, 0.1), rng.uniform(0.2, 0.7),
                     rng.uniform(0.0, 0.1), rng.uniform(0.7, 0.97)])
    return PairHmm("trained", (odds + odds.T) / 2, gaps)


def libraries(codes, table, gaps, posterior, slots=None, hmm=None, **gpu):
    cpu = consistency.build_library(codes, table, *gaps, posterior=posterior, hmm=hmm,
                                    threads=2, slots=slots)
    dev = consistency.build_library(codes, table, *gaps, posterior=posterior, hmm=hmm,
                                    threads=2, slots=slots, device="gpu", **gpu)
    return cpu, dev


@pytest.fixture(scope="module")
def emulated(tmp_path_factory):
    compiler = shutil.which("g++") or shutil.which("c++")
    if compiler is None:
        pytest.skip("no C++ compiler to build the kernels for the CPU")
    return EmulatedKernels(_gpu.KERNEL, tmp_path_factory.mktemp("emu"), compiler)


@pytest.fixture
def on_emulated_gpu(emulated, monkeypatch):
    monkeypatch.setitem(sys.modules, "cupy", emulated.cupy)
    monkeypatch.setattr(_gpu, "_functions", lambda: (emulated.function("pair_viterbi", 5),
                                                     emulated.function("pair_band", 5),
                                                     emulated.function("pair_posteriors", 5)))
    return emulated


@pytest.mark.parametrize("seed", range(12))
def test_emulated_kernels_give_the_cpu_library(on_emulated_gpu, monkeypatch, seed):
    codes, table, gaps, posterior, hmm = random_case(seed)
    # a small memory share also cuts the pairs into several batches
    on_emulated_gpu.free = [8 << 30, 4e5][seed % 2]
    if seed % 3 == 2:   # batches cut by the host's share instead
        monkeypatch.setattr(_gpu, "HOST_BATCH_BYTES", 1000)
    slots = (None, 1, 2)[seed % 3] if posterior else None
    # the default band, a narrow one and every column (pair_band against path_band)
    monkeypatch.setattr(consistency, "POSTERIOR_BAND", (64, 3, -1)[seed // 3 % 3])
    cpu, dev = libraries(codes, table, gaps, posterior, slots, hmm)
    assert_same(cpu, dev)
    assert dev.maps.shape[1] == (slots or (consistency.POSTERIOR_SLOTS if posterior else 1))
    if posterior and seed == 0:
        assert dev.n_posterior > 0


@pytest.mark.parametrize("seed", range(4))
def test_emulated_library_on_two_gpus_is_the_one_gpu_library(on_emulated_gpu, seed):
    codes, table, gaps, posterior, hmm = random_case(200 + seed)
    on_emulated_gpu.devices = 2
    seen = []
    one = consistency.build_library(codes, table, *gaps, posterior=posterior, hmm=hmm,
                                    device="gpu", gpus=[0], threads=2)
    two = consistency.build_library(codes, table, *gaps, posterior=posterior, hmm=hmm,
                                    device="gpu", gpus=[0, 1], threads=2,
                                    progress=lambda done, total: seen.append((done, total)))
    assert_same(one, two)
    assert seen[-1] == (two.n_pairs, two.n_pairs) and seen == sorted(seen)
    with pytest.raises(OptionError, match="GPU 2 does not exist"):
        consistency.build_library(codes, table, *gaps, device="gpu", gpus=[2])


def test_gpus_option_is_checked(tmp_path):
    with pytest.raises(OptionError, match="not 'cpu'"):
        Aligner(device="cpu", gpus=[0])
    with pytest.raises(OptionError, match="distinct device numbers"):
        Aligner(gpus=[0, 0])
    tree = tmp_path / "t.nwk"
    tree.write_text("((seq1,seq2),(seq3,seq4));\n")
    with pytest.raises(OptionError, match="no consistency library and no k-mer guide tree"):
        Aligner(gpus=[0], consistency=0, guide_tree=str(tree)).align(
            ["ACGTACGTAA", "ACGTTCGTA", "AGGTACGAA", "AGGTACGTA"])


@pytest.mark.parametrize("every", [1, 2])
def test_pairs_whose_posteriors_fail_vote_with_their_alignment(on_emulated_gpu, monkeypatch,
                                                               every):
    # the posteriors kernel reports every pair (or every other one) not finite: each such
    # pair falls back to its alignment, as on the CPU; the others keep their posteriors
    posteriors = on_emulated_gpu.function("pair_posteriors", 5)

    def failing(grid, block, args):
        posteriors(grid, block, args)
        args[-1][::every] = 0

    monkeypatch.setattr(_gpu, "_functions", lambda: (
        on_emulated_gpu.function("pair_viterbi", 5), on_emulated_gpu.function("pair_band", 5),
        failing))
    codes, table, gaps, _, _ = random_case(5)
    dev = consistency.build_library(codes, table, *gaps, posterior=True, device="gpu")
    post = consistency.build_library(codes, table, *gaps, posterior=True)
    aln = consistency.build_library(codes, table, *gaps, posterior=False)
    assert post.n_posterior == post.n_pairs   # on the CPU every pair has posteriors
    kept = 0
    for s in range(dev.n):
        rows = slice(0, len(codes[s]))
        for k in range(dev.nbr_ptr[s], dev.nbr_ptr[s + 1]):
            r = slice(dev.nbr_map[k] + rows.start, dev.nbr_map[k] + rows.stop)
            if dev.nbr_trust[k] == 1.0 and np.array_equal(dev.maps[r], post.maps[r]):
                assert np.array_equal(dev.probs[r], post.probs[r])
                kept += 1
                continue
            assert np.array_equal(dev.maps[r, 0], aln.maps[r, 0])
            assert np.array_equal(dev.probs[r, 0], aln.probs[r, 0])
            assert (dev.maps[r, 1:] == -1).all() and (dev.probs[r, 1:] == 0).all()
            assert dev.nbr_trust[k] == aln.nbr_trust[k]
    assert kept == 2 * dev.n_posterior   # each pair is seen from both of its sequences
    assert dev.n_posterior == (0 if every == 1 else dev.n_pairs // 2)


def test_batches_fit_the_budget_and_cover_every_pair_in_order():
    rng = np.random.default_rng(0)
    la = np.sort(rng.integers(1, 400, 500))[::-1]
    lb = rng.integers(1, 400, 500)
    budget = 2e7
    runs = list(_gpu.batches(la, lb, 64, 4, True, budget))
    assert runs[0][0] == 0 and runs[-1][1] == la.size
    assert all(a[1] == b[0] for a, b in zip(runs, runs[1:]))
    for s, e in runs:
        need = _gpu.pair_bytes(la[s:e].max(), lb[s:e].max(), 64, 4, True) * (e - s)
        assert need <= budget
        if e < la.size:   # one more pair would not have fitted
            assert (_gpu.pair_bytes(la[s:e + 1].max(), lb[s:e + 1].max(), 64, 4, True)
                    * (e + 1 - s)) > budget
    with pytest.raises(MemoryError, match="400 x 399 residues"):
        list(_gpu.batches(np.array([400]), np.array([399]), 64, 4, True, 1e5))
    # the host's share: each run's results add up to at most its budget (one pair at least)
    host = _gpu.host_bytes(la, lb, 4)
    runs = list(_gpu.batches(la, lb, 64, 4, True, 1e12, host_budget=3 * host.max()))
    assert len(runs) > 1 and runs[-1][1] == la.size
    assert all(host[s:e].sum() <= 3 * host.max() for s, e in runs)
    assert list(_gpu.batches(la[:2], lb[:2], 64, 4, True, 1e12, host_budget=1)) == [(0, 1),
                                                                                      (1, 2)]


def test_gpu_library_without_a_gpu_is_a_clear_error():
    from trimsa.triplet import _gpu as triplet_gpu

    if triplet_gpu.available() is not None:
        pytest.skip("a GPU is visible")
    codes, table, gaps, _, _ = random_case(0)
    with pytest.raises(BackendUnavailableError, match="GPU backend unavailable"):
        Aligner(device="gpu").align(["ACGTACGTAA", "ACGTTCGTA", "AGGTACGAA"])
    assert Aligner(device="auto").align(["ACGTACGTAA", "ACGTTCGTA", "AGGTACGAA"]).stages


def test_gpu_with_no_library_and_a_given_tree_is_an_option_error(tmp_path):
    tree = tmp_path / "t.nwk"
    tree.write_text("((seq1,seq2),seq3);\n")
    with pytest.raises(OptionError, match="no stage of this alignment has a GPU path"):
        Aligner(device="gpu", consistency=0, guide_tree=str(tree)).align(
            ["ACGTACGTAA", "ACGTTCGTA", "AGGTACGAA"])


@pytest.mark.gpu
@pytest.mark.parametrize("seed", range(30))
def test_gpu_library_is_the_cpu_library(seed):
    codes, table, gaps, posterior, hmm = random_case(seed)
    assert_same(*libraries(codes, table, gaps, posterior, hmm=hmm))


@pytest.mark.gpu
def test_gpu_library_of_long_sequences_in_batches(monkeypatch):
    rng = np.random.default_rng(7)
    codes = related(rng, 12, 4, 700, 0.25, 8)
    table = np.where(np.eye(4, dtype=bool), 2.0, -1.0).astype(np.float32)
    monkeypatch.setattr(_gpu, "MEM_FRACTION", 1e-4)   # several batches
    assert_same(*libraries(codes, table, (-3.0, -1.0, 0.5), True))


@pytest.mark.gpu
def test_gpu_library_on_every_visible_gpu_is_the_one_gpu_library():
    import cupy

    if cupy.cuda.runtime.getDeviceCount() < 2:
        pytest.skip("one GPU visible")
    rng = np.random.default_rng(9)
    codes = related(rng, 40, 4, 300, 0.2, 4)
    table = np.where(np.eye(4, dtype=bool), 2.0, -1.0).astype(np.float32)
    one = consistency.build_library(codes, table, -3.0, -1.0, 0.5, posterior=True,
                                    device="gpu", gpus=[0])
    every = consistency.build_library(codes, table, -3.0, -1.0, 0.5, posterior=True,
                                      device="gpu")
    assert_same(one, every)


@pytest.mark.gpu
def test_run_on_the_gpu_is_the_run_on_the_cpu(data_dir):
    inp = str(data_dir / "msa16_input.fa")
    cpu = Aligner(device="cpu").align(inp)
    gpu = Aligner(device="gpu").align(inp)
    assert gpu.rows == cpu.rows
    lib = [s for s in gpu.stages if s.name == "library"]
    assert lib and lib[0].device == "gpu"


@pytest.mark.gpu
def test_run_with_the_trees_library_on_the_gpu_is_the_run_on_the_cpu(data_dir, monkeypatch):
    """Beside the tree's library, ``auto``'s guide tree of banded pairwise scores (where it
    does not take the triplet tree, whose design follows the device's rates: here never)
    is scored on the GPU, bit for bit the CPU's: the same tree and alignment."""
    from trimsa.progressive import api

    monkeypatch.setattr(api, "TRIPLET_TREE_MIN_SEQUENCES", 10 ** 9)
    inp = str(data_dir / "msa16_input.fa")
    cpu = Aligner(device="cpu", library="tree").align(inp)
    gpu = Aligner(device="gpu", library="tree").align(inp)
    auto = Aligner(device="auto", library="tree").align(inp)
    assert gpu.newick() == cpu.newick() == auto.newick()
    assert gpu.rows == cpu.rows == auto.rows
    tree = {s.name: s for s in gpu.stages}["guide tree"]
    assert tree.device == "gpu" and "banded pairwise scores" in tree.method
    np.testing.assert_array_equal(gpu.guide.distances.matrix, cpu.guide.distances.matrix)


@pytest.mark.gpu
@pytest.mark.parametrize("source", ["triplet", "pair-score"])
def test_run_on_auto_says_nothing_of_its_gpu_tree(data_dir, capsys, source):
    """``auto`` resolves the guide tree's device quietly, as it does the library's: the
    tree runs on the GPU, ``-v``'s stage names it, and nothing else reaches stderr."""
    inp = str(data_dir / "msa16_input.fa")
    capsys.readouterr()
    res = Aligner(device="auto", tree_distances=source).align(inp)
    assert capsys.readouterr().err == ""
    assert {s.name: s for s in res.stages}["guide tree"].device == "gpu"
