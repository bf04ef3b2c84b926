"""Simulated data sets: AliSim through piqtree, on a given or a birth-death tree.

A data set is a folder with the files that ``../shared/data/sim`` uses:

``true.fa``
    the true alignment (all-gap columns dropped),
``input.fa``
    the same sequences without gaps,
``tree.nwk``
    the tree the sequences evolved along,
``meta.json``
    the settings (model, root length, indel rates and size distributions,
    seeds, tree height) and a few statistics of the result.

AliSim runs through piqtree (``pip install 'trimsa[sim]'``), which needs
Python 3.12 or newer; it is imported only when a simulation runs. Random trees
are reconstructed birth-death trees (birth rate 1, death rate 0.5, ultrametric),
drawn as a coalescent point process in linear time and rescaled to the
requested root-to-tip height, with taxa named ``S1`` ... ``SN`` as in the
shared data.

With the same tree, model, length, indel settings and seed, the result is
AliSim's own: the shared data sets were made with IQ-TREE 2.4's AliSim, and
piqtree reproduces their ``true.fa``.
"""

from __future__ import annotations

import gzip
import json
import os
import random
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

from .errors import BackendUnavailableError, InputFormatError, OptionError

__all__ = ["Simulation", "birth_death_tree", "require_piqtree", "simulate"]

#: Defaults: the settings of the ``msa-*`` sets of ../shared/data/sim.
DEFAULT_MODEL = "GTR{1.0/2.0/1.0/1.0/2.0/1.0}+F{0.3/0.2/0.2/0.3}+G4{0.5}"
DEFAULT_LENGTH = 300
DEFAULT_INDEL_RATE = 0.03
DEFAULT_INDEL_SIZE = "POW{1.7/30}"

_SIZE_RE = re.compile(r"^[A-Z]+\{[0-9.eE+\-]+(/[0-9.eE+\-]+)*\}$")
_FILES = ("true.fa", "input.fa", "tree.nwk", "meta.json")


def require_piqtree():
    """Import and return piqtree, or raise a :class:`BackendUnavailableError` saying what to install."""
    have = ".".join(str(v) for v in sys.version_info[:3])
    where = ("in a Python 3.12+ environment run pip install 'trimsa[sim]'"
             if sys.version_info < (3, 12) else "pip install 'trimsa[sim]'")
    try:
        import piqtree
    except ImportError as exc:
        if exc.name not in (None, "piqtree"):
            # piqtree is there but one of its own imports fails (often a cogent3 it does not match)
            first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            msg = f"piqtree is installed but does not import ({first}): {where}"
        elif sys.version_info < (3, 12):
            msg = (f"simulation needs piqtree (AliSim), which needs Python >= 3.12 (this is "
                   f"Python {have}): {where}")
        else:
            msg = f"simulation needs piqtree (AliSim): {where}"
        raise BackendUnavailableError(msg) from None
    if not hasattr(piqtree, "simulate_alignment"):
        version = getattr(piqtree, "__version__", "?")
        raise BackendUnavailableError(
            f"piqtree {version} has no AliSim (piqtree.simulate_alignment); simulation needs "
            f"piqtree >= 0.8.3, which needs Python >= 3.12: {where}")
    return piqtree


@dataclass
class Simulation:
    """A simulated data set in memory.

    Attributes
    ----------
    true
        The true alignment as ``(name, row)`` pairs, all-gap columns dropped.
    tree
        The tree in Newick, with branch lengths.
    meta
        Settings and statistics (what ``meta.json`` holds).
    """

    true: list
    tree: str
    meta: dict = field(default_factory=dict)

    def unaligned(self) -> list:
        """The sequences without gaps, as ``(name, sequence)`` pairs."""
        return [(n, r.replace("-", "")) for n, r in self.true]

    def write(self, folder, *, gzip_fasta: bool = False, force: bool = False) -> dict:
        """Write ``true.fa``, ``input.fa``, ``tree.nwk`` and ``meta.json`` into ``folder``.

        Each file is written atomically. Existing files are kept unless
        ``force`` (an :class:`OptionError` says which one is in the way).
        Returns the paths written, by kind.
        """
        from .io import atomic_output, write_fasta

        folder = Path(folder)
        check_outdir(folder, force)
        suffix = ".fa.gz" if gzip_fasta else ".fa"
        paths = {"true": folder / f"true{suffix}", "input": folder / f"input{suffix}",
                 "tree": folder / "tree.nwk", "meta": folder / "meta.json"}
        folder.mkdir(parents=True, exist_ok=True)
        meta = dict(self.meta, files=[paths["true"].name, paths["input"].name])
        for key, rows in (("true", self.true), ("input", self.unaligned())):
            if gzip_fasta:
                with atomic_output(paths[key], "wb") as raw:
                    with gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, compresslevel=6) as gz:
                        for n, r in rows:  # row by row: a 10^5-taxon true.fa is gigabytes
                            gz.write(f">{n}\n{r}\n".encode())
            else:
                with atomic_output(paths[key]) as fh:
                    write_fasta(rows, fh)
        with atomic_output(paths["tree"]) as fh:
            fh.write(self.tree.strip() + "\n")
        with atomic_output(paths["meta"]) as fh:
            json.dump(meta, fh, indent=1)
            fh.write("\n")
        return paths


