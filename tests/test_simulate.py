"""trimsa.simulate and ``trimsa simulate``: option checks, the missing-piqtree path, real runs."""

from __future__ import annotations

import json
import sys
import types
from pathlib import Path

import pytest

import trimsa.cli as cli
from trimsa import simulate as sim
from trimsa.errors import BackendUnavailableError, InputFormatError, OptionError

DATA = Path(__file__).parent / "data" / "eval"
try:
    sim.require_piqtree()
    HAVE_PIQTREE = True
except BackendUnavailableError:
    HAVE_PIQTREE = False
needs_piqtree = pytest.mark.skipif(not HAVE_PIQTREE, reason="piqtree with AliSim not importable (needs Python >= 3.12)")


@pytest.fixture
def no_piqtree(monkeypatch):
    monkeypatch.setitem(sys.modules, "piqtree", None)  # import piqtree -> ImportError


# --------------------------------------------------------------------------- missing piqtree

def test_missing_piqtree_says_what_to_install(no_piqtree, monkeypatch):
    with pytest.raises(BackendUnavailableError, match=r"pip install 'trimsa\[sim\]'") as exc:
        sim.require_piqtree()
    assert isinstance(exc.value, ImportError)
    monkeypatch.setattr(sys, "version_info", (3, 11, 7, "final", 0))
    with pytest.raises(BackendUnavailableError, match=r"Python >= 3\.12 \(this is Python 3\.11\.7\)"):
        sim.require_piqtree()


def test_piqtree_without_alisim(monkeypatch):
    old = types.ModuleType("piqtree")
    old.__version__ = "0.7.0"  # a piqtree without simulate_alignment
    monkeypatch.setitem(sys.modules, "piqtree", old)
    with pytest.raises(BackendUnavailableError, match=r"piqtree 0\.7\.0 has no AliSim"):
        sim.require_piqtree()


def test_piqtree_that_does_not_import(monkeypatch):
    import builtins
    real_import = builtins.__import__

    def fake_import(name, *args, **kwargs):
        if name == "piqtree":
            raise ImportError("cannot import name 'x' from 'cogent3.util.misc'", name="cogent3.util.misc")
        return real_import(name, *args, **kwargs)

    monkeypatch.delitem(sys.modules, "piqtree", raising=False)
    monkeypatch.setattr(builtins, "__import__", fake_import)
    with pytest.raises(BackendUnavailableError, match=r"piqtree is installed but does not import \(cannot import name 'x'"):
        sim.require_piqtree()


def test_missing_piqtree_through_cli(no_piqtree, tmp_path, capsys):
    out = tmp_path / "set"
    assert cli.main(["simulate", str(out), "--taxa", "5", "--seed", "1"]) == 2
    o, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert o == "" and len(lines) == 1 and "piqtree" in lines[0]
    assert not out.exists()  # nothing written


# --------------------------------------------------------------------------- option checks

@pytest.mark.parametrize("kwargs, needle", [
    (dict(taxa=5, length=0), "--length"),
    (dict(taxa=5, ins_rate=-0.1), "--ins-rate"),
    (dict(taxa=5, del_rate="x"), "--del-rate"),
    (dict(taxa=5, ins_size="GEO3"), "--ins-size"),
    (dict(taxa=5, del_size="POW{1.7/}"), "--del-size"),
    (dict(taxa=5, model="  "), "--model"),
    (dict(taxa=2), "--taxa"),
    (dict(taxa=5, height=0), "--height"),
    (dict(), "--tree"),
    (dict(taxa=5, seed=-1), "--seed"),
])
def test_bad_options(kwargs, needle, no_piqtree):
    # every check runs before piqtree is needed
    with pytest.raises(OptionError, match=needle):
        sim.simulate(**kwargs)


@pytest.mark.parametrize("newick, needle", [
    ("(A:0.1,B:0.2);", "at least 3 tips"),
    ("(A:0.1,B:0.2,C);", "branch length missing above C"),
    ("(A:0.1,A:0.2,C:0.1);", "Duplicate taxon labels: A"),
    ("(A:0.1,B:0.2,C:0.3", "not a Newick tree"),
])
def test_bad_trees(newick, needle, no_piqtree):
    with pytest.raises(InputFormatError, match=needle):
        sim.simulate(newick)


def test_missing_tree_file(tmp_path):
    with pytest.raises(InputFormatError, match="no such tree file"):
        sim.simulate(str(tmp_path / "none.nwk"))


def test_cli_tree_and_taxa_exclusive(tmp_path, capsys):
    assert cli.main(["simulate", str(tmp_path / "o"), "--taxa", "4", "--tree", "x.nwk"]) == 2
    assert "not both" in capsys.readouterr().err


def test_cli_refuses_to_overwrite(tmp_path, capsys):
    (tmp_path / "true.fa").write_text(">a\nA\n")
    assert cli.main(["simulate", str(tmp_path), "--taxa", "4"]) == 2
    err = capsys.readouterr().err
    assert "already exists" in err and "--force" in err
    assert (tmp_path / "true.fa").read_text() == ">a\nA\n"


