"""UPGMA on k-mer distances without the n x n matrix: the same tree in bounded memory.

Dense UPGMA (:func:`trimsa.tree.cluster.upgma`) holds every distance: 8 n^2
bytes, 80 GB at 10^5 sequences. :func:`kmer_upgma` builds the tree dense UPGMA
builds (up to ties between equal distances) in two phases whose memory does
not grow with n^2:

1. **Joins from nearest neighbours.** Every sequence keeps its ``K`` nearest
   sequences by k-mer distance (one pass over all pairs, ``n x K`` memory)
   and its *radius*, the largest of those distances: a sequence not listed is
   at least that far. For two clusters, the known distances plus, for each
   pair not known, the larger radius of its two sequences bound their mean
   distance from below; clusters with no known pair are at least the larger
   of their mean radii apart. UPGMA always joins the two clusters of least
   mean distance, and its joins only climb, so a join is certain when its
   clusters' mean distance is exact (computed from all their pairs when the
   least bound is not) and no bound is lower. Joins are made this way
   (:func:`trimsa.tree._cpu.sparse_upgma`) until at most ``m`` clusters are
   left, ``m^2`` floats being the memory allowed.
2. **The dense rest.** A second pass over all pairs sums the distances between
   the ``m`` clusters, and UPGMA on their mean distances
   (:func:`trimsa.tree._cpu.upgma_sized_joins`) makes the remaining joins.

When the first phase cannot go on (the bound of pairs without a known distance
is reached while more than ``m`` clusters are left), ``K`` doubles and it
starts again. Time: two or three passes over all pairs, as many k-mer
distances as dense UPGMA computes, times two or three.
"""

from __future__ import annotations

import time

import numpy as np

from .. import _numba
from ..errors import OptionError
from ..io import as_sequence_set
from .distances import Distances, KmerSets, kmer_client, kmer_k
from .guide import GuideTree

#: Nearest neighbours each sequence keeps at first (32 was doubled to 64 on the sim2/tune
#: N = 1,000 and 3,000 sets, n10k and 10^5: starting at 64 saves that first pass).
NEIGHBOURS = 64
#: Most neighbours per sequence before giving up.
MAX_NEIGHBOURS = 1024


def neighbours(ks: KmerSets, K: int, progress=None):
    """Each sequence's ``K`` nearest sequences, their distances and its radius
    (``progress(done, total)`` in pairs, when given)."""
    from . import _cpu

    n = ks.n
    nb = np.zeros((n, K), np.int64)
    nbd = np.zeros((n, K))
    radius = np.zeros(n)
    every = np.arange(n, dtype=np.int64)
    for i0, i1, _, shared in ks.blocks(every, every, progress=progress):
        _numba.in_threads(
            lambda idx, s=shared, r=i0: _cpu.kmer_neighbours(s, r, idx, ks.counts, nb, nbd,
                                                             radius),
            np.arange(i1 - i0, dtype=np.int64), ks.threads)
    return nb, nbd, radius


def clusters_of(n: int, joins) -> np.ndarray:
    """The node each sequence ends in after ``joins`` (node ``n + s`` made by join ``s``)."""
    steps = len(joins)
    top = np.arange(n + steps)
    for s in range(steps - 1, -1, -1):
        top[joins[s]] = top[n + s]
    return top[:n]


def dense_rest(ks: KmerSets, owner, progress=None):
    """UPGMA joins between the clusters ``owner`` assigns the sequences to, from their mean
    k-mer distances: ``(ids, joins, heights)``, ``joins`` in slots ``0..m-1`` of the
    cluster ids ``ids`` and ``m, m + 1, ...`` for the new nodes (``progress(done,
    total)`` in pairs of sequences, when given)."""
    from . import _cpu

    ids, slot = np.unique(owner, return_inverse=True)
    m = ids.size
    order = np.argsort(slot, kind="stable").astype(np.int64)
    size = np.bincount(slot, minlength=m).astype(np.int64)
    start = np.zeros(m + 1, np.int64)
    np.cumsum(size, out=start[1:])
    slot_at = slot[order].astype(np.int64)
    M = np.zeros((m, m))
    # a block of rows order[i0:i1] needs the columns from the end of its first cluster on;
    # each row is summed against the sequences after its own cluster
    after = order.size - start[1:][slot_at]
    reach = np.concatenate([[0], np.cumsum(after)])
    for p0, p1, c0, shared in ks.blocks(order, order, lambda i0: start[slot_at[i0] + 1],
                                        progress, lambda i0, i1, c0: reach[i1] - reach[i0]):
        slots = np.arange(slot_at[p0], slot_at[p1 - 1] + 1, dtype=np.int64)
        _numba.in_threads(
            lambda sl, b=(shared, p0, p1, c0): _cpu.cluster_sums(*b, ks.counts, order, start,
                                                                 slot_at, sl, M),
            slots, ks.threads)
    _cpu.mirror_upper(M)
    sz = size.astype(float)
    M /= sz[:, None]
    M /= sz[None, :]
    joins, heights = _cpu.upgma_sized_joins(M, size.copy())
    return ids, joins, heights


