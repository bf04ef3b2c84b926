"""Progressive alignment along a guide tree: profiles, merges, the tree walk.

A cluster's alignment is never copied while the tree is walked: each merge
records where its two children's columns land in the merged profile
(:func:`~trimsa.progressive._cpu.path_maps`), and the rows are assembled once
at the end by composing those maps from the root down to every leaf.

Profiles are ``float32`` arrays ``(L, K + 1)``: per column, the weighted
fraction of each residue code in use and, last, of gaps; weights are the
sequences' tree weights (ClustalW style) normalised within the cluster.
"""

from __future__ import annotations

import concurrent.futures as _cf
import threading
from dataclasses import dataclass

import numpy as np

from . import _cpu

@dataclass
class GuideTree:
    """A rooted guide tree over ``n`` sequences.

    Nodes ``0 .. n-1`` are the sequences (input order); internal nodes follow.
    ``children[v - n]`` lists the children of internal node ``v``; ``length[v]``
    is the length of the branch above ``v`` (0 when unknown).
    """

    n: int
    children: list
    length: np.ndarray
    root: int

    def postorder(self):
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
        children = []
        length = list(self.length[: self.n])
        remap = {}

        def new_node(kids, blen):
            children.append(tuple(kids))
            length.append(blen)
            return self.n + len(children) - 1

        for v in self.postorder():
            kids = [remap.get(c, c) for c in self.children[v - self.n]]
            while len(kids) > 2:
                kids = [new_node(kids[:2], 0.0)] + kids[2:]
            if len(kids) == 1:
                remap[v] = kids[0]
                length[kids[0]] += float(self.length[v])
                continue
            remap[v] = new_node(kids, float(self.length[v]))
        root = remap.get(self.root, self.root)
        return GuideTree(self.n, children, np.asarray(length, float), root)

    @classmethod
    def from_linkage(cls, Z, n: int, heights_are_distances: bool = True) -> "GuideTree":
        """From a scipy linkage matrix (UPGMA: a node's height is half its distance)."""
        height = np.zeros(2 * n - 1)
        children = []
        for k, row in enumerate(Z):
            a, b = int(row[0]), int(row[1])
            children.append((a, b))
            height[n + k] = row[2] / 2 if heights_are_distances else row[2]
        length = np.zeros(2 * n - 1)
        for k, (a, b) in enumerate(children):
            for c in (a, b):
                length[c] = max(height[n + k] - height[c], 0.0)
        return cls(n, children, length, 2 * n - 2)

    @classmethod
    def from_dendropy(cls, tree, names) -> "GuideTree":
        """From a ``dendropy.Tree`` whose leaf labels are exactly ``names``."""
        from ..errors import InputFormatError

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
        return cls(n, children, length, ids[id(tree.seed_node)])

    def to_newick(self, names) -> str:
        def label(s):
            if any(ch in s for ch in " ()[]':;,"):
                return "'" + s.replace("'", "''") + "'"
            return s

        def rec(v):
            if v < self.n:
                txt = label(names[v])
            else:
                txt = "(" + ",".join(rec(c) for c in self.children[v - self.n]) + ")"
            if v != self.root:
                txt += f":{self.length[v]:.6g}"
            return txt

        import sys
        old = sys.getrecursionlimit()
        sys.setrecursionlimit(max(old, 10 * (len(self.children) + self.n) + 100))
        try:
            return rec(self.root) + ";"
        finally:
            sys.setrecursionlimit(old)

    def to_dendropy(self, names):
        import dendropy

        return dendropy.Tree.get(data=self.to_newick(names), schema="newick",
                                 preserve_underscores=True, rooting="force-rooted")


def in_threads(fn, items, threads: int, *args) -> None:
    """Run ``fn(chunk, *args)`` on ``threads`` interleaved chunks of ``items`` (nogil kernels)."""
    items = np.asarray(items)
    threads = max(1, min(int(threads), len(items)))
    if threads == 1:
        fn(items, *args)
        return
    fn(items[:0], *args)  # compile or load the kernel here, not in two threads at once
    chunks = [np.ascontiguousarray(items[t::threads]) for t in range(threads)]
    with _cf.ThreadPoolExecutor(threads) as pool:
        for f in [pool.submit(fn, c, *args) for c in chunks]:
            f.result()