# --------------------------------------------------------------------------- random trees

def test_birth_death_tree_is_ultrametric_and_seeded():
    import dendropy

    nwk = sim.birth_death_tree(12, 0.5, seed=7)
    assert nwk == sim.birth_death_tree(12, 0.5, seed=7)
    assert nwk != sim.birth_death_tree(12, 0.5, seed=8)
    tree = dendropy.Tree.get(data=nwk, schema="newick")
    names = sorted(lf.taxon.label for lf in tree.leaf_nodes())
    assert names == sorted(f"S{i}" for i in range(1, 13))
    depths = [lf.distance_from_root() for lf in tree.leaf_nodes()]
    assert max(depths) == pytest.approx(0.5) and min(depths) == pytest.approx(0.5)


def test_point_process_tree_meets_at_the_largest_depth_between_tips():
    """Tips i < j of the coalescent point process meet at max(depths[i:j]) (dendropy's distances)."""
    import dendropy
    import numpy as np

    rng = np.random.default_rng(5)
    for n in (2, 3, 7, 25):
        depths = rng.random(n - 1) + 0.1
        tree = dendropy.Tree.get(data=sim._point_process_newick(depths), schema="newick")
        pdm = tree.phylogenetic_distance_matrix()
        tips = {lf.taxon.label: lf.taxon for lf in tree.leaf_nodes()}
        for i in range(n):
            for j in range(i + 1, n):
                d = pdm.distance(tips[f"S{i + 1}"], tips[f"S{j + 1}"])
                assert d == pytest.approx(2 * depths[i:j].max())


def test_point_process_depths_follow_the_birth_death_distribution():
    import numpy as np

    b, d = 1.0, 0.5
    u = np.linspace(0, 0.999, 200)
    s = sim._node_depths(u, b, d)
    r = b - d
    cdf = b * (1 - np.exp(-r * s)) / (b - d * np.exp(-r * s))
    assert np.allclose(cdf, u)
    assert np.allclose(sim._node_depths(u, 1.0, 0.0), -np.log(1 - u))  # Yule: exponential


def test_birth_death_tree_has_the_yule_harding_shape():
    """Reconstructed birth-death trees have Yule-Harding shapes: n/3 cherries, variance 2n/45."""
    import dendropy

    n = 3000
    tree = dendropy.Tree.get(data=sim.birth_death_tree(n, 1.0, seed=11), schema="newick")
    cherries = sum(1 for nd in tree.internal_nodes()
                   if all(ch.is_leaf() for ch in nd.child_nodes()) and len(nd.child_nodes()) == 2)
    assert abs(cherries - n / 3) < 5 * (2 * n / 45) ** 0.5


def test_translate_model_for_piqtree():
    assert sim._piqtree_model("GTR{1/2/3/4/5/6}+F{0.3/0.2/0.2/0.3}+G4{0.5}") == \
        "GTR{1,2,3,4,5,6}+F{0.3,0.2,0.2,0.3}+G4{0.5}"
    assert sim._piqtree_model("JC+I{0.35}") == "JC+I{0.35}"


# --------------------------------------------------------------------------- real AliSim

@needs_piqtree
def test_reproduces_shared_data_set(tmp_path):
    """Same tree, model, length, indels and seed as the shared set: AliSim's very output."""
    src = DATA / "trip-indel-L64-r0"
    meta = json.loads((src / "meta.json").read_text())
    ind = meta["indel"]
    s = sim.simulate(str(src / "tree.nwk"), model=meta["model"], length=meta["length"],
                     ins_rate=ind["ins_rate"], del_rate=ind["del_rate"], ins_size=ind["ins_size"],
                     del_size=ind["del_size"], seed=meta["seed"])
    paths = s.write(tmp_path / "set")
    assert paths["true"].read_text() == (src / "true.fa").read_text()
    assert paths["input"].read_text() == (src / "input.fa").read_text()
    got = json.loads(paths["meta"].read_text())
    for key in ("taxa", "model", "length", "root_length", "indel", "seed", "true_aln_columns",
                "allgap_columns_dropped", "seq_len_min", "seq_len_max", "seq_len_mean",
                "gap_fraction", "files"):
        assert got[key] == meta[key], key


@needs_piqtree
def test_random_tree_through_cli(tmp_path, capsys):
    from trimsa.evaluate import compare

    out = tmp_path / "bd"
    assert cli.main(["simulate", str(out), "--taxa", "8", "--height", "0.3", "--length", "80",
                     "--seed", "11", "--gzip"]) == 0
    names = sorted(p.name for p in out.iterdir())
    assert names == ["input.fa.gz", "meta.json", "tree.nwk", "true.fa.gz"]
    meta = json.loads((out / "meta.json").read_text())
    assert meta["taxa"] == 8 and meta["kind"] == "bd" and meta["height"] == 0.3
    s = compare(out / "true.fa.gz", out / "true.fa.gz")
    assert s.n_seqs == 8 and s.spfn == 0.0
    # same seed, same data set
    again = sim.simulate(taxa=8, height=0.3, length=80, seed=11)
    assert again.tree == (out / "tree.nwk").read_text().strip()
