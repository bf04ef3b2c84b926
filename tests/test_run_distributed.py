"""The stages of ``trimsa run`` on Dask workers: the library and the triplet guide tree
are those of one process, bit for bit."""

from pathlib import Path

import numpy as np
import pytest

from trimsa.errors import OptionError
from trimsa.progressive import Aligner
from trimsa.progressive import consistency as C
from trimsa.scoring import Scoring
from trimsa.tree import build_guide_tree

from .fakes import assert_same_library

distributed = pytest.importorskip("distributed")

DATA = str(Path(__file__).parent / "data" / "msa16_input.fa")


@pytest.fixture(scope="module")
def client(dask_client):
    return dask_client


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("posterior", [False, True])
def test_library_on_workers_equals_one_process(client, seed, posterior):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 14))
    codes = [rng.integers(0, 4, int(rng.integers(1, 70))) for _ in range(n)]
    table = np.where(np.eye(4) > 0, 2, -1).astype(np.float32)
    pairs = None if seed == 0 else rng.integers(0, n, (3 * n, 2))
    if pairs is not None:
        pairs = pairs[pairs[:, 0] != pairs[:, 1]]
    slots = 2 if posterior and seed == 2 else None   # fewer partners travel too
    here = C.build_library(codes, table, -3, -1, 0.5, pairs=pairs, posterior=posterior,
                           slots=slots)
    there = C.build_library(codes, table, -3, -1, 0.5, pairs=pairs, posterior=posterior,
                            slots=slots, scheduler=client, device="cpu")
    if slots:
        assert there.maps.shape[1] == slots
    assert_same_library(here, there)
    assert here.n_pairs > 0


def test_library_progress_counts_every_pair_once(client):
    rng = np.random.default_rng(5)
    codes = [rng.integers(0, 4, 30) for _ in range(9)]
    table = np.where(np.eye(4) > 0, 2, -1).astype(np.float32)
    seen = []
    C.build_library(codes, table, -3, -1, 0.5, scheduler=client, device="cpu",
                    progress=lambda done, total: seen.append((done, total)))
    assert seen[-1] == (36, 36) and [d for d, _ in seen] == sorted(d for d, _ in seen)


@pytest.mark.parametrize("options", [{}, {"library": "tree", "pairs_per_merge": 16},
                                     {"library_votes": "alignment"}])
def test_run_on_workers_equals_one_process(client, options):
    here = Aligner(**options).align(DATA)
    there = Aligner(scheduler=client, **options).align(DATA)
    assert there.rows == here.rows and there.newick() == here.newick()
    lib = [s for s in there.stages if s.name == "library"]
    assert lib and lib[0].device == "2 Dask workers (auto)"


def test_triplet_tree_on_workers_equals_one_process(client):
    # linear gaps: the exact affine engine would take minutes on a CI core for the same check
    sc = Scoring.dna(gap=-2)
    here = build_guide_tree(DATA, distances="triplet", triplets="sampled", m=3, band=None,
                            scoring=sc)
    there = build_guide_tree(DATA, distances="triplet", triplets="sampled", m=3,
                             scheduler=client, scoring=sc)
    assert there.newick() == here.newick()
    assert there.distances.info["device"] == "2 Dask workers (cpu)"
    np.testing.assert_array_equal(there.distances.matrix, here.distances.matrix)
    res = Aligner(tree_distances="triplet", gap=-2, consistency=0, scheduler=client).align(DATA)
    assert res.rows == Aligner(tree_distances="triplet", gap=-2, consistency=0).align(DATA).rows


