"""The guide tree: one type for every stage, to and from Newick and dendropy.

A :class:`GuideTree` is rooted. Nodes ``0 .. n-1`` are the sequences in input
order; internal nodes follow. ``children[v - n]`` lists the children of
internal node ``v`` in order (the progressive aligner merges left to right),
``length[v]`` is the length of the branch above ``v`` (0 when unknown).

Newick is written by :meth:`GuideTree.newick` (the one writer): one line,
branch lengths with six significant digits, no length on the root, names
single-quoted only when they hold Newick punctuation or white space. It is
read by :meth:`GuideTree.read` (through dendropy), which checks that the
leaves are exactly the sequence names.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

import numpy as np

from ..errors import InputFormatError

#: Characters that make a name need quotes in Newick.
_NEEDS_QUOTES = set(" \t\n()[]':;,\"=")


def _label(name: str) -> str:
    if any(ch in _NEEDS_QUOTES for ch in name):
        return "'" + name.replace("'", "''") + "'"
    return name


@dataclass(eq=False)
class GuideTree:
    """A rooted guide tree over named sequences, and how it was made.

    Attributes
    ----------
    names
        The sequence names, in input order (nodes ``0 .. n-1``).
    children
        ``children[v - n]``: the children of internal node ``v``, in order.
    length
        ``float64`` per node: the length of the branch above it.
    root
        The root node.
    method
        ``"nj"``, ``"upgma"`` or ``"given"`` (read from a file or dendropy).
    distances
        The :class:`~trimsa.tree.distances.Distances` it was built from
        (``None`` for a given tree).
    timings
        Seconds spent per stage.
    """

    names: tuple
    children: list
    length: np.ndarray = field(repr=False)
    root: int
    method: str = "given"
    distances: object = field(default=None, repr=False)
    timings: dict = field(default_factory=dict, repr=False)

    def __post_init__(self):
        self.names = tuple(self.names)
        self.children = [tuple(int(c) for c in kids) for kids in self.children]
        self.length = np.asarray(self.length, dtype=np.float64)

    @property
    def n(self) -> int:
        return len(self.names)

    # -- walking -------------------------------------------------------------
    def postorder(self) -> list:
        """Internal nodes, children before parents."""
        order = []
        stack = [(self.root, False)]
        while stack:
            v, seen = stack.pop()
            if v < self.n:
                continue
            if seen:
                order.append(v)
            else:
                stack.append((v, True))
                for c in reversed(self.children[v - self.n]):
                    stack.append((c, False))
        return order

    def leaves(self) -> list:
        """The sequences in the order the tree lists them (left to right)."""
        out, stack = [], [self.root]
        while stack:
            v = stack.pop()
            if v < self.n:
                out.append(v)
            else:
                stack.extend(reversed(self.children[v - self.n]))
        return out

    def binary(self) -> "GuideTree":
        """The same tree with every multifurcation resolved left to right."""
        n = self.n
        children = []
        length = list(self.length[:n])
        remap = {}

        def new_node(kids, blen):
            children.append(tuple(kids))
            length.append(blen)
            return n + len(children) - 1

        for v in self.postorder():
            kids = [remap.get(c, c) for c in self.children[v - n]]
            while len(kids) > 2:
                kids = [new_node(kids[:2], 0.0)] + kids[2:]
            if len(kids) == 1:
                remap[v] = kids[0]
                length[kids[0]] += float(self.length[v])
                continue
            remap[v] = new_node(kids, float(self.length[v]))
        root = remap.get(self.root, self.root)
        return GuideTree(self.names, children, np.asarray(length, float), root, self.method,
                         self.distances, dict(self.timings))

    # -- building ------------------------------------------------------------
    @classmethod
    def from_heights(cls, names, joins, heights, **info) -> "GuideTree":
        """From joins ``(x, y)`` into nodes ``n, n+1, ...`` at the given heights (UPGMA).

        A branch is the height of its parent less its own, floored at 0.
        """
        n = len(names)
        height = np.zeros(2 * n - 1)
        height[n:] = heights
        children = [(int(a), int(b)) for a, b in joins]
        length = np.zeros(2 * n - 1)
        for k, kids in enumerate(children):
            for c in kids:
                length[c] = max(height[n + k] - height[c], 0.0)
        return cls(names, children, length, 2 * n - 2, **info)

    @classmethod
    def from_dendropy(cls, tree, names, **info) -> "GuideTree":
        """From a ``dendropy.Tree`` whose leaf labels are exactly ``names``."""
        index = {name: i for i, name in enumerate(names)}
        n = len(names)
        children, length = [], np.zeros(n, float)
        seen = set()
        ids = {}
        extra = []
        for node in tree.postorder_node_iter():
            blen = float(node.edge.length or 0.0)
            if node.is_leaf():
                label = node.taxon.label if node.taxon is not None else node.label
                if label not in index:
                    raise InputFormatError(f"guide tree: leaf {label!r} is not a sequence name")
                if label in seen:
                    raise InputFormatError(f"guide tree: leaf {label!r} appears twice")
                seen.add(label)
                v = index[label]
                length[v] = blen
            else:
                v = n + len(children)
                children.append(tuple(ids[id(c)] for c in node.child_node_iter()))
                extra.append(blen)
            ids[id(node)] = v
        missing = [nm for nm in names if nm not in seen]
        if missing:
            raise InputFormatError(
                f"guide tree: {len(missing)} sequence(s) missing from the tree, e.g. {missing[0]!r}"
            )
        length = np.concatenate([length, np.asarray(extra, float)])
        return cls(tuple(names), children, length, ids[id(tree.seed_node)], **info)

    @classmethod
    def read(cls, source, names) -> "GuideTree":
        """A guide tree over ``names`` from a Newick file (path), Newick text (a string
        that ends in ``;`` and names no file), a ``dendropy.Tree`` or a :class:`GuideTree`."""
        import dendropy

        if isinstance(source, GuideTree):
            source = source.to_dendropy()
        if isinstance(source, dendropy.Tree):
            return cls.from_dendropy(source, names)
        path = os.fspath(source)
        where = {"path": path}
        if not os.path.exists(path):
            if not (isinstance(path, str) and path.rstrip().endswith(";")):
                raise InputFormatError(f"{path}: no such file (guide tree)")
            where, path = {"data": path}, "guide tree"
        try:
            tree = dendropy.Tree.get(**where, schema="newick", preserve_underscores=True)
        except Exception as exc:  # dendropy raises many types for bad Newick
            msg = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise InputFormatError(f"{path}: not a Newick tree ({msg})") from None
        return cls.from_dendropy(tree, names)

    @staticmethod
    def readable(source) -> bool:
        """Whether :meth:`read` takes an object of this type."""
        import dendropy

        return isinstance(source, (str, os.PathLike, dendropy.Tree, GuideTree))

    # -- writing -------------------------------------------------------------
    def newick(self) -> str:
        """The tree as one line of Newick, ending in ``;`` (see the module's notes)."""
        n = self.n
        out = []
        # an explicit stack, so that deep (caterpillar) trees need no recursion
        stack = [(False, self.root)]
        while stack:
            is_text, v = stack.pop()
            if is_text:
                out.append(v)
                continue
            if v < n:
                out.append(_label(self.names[v]))
                if v != self.root:   # + 0.0: a length of -0.0 is written 0
                    out.append(f":{self.length[v] + 0.0:.6g}")
                continue
            out.append("(")
            stack.append((True, ")" if v == self.root else f"):{self.length[v] + 0.0:.6g}"))
            kids = self.children[v - n]
            for i in range(len(kids) - 1, -1, -1):
                stack.append((False, kids[i]))
                if i:
                    stack.append((True, ","))
        return "".join(out) + ";"

    def to_dendropy(self):
        """The tree as a rooted ``dendropy.Tree`` (taxa: the sequence names)."""
        import dendropy

        n = self.n
        tns = dendropy.TaxonNamespace(list(self.names))
        nodes = [dendropy.Node(taxon=tns[i]) for i in range(n)]
        nodes += [dendropy.Node() for _ in self.children]
        for v, kids in enumerate(self.children, start=n):
            for c in kids:
                nodes[c].edge_length = float(self.length[c])
                nodes[v].add_child(nodes[c])
        return dendropy.Tree(taxon_namespace=tns, seed_node=nodes[self.root], is_rooted=True)

    def summary(self) -> str:
        """One line: method, size, distances and time (with each stage's, where there
        are several: e.g. the pairs' scores, the distances and the tree's joins)."""
        t = sum(self.timings.values())
        what = f"{self.method} tree of {self.n} sequences"
        if self.distances is not None:
            what += f" from {self.distances.describe()}"
            if self.distances.info.get("cells"):
                kind = "triplet" if self.distances.source == "triplet" else "pairwise"
                what += f"; {self.distances.info['cells']:.3g} {kind} cells"
            if self.distances.info.get("swept_share") is not None:
                what += (f" ({100 * self.distances.info['swept_share']:.2g}% of them swept: "
                         f"the bound-pruned cubes)")
        stages = ""
        if len(self.timings) > 1:
            stages = " (" + ", ".join(f"{k} {v:.1f} s" for k, v in self.timings.items()) + ")"
        return f"{what} in {t:.1f} s{stages}"