def birth_death_tree(n_taxa: int, height: float = 1.0, *, birth_rate: float = 1.0,
                     death_rate: float = 0.5, seed: int | None = None) -> str:
    """A random ultrametric birth-death tree as Newick, in time linear in ``n_taxa``.

    The tree is the reconstructed tree of a constant-rate birth-death process
    conditioned on ``n_taxa`` living tips (the extinct lineages pruned), drawn
    as a coalescent point process: with an improper uniform prior on the time
    of origin, the ``n - 1`` node depths between neighbouring tips are
    independent, each with distribution function
    ``F(s) = b (1 - e^(-r s)) / (b - d e^(-r s))``, ``r = b - d``
    (Gernhard 2008, J. Theor. Biol. 253:769; Lambert and Stadler 2013), and
    the depth at which tips ``i < j`` meet is the largest depth between them.
    The tree is rescaled so that every root-to-tip distance is ``height``;
    tips are named ``S1`` ... ``SN`` from left to right. dendropy checks and
    writes the result.

    Examples
    --------
    >>> nwk = birth_death_tree(4, 0.5, seed=1)
    >>> sorted(re.findall(r"S[0-9]+", nwk))
    ['S1', 'S2', 'S3', 'S4']
    """
    import numpy as np

    _check_int("taxa", n_taxa, 3)
    if not height > 0:
        raise OptionError(f"--height must be > 0, got {height}")
    if not birth_rate > 0 or death_rate < 0 or death_rate >= birth_rate:
        raise OptionError(
            f"birth-death rates need birth > death >= 0, got birth {birth_rate}, death {death_rate}")
    u = np.random.default_rng(seed).random(n_taxa - 1)
    depths = _node_depths(u, birth_rate, death_rate)
    return _point_process_newick(depths * (height / depths.max()))


def _node_depths(u, birth_rate: float, death_rate: float):
    """Inverse of the coalescent point process's depth distribution at ``u`` in [0, 1)."""
    import numpy as np

    r = birth_rate - death_rate
    return -np.log((1.0 - u) / (1.0 - u * (death_rate / birth_rate))) / r


def _point_process_newick(depths) -> str:
    """Newick of the ultrametric tree whose neighbouring tips ``i, i+1`` meet at ``depths[i]``."""
    import dendropy

    n = len(depths) + 1
    # Cartesian tree on the depths (largest at the root): node k's children are the
    # subtrees of the depths left and right of k up to a larger one, or tips k and k+1
    left, right = [-1] * (n - 1), [-1] * (n - 1)
    stack = []
    for k in range(n - 1):
        last = -1
        while stack and depths[stack[-1]] < depths[k]:
            last = stack.pop()
        left[k] = last
        if stack:
            right[stack[-1]] = k
        stack.append(k)
    taxa = dendropy.TaxonNamespace([f"S{i + 1}" for i in range(n)])
    tree = dendropy.Tree(taxon_namespace=taxa, is_rooted=True)
    root = stack[0]
    todo = [(tree.seed_node, root)]
    while todo:
        parent, k = todo.pop()
        for child, tip in ((left[k], k), (right[k], k + 1)):
            if child < 0:
                parent.new_child(taxon=taxa[tip], edge_length=float(depths[k]))
            else:
                node = parent.new_child(edge_length=float(depths[k] - depths[child]))
                todo.append((node, child))
    return tree.as_string(schema="newick", suppress_rooting=True).strip()