def test_kmer_tree_on_workers_equals_one_process(client, monkeypatch):
    """Dense and in bounded memory, in blocks of a few rows (several windows of blocks):
    the same distances and trees as in this process; and the run with it."""
    from trimsa.tree import distances

    monkeypatch.setattr(distances, "SHARED_BLOCK_BYTES", 3 * 16 * 2)
    here = build_guide_tree(DATA, distances="kmer", method="upgma")
    there = build_guide_tree(DATA, distances="kmer", method="upgma", scheduler=client)
    np.testing.assert_array_equal(there.distances.matrix, here.distances.matrix)
    assert there.newick() == here.newick()
    assert there.distances.info["device"] == "2 Dask workers (cpu)"
    small = 8 * 6 ** 2
    here = build_guide_tree(DATA, distances="kmer", method="upgma", matrix_bytes=small)
    there = build_guide_tree(DATA, distances="kmer", method="upgma", matrix_bytes=small,
                             scheduler=client)
    assert "bounded memory" in there.distances.describe()
    assert there.newick() == here.newick()
    assert there.distances.info["device"] == "2 Dask workers (cpu)"
    opts = {"tree_distances": "kmer", "consistency": 0}
    res = Aligner(scheduler=client, **opts).align(DATA)
    assert res.rows == Aligner(**opts).align(DATA).rows
    assert [s.device for s in res.stages if s.name == "guide tree"] == ["2 Dask workers (auto)"]


def test_scheduler_errors():
    with pytest.raises(OptionError, match="gpus cannot be combined with a scheduler"):
        Aligner(scheduler="local:2", gpus=(0,))
    with pytest.raises(OptionError, match="--scheduler must be local:N"):
        Aligner(scheduler="nowhere")
    with pytest.raises(OptionError, match="no stage that runs on Dask workers"):
        Aligner(scheduler="local:1", consistency=0,
                guide_tree=str(Path(DATA).parent / "msa16_tree.nwk")).align(DATA)
    with pytest.raises(OptionError, match="scheduler: the tree's library is not built"):
        Aligner(scheduler="local:1", library="tree", max_library_cells=1,
                guide_tree=str(Path(DATA).parent / "msa16_tree.nwk")).align(DATA)
    with pytest.raises(OptionError, match="the banded kernel runs in this process"):
        build_guide_tree(DATA, distances="triplet", band=8, scheduler="local:1")


def test_cli_run_with_a_local_cluster(tmp_path, capsys):
    from trimsa.cli import main

    out = tmp_path / "out.fa"
    assert main(["run", DATA, "-o", str(out), "--scheduler", "local:1", "--device", "cpu",
                 "-q", "-v"]) == 0
    assert "1 Dask worker (cpu)" in capsys.readouterr().err
    ref = tmp_path / "ref.fa"
    assert main(["run", DATA, "-o", str(ref), "-q"]) == 0
    assert out.read_text() == ref.read_text()
    capsys.readouterr()
    assert main(["tree", DATA, "--tree-distances", "kmer", "--method", "upgma",
                 "--scheduler", "local:1", "-q"]) == 0
    there = capsys.readouterr().out
    assert main(["tree", DATA, "--tree-distances", "kmer", "--method", "upgma", "-q"]) == 0
    assert capsys.readouterr().out == there


@pytest.mark.gpu
def test_run_on_a_local_cluster_of_gpu_workers():
    """On a GPU machine: the library on local GPU workers equals the CPU library."""
    pytest.importorskip("cupy")
    opts = {"library": "tree", "pairs_per_merge": 16}
    there = Aligner(scheduler="local:1", device="gpu", **opts).align(DATA)
    here = Aligner(device="cpu", **opts).align(DATA)
    assert there.rows == here.rows
    assert [s.device for s in there.stages if s.name == "library"] == ["1 Dask worker (gpu)"]
    tree = build_guide_tree(DATA, distances="kmer", method="upgma", matrix_bytes=8 * 6 ** 2,
                            device="gpu", scheduler="local:1")
    assert tree.distances.info["device"] == "1 Dask worker (gpu)"
    assert tree.newick() == build_guide_tree(DATA, distances="kmer", method="upgma",
                                             matrix_bytes=8 * 6 ** 2).newick()