def condensed(fn, n: int, threads: int, *args) -> np.ndarray:
    """A condensed distance vector filled row by row by ``fn(*args, rows, out)``."""
    out = np.zeros(n * (n - 1) // 2, np.float64)
    in_threads(lambda rows: fn(*args, rows, out), np.arange(n, dtype=np.int64), threads)
    return out


def tree_weights(tree: GuideTree) -> np.ndarray:
    """ClustalW-style sequence weights: each branch's length shared by the leaves below it."""
    n = tree.n
    total = len(tree.length)
    below = np.zeros(total, float)
    below[:n] = 1
    for v in tree.postorder():
        below[v] = sum(below[c] for c in tree.children[v - n])
    share = np.where(below > 0, tree.length / np.maximum(below, 1), 0.0)
    # accumulate from the root down
    acc = np.zeros(total, float)
    stack = [tree.root]
    while stack:
        v = stack.pop()
        if v >= n:
            for c in tree.children[v - n]:
                acc[c] = acc[v] + share[c]
                stack.append(c)
    w = acc[:n].copy()
    if not np.all(np.isfinite(w)) or w.max() <= 0:
        return np.ones(n)
    # no sequence is weightless: floor at a small fraction of the mean
    return np.maximum(w, 0.05 * w.mean())


@dataclass(frozen=True)
class ProfileScoring:
    """Scores of the profile aligner (floats; penalties ``go``/``ge`` positive)."""

    table: np.ndarray  # (K+1, K+1) float32 over used codes + gap
    go: float
    ge: float
    term: float
    boundary: bool = False  # scale opens by the fraction of sequences that would open


def make_profile_scoring(sub_table, used_codes, go, ge, term, gap_in_column,
                         boundary: bool = False) -> ProfileScoring:
    """Restrict ``sub_table`` to ``used_codes`` and add the gap row and column."""
    k = len(used_codes)
    t = np.zeros((k + 1, k + 1), np.float32)
    t[:k, :k] = np.asarray(sub_table, np.float32)[np.ix_(used_codes, used_codes)]
    t[:k, k] = -gap_in_column
    t[k, :k] = -gap_in_column
    return ProfileScoring(t, float(go), float(ge), float(term), bool(boundary))


class Walk:
    """The bottom-up merges of one alignment along a binary guide tree."""

    def __init__(self, tree: GuideTree, seq_codes, weights, scoring: ProfileScoring,
                 threads: int = 1, progress=None, library=None):
        self.tree = tree
        self.codes = seq_codes  # list of arrays of compact codes (0..K-1)
        self.weights = np.asarray(weights, float)
        self.sc = scoring
        self.threads = max(1, int(threads))
        self.progress = progress
        self.library = library
        n = tree.n
        self.members = {i: np.array([i], np.int64) for i in range(n)}
        k = scoring.table.shape[0] - 1
        self.k = k
        self.profile = {}
        self.both = {}  # per column: fraction of sequences with a residue here and before
        self.wsum = {}
        self.maps = {}
        for i in range(n):
            c = seq_codes[i]
            f = np.zeros((c.size, k + 1), np.float32)
            f[np.arange(c.size), c] = 1.0
            self.profile[i] = f
            self.both[i] = np.ones(c.size, np.float32)
            self.wsum[i] = float(self.weights[i])
        self.score = 0.0
        self._lock = threading.Lock()

    # -- one merge ---------------------------------------------------------
    def merge(self, v: int) -> None:
        a, b = self.tree.children[v - self.tree.n]
        FA, FB = self.profile[a], self.profile[b]
        wa, wb = self.wsum[a], self.wsum[b]
        extra = None
        if self.library is not None:
            extra = self.library.scores(FA.shape[0], FB.shape[0], self.members[a],
                                        self.members[b], self.weights)
            extra *= np.float32(self.library.weight)
        path, score, ma, mb = align_profiles(FA, FB, self.sc, self.both[a], self.both[b],
                                             extra)
        if self.library is not None:
            self.library.moved(self.members[a], ma)
            self.library.moved(self.members[b], mb)
        L = path.size
        tot = wa + wb
        fa, fb = wa / tot, wb / tot
        F = np.zeros((L, self.k + 1), np.float32)
        F[ma] += fa * FA
        F[mb] += fb * FB
        pa = np.ones(L, bool)
        pa[ma] = False
        pb = np.ones(L, bool)
        pb[mb] = False
        F[pa, self.k] += fa
        F[pb, self.k] += fb
        both = np.zeros(L, np.float32)
        both[ma] += fa * _carry_both(self.both[a], ma)
        both[mb] += fb * _carry_both(self.both[b], mb)
        with self._lock:
            self.profile[v] = F
            self.both[v] = both
            self.members[v] = np.concatenate([self.members[a], self.members[b]])
            del self.both[a], self.both[b], self.members[a], self.members[b]
            self.wsum[v] = tot
            self.maps[v] = (ma, mb)
            del self.profile[a], self.profile[b]
            self.score += score

    def run(self) -> None:
        order = self.tree.postorder()
        total = len(order)
        done = 0
        if self.threads == 1 or total < 4:
            for v in order:
                self.merge(v)
                done += 1
                if self.progress:
                    self.progress(done, total)
            return
        n = self.tree.n
        parent = {}
        waiting = {}
        for v in order:
            kids = self.tree.children[v - n]
            waiting[v] = sum(1 for c in kids if c >= n)
            for c in kids:
                parent[c] = v
        with _cf.ThreadPoolExecutor(self.threads) as pool:
            pending = {pool.submit(self.merge, v): v for v in order if waiting[v] == 0}
            while pending:
                finished, _ = _cf.wait(pending, return_when=_cf.FIRST_COMPLETED)
                for fut in finished:
                    v = pending.pop(fut)
                    fut.result()
                    done += 1
                    if self.progress:
                        self.progress(done, total)
                    p = parent.get(v)
                    if p is not None:
                        waiting[p] -= 1
                        if waiting[p] == 0:
                            pending[pool.submit(self.merge, p)] = p

    # -- the final rows ----------------------------------------------------
    def positions(self) -> tuple[list, int]:
        """For each sequence, the final column of each of its residues; and the width."""
        tree = self.tree
        n = tree.n
        root = tree.root
        if root < n:
            return [np.arange(self.codes[0].size)], int(self.codes[0].size)
        width = self.profile[root].shape[0]
        pos = {root: np.arange(width)}
        out = [None] * n
        stack = [root]
        while stack:
            v = stack.pop()
            pv = pos.pop(v)
            ma, mb = self.maps[v]
            a, b = tree.children[v - n]
            for c, m in ((a, ma), (b, mb)):
                pc = pv[m]
                if c < n:
                    out[c] = pc
                else:
                    pos[c] = pc
                    stack.append(c)
        return out, width


def _carry_both(both, m):
    """A child's residue-here-and-before fractions, placed in the merged profile."""
    out = both.copy()
    if m.size:
        out[1:] *= m[1:] == m[:-1] + 1
        if m[0] != 0:
            out[0] = 0.0
    return out


def boundary_weights(r, both, sc: ProfileScoring):
    """Open weight at each of the ``L + 1`` boundaries of a profile (terminal factor included).

    Inside, a new gap opens for the sequences with a residue on both sides of
    the boundary; at the ends, for those with a residue at the end column.
    """
    L = r.size
    w = np.ones(L + 1, np.float32)
    if sc.boundary and L:
        w[1:L] = both[1:]
        w[0] = r[0]
        w[L] = r[L - 1]
    w[0] *= sc.term
    w[L] *= sc.term
    return w


#: Largest traceback (bytes = cells) of one profile-profile alignment.
MAX_DP_CELLS = 2 ** 32


def align_profiles(FA, FB, sc: ProfileScoring, both_a=None, both_b=None, extra=None):
    """Align two profiles; returns ``(path, score, map_a, map_b)``.

    ``extra`` (``LA x LB``), when given, is added to the column-pair scores.
    Raises :class:`~trimsa.errors.TrimsaError` when the traceback would need
    more than :data:`MAX_DP_CELLS` bytes.
    """
    cells = (FA.shape[0] + 1) * (FB.shape[0] + 1)
    if cells > MAX_DP_CELLS:
        from ..errors import TrimsaError

        raise TrimsaError(
            f"aligning profiles of {FA.shape[0]} and {FB.shape[0]} columns needs "
            f"{cells / 2**30:.1f} GiB of traceback, more than the {MAX_DP_CELLS / 2**30:.0f} GiB "
            f"trimsa allows (sequences this long are not supported yet)")
    GA = np.ascontiguousarray(FA @ sc.table, dtype=np.float32)
    FBc = np.ascontiguousarray(FB, dtype=np.float32)
    if extra is None:
        extra = np.zeros((0, 0), np.float32)
    ra = np.ascontiguousarray(1.0 - FA[:, -1], dtype=np.float32)
    rb = np.ascontiguousarray(1.0 - FB[:, -1], dtype=np.float32)
    if both_a is None:
        both_a = ra
    if both_b is None:
        both_b = rb
    oa = boundary_weights(ra, both_a, sc)
    ob = boundary_weights(rb, both_b, sc)
    out = np.empty(FA.shape[0] + FB.shape[0], np.int8)
    n, score = _cpu.profile_dp(GA, FBc, extra, ra, rb, oa, ob, np.float32(sc.go),
                               np.float32(sc.ge), out)
    path = out[:n]
    ma = np.empty(FA.shape[0], np.int64)
    mb = np.empty(FB.shape[0], np.int64)
    _cpu.path_maps(path, ma, mb)
    return path, float(score), ma, mb


def assemble(positions, width, sequences, gap: str = "-") -> list:
    """Aligned rows (strings) from residue positions and the original sequences."""
    rows = []
    g = ord(gap)
    for pos, seq in zip(positions, sequences):
        row = np.full(width, g, np.uint8)
        row[pos] = np.frombuffer(seq.encode("latin-1"), np.uint8)
        rows.append(row.tobytes().decode("latin-1"))
    return rows