def _read_tree(tree) -> tuple:
    """A Newick string or file -> (newick, tip names), checked with dendropy."""
    import dendropy

    text, label = str(tree), "tree"
    if not text.lstrip().startswith("("):
        path = Path(text)
        if not path.exists():
            raise InputFormatError(f"{path}: no such tree file")
        text, label = path.read_text(), str(path)
    try:
        t = dendropy.Tree.get(data=text, schema="newick", preserve_underscores=True)
    except Exception as exc:  # dendropy raises several parse error types
        msg = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise InputFormatError(f"{label}: not a Newick tree ({msg})") from None
    leaves = t.leaf_nodes()
    names = [lf.taxon.label if lf.taxon is not None else None for lf in leaves]
    if any(not n for n in names):
        raise InputFormatError(f"{label}: every tip needs a name")
    if len(set(names)) != len(names):
        raise InputFormatError(f"{label}: tip names repeat")
    if len(names) < 3:
        raise InputFormatError(f"{label}: needs at least 3 tips, found {len(names)}")
    for node in t.preorder_node_iter():
        if node is not t.seed_node and node.edge.length is None:
            who = node.taxon.label if node.taxon is not None else "an inner node"
            raise InputFormatError(f"{label}: branch length missing above {who}")
    newick = t.as_string(schema="newick", suppress_rooting=True,
                         preserve_spaces=True, unquoted_underscores=True).strip()
    return newick, names


