"""Guide trees from triplet scores: pairwise estimates, distances, UPGMA and NJ.

Pipeline (docs/tree.md has the derivations and the measurements behind the
choices):

1. triplet scores ``S(i, j, k)`` from the exact engine
   (:func:`trimsa.triplet.score_triplets`, CPU or GPU) or from the banded CPU
   kernel of this module (not exact: a band of half-width ``band`` around the
   diagonal of the cube);
2. pairwise estimates ``s(i, j)`` by least squares on the model
   ``S(i, j, k) = s(i, j) + s(i, k) + s(j, k)``: in closed form when all
   ``C(n, 3)`` triplets were scored, otherwise by sparse least squares around a
   cheap prior (banded pairwise scores) on a sampled design;
3. distances comparable across lengths (Feng-Doolittle: the score between the
   expected score of unrelated sequences and the self-scores, log-corrected);
4. neighbour-joining or UPGMA, returned as a :class:`dendropy.Tree`.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from .. import _numba
from ..errors import OptionError
from ..io import SequenceSet, as_sequence_set
from ..scoring import Scoring

Method = Literal["nj", "upgma"]
TripletChoice = Literal["auto", "all", "sampled"]

METHODS = ("nj", "upgma")
TRIPLET_CHOICES = ("auto", "all", "sampled")
DISTANCES = ("deficit", "fd")

#: Cells per second and per CPU thread of the two CPU kernels, and of a whole
#: GPU for the exact engine. Measured on the project's 2-core development
#: machine (shared, loaded) with eval/tree_speed.py (eval/results/tree_speed.md); the GPU figure
#: is the TrioSeq paper's rate for lengths 256-1024 (000_*.txt), to be replaced
#: by a measurement of trimsa's own GPU kernel. The budget of sampled designs is
#: ``time_budget * rate``; constants (not a run-time calibration) keep the
#: design, hence the tree, deterministic for a given seed.
RATES = {
    ("cpu", "exact"): 4.0e7,
    ("cpu", "band"): 5.0e7,
    ("gpu", "exact"): 5.0e11,
}
#: Default half-width of the banded kernels.
DEFAULT_BAND = 32
#: Default time budget (seconds) for the prior and the triplet scoring.
DEFAULT_TIME_BUDGET = 240.0
#: Default damping of the sparse least squares (score units).
DEFAULT_DAMP = 0.1
#: Shuffled triplets (pairs) scored to estimate the score of unrelated sequences.
RANDOM_SAMPLES = 8


@dataclass
class GuideTree:
    """A guide tree and how it was obtained.

    Attributes
    ----------
    tree
        The :class:`dendropy.Tree`; its taxa are the input names.
    names
        Input names, in input order (rows of ``distances``).
    distances
        ``(n, n)`` distance matrix the tree was built from.
    estimates
        ``(n, n)`` pairwise score estimates (diagonal: self-scores).
    method
        ``"nj"`` or ``"upgma"``.
    triplets
        ``"all"`` (every ``C(n, 3)`` triplet scored) or ``"sampled"``.
    engine
        ``"exact"`` or ``"band<w>"`` (banded, not exact).
    n_triplets
        Triplets scored for the estimates (shuffled ones for the random
        baseline not counted).
    pairs_supported
        Pairs that lie in at least one scored triplet.
    min_support
        Fewest scored triplets containing any supported pair.
    timings
        Seconds spent per stage.
    """

    tree: object
    names: tuple
    distances: np.ndarray = field(repr=False)
    estimates: np.ndarray = field(repr=False)
    method: str
    triplets: str
    engine: str
    n_triplets: int
    pairs_supported: int
    min_support: int
    m: int = 0
    timings: dict = field(default_factory=dict)

    @property
    def pairs_total(self) -> int:
        n = len(self.names)
        return n * (n - 1) // 2

    def newick(self) -> str:
        """The tree as one line of Newick (see :func:`to_newick`)."""
        return to_newick(self.tree)

    def summary(self) -> str:
        t = sum(self.timings.values())
        return (f"{self.method} tree of {len(self.names)} sequences from {self.n_triplets} "
                f"{self.engine} triplets ({self.triplets}; {self.pairs_supported} of "
                f"{self.pairs_total} pairs supported, min support {self.min_support}) "
                f"in {t:.1f} s")


# -- small helpers ---------------------------------------------------------------

def _check_choice(value, allowed, what):
    if value not in allowed:
        raise OptionError(f"unknown {what} {value!r}; choose one of: {', '.join(allowed)}")
    return value


def n_all_triplets(n: int) -> int:
    return n * (n - 1) * (n - 2) // 6


def self_scores(seqs: SequenceSet, scoring: Scoring) -> np.ndarray:
    """Score of each sequence aligned with itself (``float64``)."""
    diag = scoring.table.diagonal().astype(np.float64)
    per = diag[seqs.codes]
    return np.add.reduceat(per, seqs.offsets[:-1]) if len(seqs) else np.zeros(0)


def _scoring_for(seqs: SequenceSet, scoring):
    from ..triplet.api import _scoring_for as check

    return check(seqs, scoring)


def triplet_cells(lengths: np.ndarray, triplets: np.ndarray, band: int | None) -> np.ndarray:
    """Cells per triplet: ``(|A|+1)(|B|+1)(|C|+1)``, or ``(max+1)(2w+1)^2`` for a band."""
    L = lengths[triplets].astype(np.float64) + 1.0
    if band is None:
        return L.prod(axis=1)
    return L.max(axis=1) * float(2 * band + 1) ** 2


def _mean_triplet_cells(lengths, band):
    L = lengths.astype(np.float64) + 1.0
    if band is None:
        return float(L.mean() ** 3)
    return float(L.mean()) * float(2 * band + 1) ** 2


# -- scoring -------------------------------------------------------------------

def _run_band(kernel: str, seqs, index, width: int, band: int, scoring, threads: int):
    from . import _nj

    seqs = as_sequence_set(seqs)
    sc = _scoring_for(seqs, scoring)
    if int(band) < 1:
        raise OptionError(f"band must be >= 1, got {band}")
    idx = np.ascontiguousarray(index, dtype=np.int64).reshape(-1, width)
    if idx.size and (idx.min() < 0 or idx.max() >= len(seqs)):
        raise OptionError(f"sequence index outside 0..{len(seqs) - 1}")
    out = np.zeros(idx.shape[0], dtype=np.int64)
    if idx.shape[0]:
        _numba.set_threads(threads)
        getattr(_nj, kernel)(seqs.codes, seqs.offsets, idx, sc.table, np.int32(sc.gap),
                             int(band), out)
    return out


def band_triplet_scores(seqs, triplets, *, band: int = DEFAULT_BAND, scoring=None,
                        threads: int = 0) -> np.ndarray:
    """Global 3-way scores restricted to a band of half-width ``band`` (``int64``).

    Not exact: the optimal alignment may leave the band, and then the banded
    score is lower than the exact one (never higher). With ``band`` at least
    the length of the two shorter sequences it equals the exact global score.
    """
    return _run_band("band_triplet_batch", seqs, triplets, 3, band, scoring, threads)


def band_pair_scores(seqs, pairs, *, band: int = DEFAULT_BAND, scoring=None,
                     threads: int = 0) -> np.ndarray:
    """Global pairwise scores restricted to a band of half-width ``band`` (``int64``)."""
    return _run_band("band_pair_batch", seqs, pairs, 2, band, scoring, threads)


def _score(seqs, trip, *, band, scoring, mode, device, threads):
    if band is None:
        from ..triplet import score_triplets

        return score_triplets(seqs, trip, mode=mode, scoring=scoring, device=device,
                              threads=threads)
    return band_triplet_scores(seqs, trip, band=band, scoring=scoring, threads=threads)


def _shuffled(seqs: SequenceSet, count: int, rng) -> SequenceSet:
    """``count`` sequences of the input with their residues shuffled."""
    picks = rng.choice(len(seqs), size=count, replace=len(seqs) < count)
    parts = [rng.permutation(seqs.code(int(i))) for i in picks]
    offsets = np.zeros(count + 1, dtype=np.int64)
    offsets[1:] = np.cumsum([p.size for p in parts])
    names = tuple(f"shuffled{i}" for i in range(count))
    return SequenceSet(names, names, ("",) * count, seqs.alphabet,
                       np.concatenate(parts).astype(np.uint8), offsets, "<shuffled>")


def random_rate(seqs, *, triplet: bool = True, band=DEFAULT_BAND, scoring=None,
                mode="global", device="cpu", threads=0, seed=0) -> float:
    """Expected score per residue of unrelated sequences with this composition.

    Scores :data:`RANDOM_SAMPLES` triplets (or pairs) of shuffled input
    sequences with the engine in use; the rate ``rho`` is such that two
    unrelated sequences of lengths ``Li`` and ``Lj`` are expected to score
    ``rho (Li + Lj) / 2`` (a triplet ``rho (La + Lb + Lc)``).
    """
    seqs = as_sequence_set(seqs)
    rng = np.random.default_rng([seed, 7919])
    k = 3 if triplet else 2
    sh = _shuffled(seqs, k * RANDOM_SAMPLES, rng)
    idx = np.arange(k * RANDOM_SAMPLES).reshape(RANDOM_SAMPLES, k)
    if triplet:
        s = _score(sh, idx, band=band, scoring=scoring, mode=mode, device=device,
                   threads=threads)
        tot = sh.lengths[idx].sum(axis=1)
    else:
        s = band_pair_scores(sh, idx, band=band, scoring=scoring, threads=threads)
        tot = sh.lengths[idx].sum(axis=1) / 2.0
    return float(np.sum(s) / np.sum(tot))


# -- least squares -----------------------------------------------------------------

def _pair_ids(n: int):
    iu, ju = np.triu_indices(n, 1)
    pid = np.full((n, n), -1, dtype=np.int64)
    pid[iu, ju] = np.arange(iu.size)
    pid[ju, iu] = pid[iu, ju]
    return iu, ju, pid


def ls_all_triplets(n: int, scores) -> np.ndarray:
    """Closed-form least squares pairwise estimates from all ``C(n, 3)`` triplets.

    ``scores`` are in the order of :func:`trimsa.triplet.all_triplets`.
    With ``T_ij`` the sum of the ``n - 2`` triplets holding ``i`` and ``j``,
    ``R_i`` the sum of those holding ``i`` and ``Tot`` the sum of all, the
    normal equations give (for ``n >= 5``)::

        sigma = Tot / (n - 2)                 # sum of all s
        r_i   = (R_i - sigma) / (n - 3)       # sum of the s involving i
        s_ij  = (T_ij - r_i - r_j) / (n - 4)

    For ``n`` of 3 or 4 the system is underdetermined; the minimum-norm
    solution (``numpy.linalg.lstsq``) is returned. The diagonal is 0.
    """
    from ..triplet import all_triplets

    S = np.asarray(scores, dtype=np.float64)
    if S.size != n_all_triplets(n):
        raise OptionError(f"expected {n_all_triplets(n)} triplet scores for n = {n}, got {S.size}")
    if n < 5:
        return ls_triplets(n, all_triplets(n), S)
    from ..triplet.api import iter_all_triplets

    T = np.zeros((n, n))

    pos = 0
    for block in iter_all_triplets(n):
        s = S[pos:pos + block.shape[0]]
        pos += block.shape[0]
        i, j, k = (block[:, q].astype(np.int64) for q in range(3))
        T += (np.bincount(i * n + j, s, n * n) + np.bincount(i * n + k, s, n * n)
              + np.bincount(j * n + k, s, n * n)).reshape(n, n)
    T = T + T.T
    R = T.sum(axis=1) / 2.0
    sigma = S.sum() / (n - 2)
    r = (R - sigma) / (n - 3)
    est = (T - r[:, None] - r[None, :]) / (n - 4)
    np.fill_diagonal(est, 0.0)
    return est


def _design(n: int, triplets: np.ndarray):
    from scipy import sparse

    _, _, pid = _pair_ids(n)
    t = triplets.shape[0]
    cols = np.stack([pid[triplets[:, 0], triplets[:, 1]], pid[triplets[:, 0], triplets[:, 2]],
                     pid[triplets[:, 1], triplets[:, 2]]], axis=1).ravel()
    rows = np.repeat(np.arange(t), 3)
    return sparse.csr_matrix((np.ones(3 * t), (rows, cols)), shape=(t, n * (n - 1) // 2))


def ls_triplets(n: int, triplets, scores, *, prior=None, damp: float = 0.0) -> np.ndarray:
    """Least squares pairwise estimates from any set of triplets.

    Minimises ``sum_t (S_t - s_ij - s_ik - s_jk)^2 + damp^2 sum (s - prior)^2``
    over all pairs (``prior`` an ``(n, n)`` matrix, 0 when ``None``) with
    ``scipy.sparse.linalg.lsqr`` (dense ``lstsq`` for small systems). Pairs in
    no triplet keep their prior. Returns the ``(n, n)`` estimate (diagonal 0).
    """
    from scipy.sparse.linalg import lsqr

    trip = np.asarray(triplets, dtype=np.int64).reshape(-1, 3)
    S = np.asarray(scores, dtype=np.float64)
    iu, ju, _ = _pair_ids(n)
    base = np.zeros(iu.size) if prior is None else np.asarray(prior, np.float64)[iu, ju]
    A = _design(n, trip)
    rhs = S - A @ base
    if iu.size <= 64 and damp == 0.0:
        delta = np.linalg.lstsq(A.toarray(), rhs, rcond=None)[0]
    else:
        delta = lsqr(A, rhs, damp=damp, atol=1e-10, btol=1e-10, iter_lim=10000)[0]
    est = np.zeros((n, n))
    est[iu, ju] = base + delta
    est[ju, iu] = est[iu, ju]
    return est


def pairwise_from_triplets(seqs, triplets=None, scores=None, *, mode="global", scoring=None,
                           band: int | None = None, prior=None, damp: float = DEFAULT_DAMP,
                           device="cpu", threads: int = 0) -> np.ndarray:
    """Pairwise score estimates ``(n, n)`` from triplet scores.

    Parameters
    ----------
    seqs
        Anything :func:`~trimsa.io.as_sequence_set` accepts.
    triplets
        ``(T, 3)`` indices, or ``None`` for all ``C(n, 3)`` triplets (closed
        form, no prior).
    scores
        Their scores; computed here when ``None`` (exact engine when ``band``
        is ``None``, else the banded CPU kernel).
    prior, damp
        Sampled designs: prior estimates and the damping of the least squares
        towards them (see :func:`ls_triplets`).

    Returns
    -------
    numpy.ndarray
        Symmetric estimates; the diagonal holds the self-scores.
    """
    seqs = as_sequence_set(seqs)
    seqs.require(3, "a guide tree from triplets")
    sc = _scoring_for(seqs, scoring)
    n = len(seqs)
    if triplets is None:
        if scores is None and band is None:
            scores = _score(seqs, None, band=None, scoring=sc, mode=mode, device=device,
                            threads=threads)
        elif scores is None:
            from ..triplet.api import iter_all_triplets

            scores = np.concatenate([_score(seqs, block, band=band, scoring=sc, mode=mode,
                                            device=device, threads=threads)
                                     for block in iter_all_triplets(n)])
        est = ls_all_triplets(n, scores)
    else:
        trip = np.asarray(triplets, dtype=np.int64).reshape(-1, 3)
        if scores is None:
            scores = _score(seqs, trip, band=band, scoring=sc, mode=mode, device=device,
                            threads=threads)
        est = ls_triplets(n, trip, scores, prior=prior, damp=damp)
    np.fill_diagonal(est, self_scores(seqs, sc))
    return est


# -- distances ---------------------------------------------------------------------

def score_distances(est, self_sc, lengths, rho: float, *, kind: str = "deficit") -> np.ndarray:
    """Distances from pairwise score estimates, comparable across lengths.

    With ``e_ij = rho (L_i + L_j) / 2`` the expected score of unrelated
    sequences and ``m_ij = (self_i + self_j) / 2``, the similarity
    ``x = (s_ij - e_ij) / (m_ij - e_ij)`` is 1 for identical and 0 for
    unrelated sequences. ``kind="fd"`` returns ``-ln x`` (Feng & Doolittle
    1996; ``x`` clipped to ``[1e-3, 1]``), ``"deficit"`` returns ``1 - x``.
    """
    _check_choice(kind, DISTANCES, "distance")
    L = np.asarray(lengths, dtype=np.float64)
    e = rho * (L[:, None] + L[None, :]) / 2.0
    mm = (self_sc[:, None] + self_sc[None, :]) / 2.0
    x = (est - e) / np.maximum(mm - e, 1e-9)
    if kind == "fd":
        D = -np.log(np.clip(x, 1e-3, 1.0))
    else:
        D = np.maximum(1.0 - x, 0.0)
    D = (D + D.T) / 2.0
    np.fill_diagonal(D, 0.0)
    return D


# -- trees -------------------------------------------------------------------------

def _check_matrix(D, names):
    D = np.array(D, dtype=np.float64)
    n = len(names)
    if D.shape != (n, n):
        raise OptionError(f"distance matrix of shape {D.shape} for {n} names")
    if n < 2:
        raise OptionError("a tree needs at least 2 taxa")
    if not np.all(np.isfinite(D)):
        raise OptionError("distance matrix has non-finite entries")
    if len(set(names)) != n:
        raise OptionError("taxon names must be unique")
    return (D + D.T) / 2.0


def _clean_length(x) -> float:
    """Non-negative, no ``-0``, rounding noise (below 1e-12) written as 0."""
    x = float(x)
    return x if x > 1e-12 else 0.0


def _assemble(names, children, lengths, root, rooted):
    import dendropy

    tns = dendropy.TaxonNamespace([str(x) for x in names])
    nodes = {}
    for i, _ in enumerate(names):
        nodes[i] = dendropy.Node(taxon=tns[i])
    for parent in sorted(children):
        node = dendropy.Node()
        nodes[parent] = node
    for parent in sorted(children):
        for child, length in zip(children[parent], lengths[parent]):
            c = nodes[child]
            c.edge_length = _clean_length(length)
            nodes[parent].add_child(c)
    tree = dendropy.Tree(taxon_namespace=tns, seed_node=nodes[root], is_rooted=rooted)
    return tree


def _non_negative(a, b):
    """Branch lengths ``a, b`` made non-negative, keeping their sum where possible."""
    if a < 0:
        b, a = b + a, 0.0
    if b < 0:
        a, b = a + b, 0.0
    return max(a, 0.0), max(b, 0.0)


def neighbor_joining(D, names, *, root: bool = True):
    """Neighbour-joining tree, rooted at its midpoint unless ``root`` is false.

    Negative branch lengths are set to 0 and the difference moved to the
    sibling branch. NJ itself gives an unrooted tree (a trifurcation at the
    seed node when ``root`` is false); Clustal Omega's ``--guidetree-in``
    refuses unrooted trees, so by default the tree is rooted on the midpoint
    of its longest leaf-to-leaf path (a bifurcating root).
    """
    from . import _nj

    names = tuple(names)
    D = _check_matrix(D, names)
    n = len(names)
    if n == 2:
        half = max(D[0, 1], 0.0) / 2.0
        return _assemble(names, {2: (0, 1)}, {2: (half, half)}, 2, root)
    joins, lengths = _nj.nj_joins(np.ascontiguousarray(D))
    children, blens = {}, {}
    for s in range(n - 3):
        la, lb = _non_negative(lengths[s, 0], lengths[s, 1])
        children[n + s] = (int(joins[s, 0]), int(joins[s, 1]))
        blens[n + s] = (la, lb)
    root = 2 * n - 3
    children[root] = tuple(int(x) for x in joins[n - 3])
    blens[root] = tuple(max(float(x), 0.0) for x in lengths[n - 3])
    tree = _assemble(names, children, blens, root, False)
    if root:
        tree.is_rooted = True
        tree.reroot_at_midpoint(update_bipartitions=False, suppress_unifurcations=True)
        for edge in tree.postorder_edge_iter():
            if edge.length is not None:
                edge.length = _clean_length(edge.length)
    return tree


def upgma(D, names):
    """UPGMA (average linkage) tree, rooted and ultrametric on ultrametric input."""
    from . import _nj

    names = tuple(names)
    D = _check_matrix(D, names)
    n = len(names)
    joins, heights = _nj.upgma_joins(np.ascontiguousarray(D))
    height = np.zeros(2 * n - 1)
    children, blens = {}, {}
    for s in range(n - 1):
        a, b = int(joins[s, 0]), int(joins[s, 1])
        h = max(heights[s], height[a], height[b])
        height[n + s] = h
        children[n + s] = (a, b)
        blens[n + s] = (h - height[a], h - height[b])
    return _assemble(names, children, blens, 2 * n - 2, True)


def to_newick(tree) -> str:
    """One line of Newick with branch lengths, no rooting token, ending in ``;``.

    Names are written as they are unless they hold Newick punctuation or
    spaces, in which case they are single-quoted (underscores stay bare).
    """
    s = tree.as_string(schema="newick", suppress_rooting=True, unquoted_underscores=True,
                       suppress_internal_node_labels=True, real_value_format_specifier=".6g")
    return s.strip().replace("\n", "")


# -- sampled designs ----------------------------------------------------------------

def sample_triplets(D_prior, m: int, max_triplets: int, *, seed: int = 0):
    """Triplets so that pairs get ``m`` third sequences each, closest pairs first.

    Pairs are visited in order of increasing prior distance; a pair with fewer
    than ``m`` scored triplets gets new ones: half of the third sequences from
    the nearest neighbours of either member (prior distance), the rest
    uniformly at random. Stops at ``max_triplets``. Deterministic for a seed.

    Returns
    -------
    triplets, support
        ``(T, 3)`` sorted rows and the ``(n, n)`` count of triplets per pair.
    """
    D = np.asarray(D_prior, dtype=np.float64)
    n = D.shape[0]
    rng = np.random.default_rng(seed)
    iu, ju = np.triu_indices(n, 1)
    # ties broken at random but reproducibly
    order = np.lexsort((rng.random(iu.size), D[iu, ju]))
    near = np.argsort(D + np.diag(np.full(n, np.inf)), axis=1, kind="stable")[:, :max(m, 1) + 2]
    support = np.zeros((n, n), dtype=np.int32)
    chosen = set()
    out = []
    for p in order:
        if len(out) >= max_triplets:
            break
        i, j = int(iu[p]), int(ju[p])
        need = m - support[i, j]
        if need <= 0:
            continue
        n_near = (need + 1) // 2
        near_k = (int(k) for pair in zip(near[i], near[j]) for k in pair)
        added = tries = 0
        while added < need and tries < 20 * m + 2 * near.shape[1]:
            tries += 1
            k = next(near_k, None) if added < n_near else None
            if k is None:
                k = int(rng.integers(n))
            if k == i or k == j:
                continue
            a, b, c = sorted((i, j, k))
            key = (a * n + b) * n + c
            if key in chosen:
                continue
            chosen.add(key)
            out.append((a, b, c))
            support[a, b] += 1
            support[a, c] += 1
            support[b, c] += 1
            added += 1
            if len(out) >= max_triplets:
                break
    support = support + support.T
    trip = np.array(out, dtype=np.int64).reshape(-1, 3)
    return trip, support


def _calibrate(delta, supported, xprior, ell):
    """Fill ``delta`` of unsupported pairs with its trend over supported pairs.

    The triplet estimates of a pair sit below its pairwise score by an amount
    that grows with divergence; unsupported pairs get the median shift per
    residue of supported pairs with similar prior distance (10 quantile bins).
    """
    if supported.all() or not supported.any():
        return delta
    y = delta[supported] / ell[supported]
    x = xprior[supported]
    edges = np.unique(np.quantile(x, np.linspace(0, 1, 11)))
    if edges.size < 2:
        shift = np.full(np.count_nonzero(~supported), np.median(y))
    else:
        idx = np.clip(np.searchsorted(edges, x, side="right") - 1, 0, edges.size - 2)
        centres, meds = [], []
        for b in range(edges.size - 1):
            sel = idx == b
            if sel.any():
                centres.append(np.median(x[sel]))
                meds.append(np.median(y[sel]))
        shift = np.interp(xprior[~supported], centres, meds)
    out = delta.copy()
    out[~supported] = shift * ell[~supported]
    return out


# -- the whole thing -----------------------------------------------------------------

def _rate(device: str, engine: str, threads: int) -> float:
    if device == "gpu":
        return RATES[("gpu", "exact")]
    import numba

    limit = numba.config.NUMBA_NUM_THREADS
    nthreads = limit if threads == 0 else min(threads, limit)
    return RATES[("cpu", engine)] * nthreads


def build_guide_tree(seqs, *, method: Method = "nj", triplets: TripletChoice = "auto",
                     m: int | None = None, band: int | str | None = "auto",
                     time_budget: float = DEFAULT_TIME_BUDGET, mode="global", scoring=None,
                     distance: str = "deficit", damp: float = DEFAULT_DAMP, device="cpu",
                     threads: int = 0, seed: int = 0, verbose: bool = False) -> GuideTree:
    """Guide tree of ``seqs`` from triplet scores.

    Parameters
    ----------
    seqs
        A :class:`~trimsa.io.SequenceSet`, FASTA path, SeqRecords, pairs or strings.
    method
        ``"nj"`` (neighbour-joining, rooted at its midpoint) or ``"upgma"``.
    triplets
        ``"all"``: every ``C(n, 3)`` triplet, closed-form least squares.
        ``"sampled"``: each pair gets ``m`` third sequences within the budget,
        closest pairs first, sparse least squares around banded pairwise
        scores. ``"auto"``: all when their cost fits the budget, else sampled.
    m
        Third sequences per pair in sampled designs, ``1 <= m <= n - 2``;
        ``None`` picks the largest the budget allows (at least 2).
    band
        Half-width of the banded triplet kernel (not exact), ``None`` for
        the exact engine, ``"auto"`` for exact on a GPU (or for non-global
        modes) and banded (:data:`DEFAULT_BAND`) on the CPU. The banded kernel
        computes global scores only.
    time_budget
        Seconds allowed for the banded pairwise prior (sampled designs) and
        the triplet scoring, converted to cells with :data:`RATES` for the
        device in use (an estimate: the run may take longer on a loaded
        machine).
    mode, scoring
        Alignment mode and scores of the triplets (see
        :func:`trimsa.triplet.score_triplets`).
    distance
        ``"fd"`` or ``"deficit"`` (see :func:`score_distances`).
    damp
        Damping of the sparse least squares towards the prior.
    device, threads
        ``"cpu"``, ``"gpu"`` or ``"auto"``; CPU threads (0 = all cores).
    seed
        Seed of the sampled design and of the shuffles (deterministic).
    """
    from ..triplet.api import _check_mode, resolve_device

    _check_choice(method, METHODS, "method")
    _check_choice(triplets, TRIPLET_CHOICES, "triplet choice")
    _check_choice(distance, DISTANCES, "distance")
    _check_mode(mode)
    _numba.set_threads(threads)
    if not (time_budget > 0):
        raise OptionError(f"time budget must be positive, got {time_budget}")
    seqs = as_sequence_set(seqs)
    seqs.require(3, "a guide tree")
    sc = _scoring_for(seqs, scoring)
    n = len(seqs)
    if m is not None and not (1 <= m <= n - 2):
        raise OptionError(f"m must be between 1 and n - 2 = {n - 2} for {n} sequences, got {m}")
    dev = resolve_device(device)
    lengths = seqs.lengths
    timings = {}

    # engine and budget
    if band == "auto":
        band = None if (dev == "gpu" or mode != "global") else DEFAULT_BAND
    if band is not None:
        band = int(band)
        if band < 1:
            raise OptionError(f"band must be >= 1, got {band}")
        if mode != "global":
            raise OptionError("the banded kernel computes global scores only; use band=None")
        if dev == "gpu":
            raise OptionError("the GPU runs the exact engine only; use band=None")
    engine = "exact" if band is None else f"band{band}"
    budget_cells = time_budget * _rate(dev, "exact" if band is None else "band", threads)
    per_triplet = _mean_triplet_cells(lengths, band)
    if triplets == "auto":
        triplets = "all" if n_all_triplets(n) * per_triplet <= budget_cells else "sampled"

    t0 = time.perf_counter()
    rho = random_rate(seqs, triplet=True, band=band, scoring=sc, mode=mode, device=dev,
                      threads=threads, seed=seed)
    timings["baseline"] = time.perf_counter() - t0
    self_sc = self_scores(seqs, sc)
    mm = 0
    if triplets == "all":
        t0 = time.perf_counter()
        est = pairwise_from_triplets(seqs, None, mode=mode, scoring=sc, band=band, device=dev,
                                     threads=threads)
        timings["triplets"] = time.perf_counter() - t0
        n_trip = n_all_triplets(n)
        supported, min_support, mm = n * (n - 1) // 2, n - 2, n - 2
    else:
        # prior: banded global pairwise scores of all pairs
        t0 = time.perf_counter()
        pband = DEFAULT_BAND if band is None else band
        iu, ju = np.triu_indices(n, 1)
        ps = band_pair_scores(seqs, np.stack([iu, ju], 1), band=pband, scoring=sc,
                              threads=threads)
        prior = np.zeros((n, n))
        prior[iu, ju] = ps
        prior[ju, iu] = ps
        np.fill_diagonal(prior, self_sc)
        rho2 = random_rate(seqs, triplet=False, band=pband, scoring=sc, seed=seed,
                           threads=threads)
        D_prior = score_distances(prior, self_sc, lengths, rho2, kind=distance)
        timings["prior"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        # the prior's (estimated) time comes out of the budget
        prior_cells = len(iu) * float(lengths.mean() + 1) * (2 * pband + 1)
        left = max(0.0, time_budget - prior_cells / _rate("cpu", "band", threads))
        budget_cells = left * _rate(dev, "exact" if band is None else "band", threads)
        max_trip = int(max(1, budget_cells // per_triplet))
        pairs = n * (n - 1) // 2
        mm = m if m is not None else int(max(2, min(n - 2, (2.4 * max_trip) // pairs)))
        trip, support = sample_triplets(D_prior, mm, max_trip, seed=seed)
        timings["design"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        S = _score(seqs, trip, band=band, scoring=sc, mode=mode, device=dev, threads=threads)
        timings["triplets"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        est = ls_triplets(n, trip, S, prior=prior, damp=damp)
        sup = support[iu, ju] > 0
        ell = (lengths[iu] + lengths[ju]) / 2.0
        delta = _calibrate(est[iu, ju] - ps, sup, D_prior[iu, ju], ell)
        est[iu, ju] = ps + delta
        est[ju, iu] = est[iu, ju]
        np.fill_diagonal(est, self_sc)
        timings["solve"] = time.perf_counter() - t0
        n_trip = trip.shape[0]
        supported = int(sup.sum())
        min_support = int(support[iu, ju][sup].min()) if supported else 0
    t0 = time.perf_counter()
    D = score_distances(est, self_sc, lengths, rho, kind=distance)
    tree = (neighbor_joining if method == "nj" else upgma)(D, seqs.names)
    timings["tree"] = time.perf_counter() - t0
    gt = GuideTree(tree=tree, names=seqs.names, distances=D, estimates=est, method=method,
                   triplets=triplets, engine=engine, n_triplets=int(n_trip),
                   pairs_supported=int(supported), min_support=int(min_support), m=int(mm),
                   timings=timings)
    if verbose:
        print(f"trimsa: {gt.summary()}", file=sys.stderr)
    return gt
