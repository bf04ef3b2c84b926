"""The Python API of the aligner: :class:`Aligner`, :func:`align`, :class:`AlignmentResult`.

Examples
--------
>>> from trimsa.progressive import align
>>> res = align([("a", "ACGTACGTAC"), ("b", "ACGTCGTAC"), ("c", "ACGACGTAC"), ("d", "ACGTACGAC")])
>>> [len(r) for r in res.rows] == [len(res.rows[0])] * 4
True
>>> [r.replace("-", "") for r in res.rows]
['ACGTACGTAC', 'ACGTCGTAC', 'ACGACGTAC', 'ACGTACGAC']
"""

from __future__ import annotations

import dataclasses
import os
import time
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from .. import _numba
from ..errors import OptionError
from ..io import SequenceSet, as_sequence_set, atomic_output
from ..scoring import Scoring
from . import engine
from .guide import default_guide_tree

Method = Literal["nj", "upgma"]
Device = Literal["auto", "cpu", "gpu"]
AlphabetName = Literal["auto", "dna", "rna", "protein"]

#: Output formats and the Biopython (Bio.AlignIO) format each is written with.
FORMATS = {
    "fasta": "fasta",
    "clustal": "clustal",
    "phylip": "phylip-relaxed",
    "stockholm": "stockholm",
    "nexus": "nexus",
}

#: Default gap penalties (scores, so negative) of the profile aligner, per alphabet.
DNA_GAPS = {"gap_open": -3.0, "gap_extend": -1.0}
PROTEIN_GAPS = {"gap_open": -10.0, "gap_extend": -1.0}
DEFAULT_TERMINAL = 0.5
#: Default weight of the consistency library in the profile scores (0 = off).
DEFAULT_CONSISTENCY = 6.0
#: Largest all-pairs alignment work (DP cells) spent on the library by default.
LIBRARY_CELLS = 1.2e10
#: Largest memory of the library's residue maps (bytes); above it no library is built.
LIBRARY_BYTES = 2 ** 30
#: Third sequences that vote in the library's extension (None = all).
MAX_WITNESSES: int | None = 32


def _check_choice(value, allowed, what):
    if value not in allowed:
        raise OptionError(f"unknown {what} {value!r}; choose one of: {', '.join(allowed)}")