def _check_int(name: str, value, low: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < low:
        raise OptionError(f"--{name} must be an integer >= {low}, got {value!r}")
    return value


def _check_rate(name: str, value) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise OptionError(f"--{name} must be a number >= 0, got {value!r}") from None
    if not v >= 0:
        raise OptionError(f"--{name} must be a number >= 0, got {value!r}")
    return v


def _check_size(name: str, value: str) -> str:
    if not isinstance(value, str) or not _SIZE_RE.match(value.strip()):
        raise OptionError(
            f"--{name} must be an AliSim size distribution such as GEO{{3}}, POW{{1.7/30}}, "
            f"NB{{1/0.5}} or LAV{{1.5/100}}, got {value!r}")
    return value.strip()


def _piqtree_model(model: str) -> str:
    # IQ-TREE's command line takes GTR{a/b/...}; piqtree's parser wants commas
    return re.sub(r"\{([^}]*)\}", lambda m: "{" + m.group(1).replace("/", ",") + "}", model)


def simulate(tree=None, *, taxa: int | None = None, height: float = 1.0,
             model: str = DEFAULT_MODEL, length: int = DEFAULT_LENGTH,
             ins_rate: float = DEFAULT_INDEL_RATE, del_rate: float = DEFAULT_INDEL_RATE,
             ins_size: str = DEFAULT_INDEL_SIZE, del_size: str = DEFAULT_INDEL_SIZE,
             seed: int | None = None, tree_seed: int | None = None,
             name: str | None = None) -> Simulation:
    """Simulate a true alignment with AliSim (through piqtree).

    Parameters
    ----------
    tree
        A Newick string or file with branch lengths; ``None`` draws a
        birth-death tree with ``taxa`` tips and root-to-tip ``height``.
    taxa, height
        Size and height of the random tree (ignored with ``tree``).
    model
        An IQ-TREE model string (``JC+I{0.35}``, ``GTR{...}+F{...}+G4{0.5}``,
        ``WAG`` ...); ``/`` or ``,`` separate parameters.
    length
        Length of the root sequence.
    ins_rate, del_rate
        Insertion and deletion rates relative to the substitution rate.
    ins_size, del_size
        Size distributions in AliSim's notation (``GEO{p}``, ``POW{a/max}``, ...).
    seed
        AliSim's random seed (``None``: a random one, recorded in ``meta``).
    tree_seed
        Seed of the random tree (``None``: derived from ``seed``).
    name
        Data set name written to ``meta``.

    Returns
    -------
    Simulation

    Raises
    ------
    OptionError
        An option out of range or not understood by AliSim.
    BackendUnavailableError
        piqtree is not installed (it needs Python >= 3.12).
    """
    length = _check_int("length", length, 1)
    ins_rate, del_rate = _check_rate("ins-rate", ins_rate), _check_rate("del-rate", del_rate)
    ins_size, del_size = _check_size("ins-size", ins_size), _check_size("del-size", del_size)
    if not isinstance(model, str) or not model.strip():
        raise OptionError("--model must be a non-empty IQ-TREE model string")
    if seed is None:
        seed = random.SystemRandom().randrange(1, 2**31 - 1)
    seed = _check_int("seed", seed, 0)
    if tree is None:
        if taxa is None:
            raise OptionError("give a tree (--tree) or the number of taxa of a random one (--taxa)")
        if tree_seed is None:
            tree_seed = random.Random(seed).randrange(1, 2**31 - 1)
        newick = birth_death_tree(taxa, height, seed=tree_seed)
        kind, generator = "bd", "trimsa.simulate.birth_death_tree (reconstructed " \
            "birth-death tree as a coalescent point process; birth=1.0 death=0.5, " \
            "ultrametric, rescaled to HEIGHT)"
        tree_height = height
    else:
        newick, _names = _read_tree(tree)
        kind, generator, tree_seed, tree_height = "given", None, None, None
    piqtree = require_piqtree()
    import cogent3

    try:
        aln = piqtree.simulate_alignment(
            cogent3.make_tree(newick), _piqtree_model(model.strip()), length=length,
            rand_seed=seed, insertion_rate=ins_rate, deletion_rate=del_rate,
            insertion_size_distribution=ins_size, deletion_size_distribution=del_size)
    except (ValueError, RuntimeError, KeyError) as exc:
        msg = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise OptionError(f"AliSim rejected the settings: {msg}") from None
    rows = aln.to_dict()
    names = list(aln.names)
    true, dropped = _drop_allgap_columns([(n, str(rows[n]).upper()) for n in names])
    lens = [len(r) - r.count("-") for _n, r in true]
    width = len(true[0][1]) if true else 0
    cells = width * len(true)
    meta = {
        "name": name,
        "kind": kind,
        "taxa": len(true),
        "model": model.strip(),
        "length": length,
        "root_length": length,
        "indel": {"ins_rate": ins_rate, "del_rate": del_rate,
                  "ins_size": ins_size, "del_size": del_size},
        "seed": seed,
        "height": tree_height,
        "tree_seed": tree_seed,
        "tree_generator": generator,
        "alisim_version": f"piqtree {getattr(piqtree, '__version__', '?')}",
        "alisim_call": (f"piqtree.simulate_alignment(tree, {_piqtree_model(model.strip())!r}, "
                        f"length={length}, rand_seed={seed}, insertion_rate={ins_rate}, "
                        f"deletion_rate={del_rate}, insertion_size_distribution={ins_size!r}, "
                        f"deletion_size_distribution={del_size!r})"),
        "true_aln_columns": width,
        "allgap_columns_dropped": dropped,
        "seq_len_min": min(lens),
        "seq_len_max": max(lens),
        "seq_len_mean": round(sum(lens) / len(lens), 1),
        "gap_fraction": round(1 - sum(lens) / cells, 4) if cells else 0.0,
    }
    return Simulation(true=true, tree=newick, meta=meta)


def _drop_allgap_columns(rows: list) -> tuple:
    import numpy as np

    if not rows:
        return rows, 0
    m = np.frombuffer("".join(r for _n, r in rows).encode(), np.uint8).reshape(len(rows), -1)
    keep = (m != ord("-")).any(axis=0)
    dropped = int(keep.size - keep.sum())
    if not dropped:
        return rows, 0
    kept = m[:, keep]
    return [(n, kept[i].tobytes().decode()) for i, (n, _r) in enumerate(rows)], dropped


def check_outdir(folder, force: bool) -> None:
    """Raise before any work when ``folder`` holds an output that ``force`` does not allow overwriting."""
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise OptionError(f"{folder}: exists and is not a folder")
    if not force:
        for name in _FILES + ("true.fa.gz", "input.fa.gz"):
            if (folder / name).exists():
                raise OptionError(f"{folder / name}: already exists (use --force to overwrite)")
    parent = folder.resolve().parent
    if not parent.exists():
        raise OptionError(f"{folder}: parent folder {parent} does not exist")
    if not os.access(parent if not folder.exists() else folder, os.W_OK):
        raise OptionError(f"{folder}: not writable")
