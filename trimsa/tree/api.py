"""Guide trees: distances from a source, then neighbour joining or UPGMA.

:func:`build_guide_tree` is the one entry: ``trimsa tree``, the progressive
aligner of ``trimsa run`` and the Python API all call it. The sources of
distances are in :mod:`trimsa.tree.distances`, the clustering methods in
:mod:`trimsa.tree.cluster`, the tree type in :mod:`trimsa.tree.guide`.
"""

from __future__ import annotations

import inspect
import math
import numbers
import sys
import time
from typing import Literal

from ..errors import OptionError
from ..io import as_sequence_set
from .cluster import METHODS
from .distances import SOURCES
from .guide import GuideTree

Method = Literal["nj", "upgma"]
Source = Literal["kmer", "pair-score", "triplet"]


def _check_choice(value, allowed, what):
    if value not in allowed:
        raise OptionError(f"unknown {what} {value!r}; choose one of: {', '.join(allowed)}")
    return value


#: Largest distance matrix a guide tree holds (bytes; 16,384 sequences in float64). Beyond
#: it, UPGMA on k-mer distances runs in bounded memory (:mod:`trimsa.tree.bounded`), and
#: the other sources and methods are errors.
MATRIX_BYTES = 2 * 2 ** 30


def build_guide_tree(seqs, *, distances: Source = "pair-score", method: Method = "nj",
                     verbose: bool = False, matrix_bytes: float | None = None,
                     progress=None, **options) -> GuideTree:
    """Guide tree of ``seqs``: distances from the source ``distances``, then ``method``.

    Parameters
    ----------
    seqs
        A :class:`~trimsa.io.SequenceSet`, FASTA path, SeqRecords, pairs or strings.
    distances
        A source of :data:`~trimsa.tree.distances.SOURCES`: ``"pair-score"`` (banded
        pairwise alignment scores, :func:`~trimsa.tree.distances.pair_score_distances`;
        the default: closer to the true trees than the triplet source on the tune
        splits, docs/tree.md), ``"triplet"``
        (:func:`~trimsa.tree.distances.triplet_distances`) or ``"kmer"``
        (:func:`~trimsa.tree.distances.kmer_distances`).
    method
        ``"nj"`` (neighbour joining, rooted at its midpoint) or ``"upgma"``.
    verbose
        Say on stderr what was done (:meth:`GuideTree.summary`).
    matrix_bytes
        The most memory for a distance matrix (:data:`MATRIX_BYTES` by default). When
        the ``n x n`` matrix is larger, k-mer distances with UPGMA build the same tree
        in bounded memory (:func:`trimsa.tree.bounded.kmer_upgma`, its dense phase held
        to this many bytes); other sources and methods are an error.
    progress
        Called as ``progress(done, total, stage)`` while the k-mer distances are
        computed (the passes over all pairs), the pair-score source's pairs scored
        (stage ``"tree: pairwise scores"``), a sampled design's prior pairs scored
        (stage ``"tree: pairwise prior"``) or the triplets scored (stage
        ``"tree: triplets"``; not with a scheduler).
    **options
        The source's own options (an option the source does not take is an
        error): ``device`` and ``threads`` for all, ``scheduler`` for ``kmer`` and
        ``triplet``, ``gpus`` for ``kmer``; ``scoring``, ``band``, ``time_budget``,
        ``transform`` and ``seed`` for ``pair-score`` and ``triplet``; ``mode``,
        ``triplets``, ``m`` and ``damp`` for the triplet source.

    Examples
    --------
    >>> t = build_guide_tree(["ACGTACGTAA", "ACGTACGTTA", "TTGTACGAAA", "TTGTACGACA"],
    ...                      distances="kmer", method="upgma")
    >>> t.newick()
    '((seq1:0.2,seq2:0.2):0.3,(seq3:0.2,seq4:0.2):0.3);'
    """
    _check_choice(distances, tuple(SOURCES), "distance source")
    _check_choice(method, tuple(METHODS), "guide-tree method")
    source = SOURCES[distances]
    allowed = set(inspect.signature(source).parameters) - {"seqs"}
    unknown = sorted(set(options) - allowed)
    if unknown:
        raise OptionError(f"{distances} distances take no option {unknown[0]!r}; they take: "
                          f"{', '.join(sorted(allowed))}")
    for name, value in (("matrix_bytes", matrix_bytes), ("damp", options.get("damp")),
                        ("time_budget", options.get("time_budget"))):
        if value is not None and (isinstance(value, bool) or not isinstance(value, numbers.Real)
                                  or not math.isfinite(value) or value < 0):
            raise OptionError(f"{name} must be a number >= 0, got {value!r}")
    seqs = as_sequence_set(seqs)
    seqs.require(2, "a guide tree")
    n = len(seqs)
    limit = MATRIX_BYTES if matrix_bytes is None else matrix_bytes
    if 8.0 * n * n > limit:
        if distances != "kmer" or method != "upgma":
            raise OptionError(
                f"a guide tree of {n} sequences by {method} of {distances} distances needs "
                f"an {n} x {n} distance matrix ({8.0 * n * n:.3g} bytes), beyond the "
                f"{limit:.3g} bytes allowed; use kmer distances with upgma, which need "
                f"no such matrix")
        from .bounded import kmer_upgma

        tree = kmer_upgma(seqs, matrix_bytes=limit, device=options.get("device", "cpu"),
                          threads=options.get("threads", 0), gpus=options.get("gpus"),
                          scheduler=options.get("scheduler"), progress=progress)
        if verbose:
            print(f"trimsa: {tree.summary()}", file=sys.stderr)
        return tree
    if progress is not None:
        stage = "tree: k-mer distances" if distances == "kmer" else "tree: triplets"
        options["progress"] = lambda done, total, part=None: progress(
            done, total, f"tree: {part}" if part else stage)
    dist = source(seqs, **options)
    t0 = time.perf_counter()
    tree = METHODS[method](dist.matrix, seqs.names)
    tree.distances = dist
    tree.timings = dict(dist.timings)
    tree.timings[method] = time.perf_counter() - t0
    if verbose:
        print(f"trimsa: {tree.summary()}", file=sys.stderr)
    return tree