def upgma_joins(ks: KmerSets, matrix_bytes: float, neighbours_start: int = NEIGHBOURS,
                progress=None):
    """UPGMA joins of the sequences whose k-mer sets ``ks`` holds, the matrix of the dense
    phase held to ``matrix_bytes``: ``(joins, heights, info)`` as
    :func:`trimsa.tree._cpu.upgma_joins` returns them, and what was done (module docs).
    ``progress(done, total, stage)``, when given, follows the passes over all pairs."""
    from . import _cpu

    n = ks.n
    m = int(np.sqrt(max(float(matrix_bytes), 0.0) / 8.0))
    if m < 2:
        raise OptionError(f"a guide-tree matrix budget of {matrix_bytes:.3g} bytes holds no "
                          f"2 x 2 matrix")
    K = max(1, min(int(neighbours_start), n - 1))
    steps, joins, heights, evaluated = 0, np.zeros((0, 2), np.int64), np.zeros(0), 0.0
    while n > m:
        nb, nbd, radius = neighbours(ks, K, _staged(progress, f"tree: {K} nearest neighbours"))
        steps, joins, heights, evaluated = _cpu.sparse_upgma(ks.bits, ks.counts, nb, nbd,
                                                             radius, m)
        del nb, nbd
        if n - steps <= m:
            break
        if K >= min(MAX_NEIGHBOURS, n - 1):
            raise OptionError(
                f"UPGMA of {n} sequences in bounded memory: with {K} neighbours per sequence "
                f"{n - steps} clusters are left for a matrix of {m} x {m} "
                f"({matrix_bytes:.3g} bytes); allow a larger guide-tree matrix")
        K = min(2 * K, n - 1, MAX_NEIGHBOURS)
    joins, heights = joins[:steps], heights[:steps]
    ids, rest, rest_h = dense_rest(ks, clusters_of(n, joins),
                                   _staged(progress, "tree: distances between clusters"))
    node = np.concatenate([ids, n + steps + np.arange(ids.size - 1)])
    info = {"neighbours": K if n > m else 0, "sparse_joins": int(steps),
            "dense_clusters": int(ids.size), "evaluated": float(evaluated),
            "matrix_bytes": float(matrix_bytes), "device": ks.where}
    return (np.concatenate([joins, node[rest]]), np.concatenate([heights, rest_h]), info)


def _staged(progress, stage: str):
    return None if progress is None else (lambda done, total: progress(done, total, stage))


def kmer_upgma(seqs, *, matrix_bytes: float, neighbours_start: int = NEIGHBOURS,
               device: str = "cpu", threads: int = 0, gpus=None, scheduler=None,
               progress=None) -> GuideTree:
    """UPGMA on the k-mer distances of ``seqs`` (:func:`~trimsa.tree.distances.kmer_distances`)
    with at most ``matrix_bytes`` for the matrix of its dense phase (module docs).

    The tree is the one :func:`~trimsa.tree.cluster.upgma` builds from the full matrix,
    up to the order of joins at equal distances. Its ``distances`` carry no matrix; their
    ``info`` says how it was built: ``neighbours`` (K, 0 when no join came from them),
    ``sparse_joins``, ``dense_clusters``, ``evaluated`` (pairs whose distance was computed
    to make a bound exact), ``matrix_bytes`` and ``device`` (where the shared k-mers were
    counted: ``device`` and ``gpus`` as for :class:`~trimsa.tree.distances.KmerSets`, or
    on the Dask workers of ``scheduler``; the tree does not depend on them). ``progress(done, total, stage)``, when given, is called
    as the passes over all pairs go.
    """
    t0 = time.perf_counter()
    seqs = as_sequence_set(seqs)
    seqs.require(2, "a guide tree")
    with kmer_client(scheduler, device) as client:
        ks = KmerSets.of(seqs, device=device, threads=threads, gpus=gpus, client=client)
        joins, heights, info = upgma_joins(ks, matrix_bytes, neighbours_start, progress)
    tree = GuideTree.from_heights(seqs.names, joins, heights, method="upgma")
    info["k"] = kmer_k(seqs.alphabet.name)
    seconds = time.perf_counter() - t0
    tree.distances = Distances(seqs.names, None, "kmer", info, {"k-mer distances": seconds})
    tree.timings = {"upgma in bounded memory": seconds}
    return tree