@dataclass(frozen=True, repr=False)
class Aligner:
    """Configuration of a progressive multiple alignment.

    Parameters
    ----------
    method
        Guide-tree method: neighbour joining or UPGMA.
    device
        Accepted for the triplet stages to come; in this version every stage of
        the progressive aligner runs on the CPU (the GPU kernels score triplets,
        see :func:`trimsa.score_triplets`).
    threads
        CPU threads (0 = all cores).
    alphabet
        Residue alphabet; guessed from the input by default.
    match, mismatch
        DNA substitution scores (defaults of :meth:`trimsa.scoring.Scoring.dna`).
    matrix
        Protein substitution matrix known to Biopython (default BLOSUM62).
    gap
        Linear gap score (an integer) of the exact 3-way alignment used for
        exactly three sequences (default -2 for DNA, -4 for protein); also the
        gap-extension score when ``gap_extend`` is not given.
    gap_open, gap_extend
        Affine gap scores (negative; ``None`` = the alphabet's defaults:
        -3/-1 for DNA, -10/-1 for protein). A gap of length ``L`` opposite
        columns with residue fractions ``r_1..r_L`` scores
        ``gap_open * r_1 + gap_extend * sum(r)``.
    terminal
        Factor on ``gap_open`` for gaps at either end of a profile.
    guide_tree
        A Newick file or a ``dendropy.Tree`` over the sequence names to use
        instead of building one.
    consistency
        Weight of the consistency library (all pairwise alignments, extended
        through every third sequence) added to the profile scores of each
        merge; 0 turns it off. Used only when all pairwise alignments cost at
        most ``max_library_cells`` DP cells (about 250 sequences of 450
        residues) and their residue maps fit in 1 GiB; larger inputs are
        aligned without it.
    max_library_cells
        See ``consistency``.
    max_witnesses
        How many third sequences vote in the library's extension (spread
        evenly along the guide tree; default 32); ``None`` = all of them,
        ``0`` = only the direct pairwise support.
    """

    method: Method = "upgma"
    device: Device = "auto"
    threads: int = 0
    alphabet: AlphabetName = "auto"
    match: int | None = None
    mismatch: int | None = None
    matrix: str | None = None
    gap: int | None = None
    gap_open: float | None = None
    gap_extend: float | None = None
    terminal: float = DEFAULT_TERMINAL
    guide_tree: object = None
    consistency: float = DEFAULT_CONSISTENCY
    max_library_cells: float = LIBRARY_CELLS
    max_witnesses: int | None = MAX_WITNESSES

    def __post_init__(self):
        _check_choice(self.method, ("nj", "upgma"), "guide-tree method")
        _check_choice(self.device, ("auto", "cpu", "gpu"), "device")
        _check_choice(self.alphabet, ("auto", "dna", "rna", "protein"), "alphabet")
        if not isinstance(self.threads, int) or self.threads < 0:
            raise OptionError(f"threads must be an integer >= 0 (0 = all cores), got {self.threads!r}")
        for name in ("gap_open", "gap_extend"):
            v = getattr(self, name)
            if v is not None:
                try:
                    fv = float(v)
                except (TypeError, ValueError):
                    raise OptionError(f"{name.replace('_', '-')} must be a number, got {v!r}") from None
                if not np.isfinite(fv) or fv > 0:
                    raise OptionError(
                        f"{name.replace('_', '-')} is a score and must be <= 0, got {v!r}")
        if not (0 <= float(self.terminal) <= 10):
            raise OptionError(f"terminal must lie within [0, 10], got {self.terminal!r}")
        if self.max_witnesses is not None and (not isinstance(self.max_witnesses, int)
                                               or self.max_witnesses < 0):
            raise OptionError(f"max_witnesses must be None or an integer >= 0, "
                              f"got {self.max_witnesses!r}")
        if not (0 <= float(self.consistency) <= 1000):
            raise OptionError(f"consistency must lie within [0, 1000], got {self.consistency!r}")

    def __repr__(self):
        parts = []
        for f in dataclasses.fields(self):
            v = getattr(self, f.name)
            if v is not f.default and v != f.default:
                parts.append(f"{f.name}={v!r}")
        return f"Aligner({', '.join(parts)})"

    # -- scoring ---------------------------------------------------------------
    def scoring(self, seqs: SequenceSet) -> Scoring:
        """The substitution scoring used for ``seqs`` (and for 3-way alignments)."""
        return Scoring.for_alphabet(seqs.alphabet, match=self.match, mismatch=self.mismatch,
                                    gap=self.gap, matrix=self.matrix)

    def gaps(self, seqs: SequenceSet) -> tuple[float, float]:
        d = DNA_GAPS if seqs.alphabet.name == "dna" else PROTEIN_GAPS
        go = d["gap_open"] if self.gap_open is None else float(self.gap_open)
        ge = self.gap_extend if self.gap_extend is not None else self.gap
        ge = d["gap_extend"] if ge is None else float(ge)
        if ge > 0:
            raise OptionError(f"gap is a score and must be <= 0, got {ge!r}")
        return -go, -ge

    # -- the work --------------------------------------------------------------
    def align(self, sequences, *, progress=None) -> "AlignmentResult":
        """Align ``sequences``: a FASTA path, SeqRecords, ``(name, seq)`` pairs or strings.

        ``progress``, when given, is called as ``progress(done, total)`` after
        each profile merge (and ``progress(0, 0)`` before the pairwise
        library is built).
        """
        timings = {}
        t0 = time.perf_counter()
        alpha = None if self.alphabet == "auto" else self.alphabet
        seqs = as_sequence_set(sequences, alpha)
        timings["read"] = time.perf_counter() - t0
        threads = _numba.set_threads(self.threads)
        n = len(seqs)
        if n == 1:
            tree = engine.GuideTree(1, [], np.zeros(1), 0)
            return self._result(seqs, list(seqs.sequences), tree, timings)
        if n == 3 and self.guide_tree is None:
            return self._align_three(seqs, timings)
        t = time.perf_counter()
        tree = self._guide_tree(seqs, threads)
        timings["guide tree"] = time.perf_counter() - t
        rows = self._walk(seqs, tree, threads, progress, timings)
        return self._result(seqs, rows, tree, timings)

    def _guide_tree(self, seqs, threads) -> engine.GuideTree:
        if self.guide_tree is not None:
            return _load_tree(self.guide_tree, seqs.names)
        return default_guide_tree(seqs, method=self.method, threads=threads)

    def _compact(self, seqs):
        used = np.unique(seqs.codes)
        lut = np.zeros(256, np.int64)
        lut[used] = np.arange(used.size)
        codes = [lut[seqs.code(i)] for i in range(len(seqs))]
        return used, codes

    def _walk(self, seqs, tree, threads, progress, timings):
        t = time.perf_counter()
        used, codes = self._compact(seqs)
        go, ge = self.gaps(seqs)
        sc = engine.make_profile_scoring(self.scoring(seqs).table, used, go, ge,
                                         float(self.terminal), ge)
        btree = tree.binary()
        library = None
        if self.use_library(seqs):
            from .consistency import build_library, pick_witnesses

            if progress:
                progress(0, 0)
            witnesses = pick_witnesses(len(seqs), btree.leaves(), self.max_witnesses)
            library = build_library(codes, sc.table[:-1, :-1], go, ge, float(self.terminal),
                                    weight=float(self.consistency), witnesses=witnesses,
                                    threads=threads)
            timings["library"] = time.perf_counter() - t
            t = time.perf_counter()
        walk = engine.Walk(btree, codes, engine.tree_weights(btree), sc, threads=threads,
                           progress=progress, library=library)
        walk.run()
        positions, width = walk.positions()
        rows = engine.assemble(positions, width, seqs.sequences)
        timings["merge"] = time.perf_counter() - t
        return rows

    def use_library(self, seqs: SequenceSet) -> bool:
        """Whether the consistency library is built for ``seqs`` (weight > 0 and affordable)."""
        from .consistency import library_bytes, library_cells

        return (float(self.consistency) > 0 and len(seqs) >= 3
                and library_cells(seqs.lengths) <= float(self.max_library_cells)
                and library_bytes(seqs.lengths) <= LIBRARY_BYTES)

    def _align_three(self, seqs, timings):
        from ..triplet import align_triplets

        t = time.perf_counter()
        aln = align_triplets(seqs, [[0, 1, 2]], mode="global", scoring=self.scoring(seqs))[0]
        timings["3-way"] = time.perf_counter() - t
        tree = engine.GuideTree(3, [(0, 1, 2)], np.zeros(4), 3)
        return self._result(seqs, list(aln.rows), tree, timings)

    def _result(self, seqs, rows, tree, timings) -> "AlignmentResult":
        return AlignmentResult(names=tuple(seqs.names), descriptions=tuple(seqs.descriptions),
                               rows=tuple(rows), guide=tree, alphabet=seqs.alphabet.name,
                               timings=timings)


