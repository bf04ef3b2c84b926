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
import queue
import threading
from dataclasses import dataclass

import numpy as np

from ..tree import GuideTree
from . import _cpu


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
    """Scores of the profile aligner: signed and added, as :class:`~trimsa.scoring.Scoring`.

    Attributes
    ----------
    table
        ``float32 (K + 1, K + 1)`` over the residue codes in use and, last,
        the gap: residue pairs score the substitution table, a residue against
        a gap ``gap_extend``, two gaps 0.
    gap_open, gap_extend
        Gap scores (<= 0).
    term
        Factor on ``gap_open`` for gaps that open at either end of a profile.
    """

    table: np.ndarray
    gap_open: float
    gap_extend: float
    term: float


def make_profile_scoring(sub_table, used_codes, gap_open, gap_extend, term) -> ProfileScoring:
    """Restrict ``sub_table`` to ``used_codes`` and add the gap row and column."""
    k = len(used_codes)
    t = np.zeros((k + 1, k + 1), np.float32)
    t[:k, :k] = np.asarray(sub_table, np.float32)[np.ix_(used_codes, used_codes)]
    t[:k, k] = gap_extend
    t[k, :k] = gap_extend
    return ProfileScoring(t, float(gap_open), float(gap_extend), float(term))


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
        self.wsum = {}
        self.maps = {}
        for i in range(n):
            c = seq_codes[i]
            f = np.zeros((c.size, k + 1), np.float32)
            f[np.arange(c.size), c] = 1.0
            self.profile[i] = f
            self.wsum[i] = float(self.weights[i])
        self._lock = threading.Lock()
        self.running = 0  # merges computing their library support now (threads shared)
        self.cells = 0  # DP cells of the merges done

    # -- one merge ---------------------------------------------------------
    def merge(self, v: int) -> None:
        a, b = self.tree.children[v - self.tree.n]
        FA, FB = self.profile[a], self.profile[b]
        wa, wb = self.wsum[a], self.wsum[b]
        extra = None
        if self.library is not None:
            with self._lock:
                self.running += 1
                inner = max(1, self.threads // self.running)
            try:
                extra = self.library.scores(FA.shape[0], FB.shape[0], self.members[a],
                                            self.members[b], self.weights, inner)
            finally:
                with self._lock:
                    self.running -= 1
            extra *= np.float32(self.library.weight)
        path, _score, ma, mb = align_profiles(FA, FB, self.sc, extra)
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
        with self._lock:
            self.profile[v] = F
            self.members[v] = np.concatenate([self.members[a], self.members[b]])
            del self.members[a], self.members[b]
            self.wsum[v] = tot
            self.maps[v] = (ma, mb)
            self.cells += FA.shape[0] * FB.shape[0]
            del self.profile[a], self.profile[b]

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
        # finished merges arrive on a queue: waiting on all pending futures at once would
        # cost time in proportion to their number at every completion
        finished = queue.SimpleQueue()
        with _cf.ThreadPoolExecutor(self.threads) as pool:

            def submit(v):
                pool.submit(self.merge, v).add_done_callback(
                    lambda fut, v=v: finished.put((v, fut)))

            for v in order:
                if waiting[v] == 0:
                    submit(v)
            while done < total:
                v, fut = finished.get()
                fut.result()
                done += 1
                if self.progress:
                    self.progress(done, total)
                p = parent.get(v)
                if p is not None:
                    waiting[p] -= 1
                    if waiting[p] == 0:
                        submit(p)

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


def boundary_weights(L: int, sc: ProfileScoring):
    """Open weight at each of the ``L + 1`` boundaries of a profile: 1, the terminal factor at the ends."""
    w = np.ones(L + 1, np.float32)
    w[0] *= sc.term
    w[L] *= sc.term
    return w


#: Largest traceback (bytes = cells) of one profile-profile alignment.
MAX_DP_CELLS = 2 ** 32


def align_profiles(FA, FB, sc: ProfileScoring, extra=None):
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
    oa = boundary_weights(FA.shape[0], sc)
    ob = boundary_weights(FB.shape[0], sc)
    out = np.empty(FA.shape[0] + FB.shape[0], np.int8)
    n, score = _cpu.profile_dp(GA, FBc, extra, ra, rb, oa, ob, np.float32(sc.gap_open),
                               np.float32(sc.gap_extend), out)
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