def _load_tree(source, names) -> engine.GuideTree:
    import dendropy

    from ..errors import InputFormatError

    if isinstance(source, dendropy.Tree):
        tree = source
    else:
        path = str(source)
        if not os.path.exists(path):
            raise InputFormatError(f"{path}: no such file (guide tree)")
        try:
            tree = dendropy.Tree.get(path=path, schema="newick", preserve_underscores=True)
        except Exception as exc:  # dendropy raises many types for bad Newick
            msg = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise InputFormatError(f"{path}: not a Newick tree ({msg})") from None
    return engine.GuideTree.from_dendropy(tree, names)


@dataclass(frozen=True)
class AlignmentResult:
    """A multiple alignment, its guide tree and the time each stage took.

    Attributes
    ----------
    names, descriptions, rows
        The aligned rows in input order (input characters and ``-``).
    guide
        The guide tree (:class:`~trimsa.progressive.engine.GuideTree`).
    timings
        Seconds per stage.
    """

    names: tuple
    descriptions: tuple
    rows: tuple
    guide: object = field(repr=False)
    alphabet: str = "dna"
    timings: dict = field(default_factory=dict)

    @property
    def alignment(self):
        """The alignment as a :class:`Bio.Align.MultipleSeqAlignment`."""
        from Bio.Align import MultipleSeqAlignment
        from Bio.Seq import Seq
        from Bio.SeqRecord import SeqRecord

        mol = "protein" if self.alphabet == "protein" else "DNA"
        recs = [SeqRecord(Seq(r), id=n, name=n, description=d,
                          annotations={"molecule_type": mol})
                for n, d, r in zip(self.names, self.descriptions, self.rows)]
        return MultipleSeqAlignment(recs)

    @property
    def tree(self):
        """The guide tree as a ``dendropy.Tree``."""
        return self.guide.to_dendropy(self.names)

    def newick(self) -> str:
        return self.guide.to_newick(self.names)

    def __len__(self) -> int:
        return len(self.rows[0]) if self.rows else 0

    def write(self, path=None, format: str = "fasta") -> None:
        """Write the alignment (``path`` None or ``"-"``: standard output)."""
        _check_choice(format, tuple(FORMATS), "output format")
        with atomic_output(path) as fh:
            self.write_to(fh, format)

    def write_to(self, handle, format: str = "fasta") -> None:
        _check_choice(format, tuple(FORMATS), "output format")
        if format == "fasta":
            for d, r in zip(self.descriptions, self.rows):
                handle.write(f">{d}\n{r}\n")
            return
        from Bio import AlignIO

        AlignIO.write(self.alignment, handle, FORMATS[format])


def align(sequences, **options) -> AlignmentResult:
    """Align ``sequences`` with an :class:`Aligner` made from ``options``."""
    return Aligner(**options).align(sequences)
