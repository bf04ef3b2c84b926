"""The scoring model that every stage reads: substitution scores and a gap model.

Scores are signed and added (see DESIGN.md): with ``match=2, mismatch=-1`` a
residue-residue pair adds +2 or -1 and a gap-gap pair adds 0. An alignment of
several rows scores the sum of its pairs of rows (sum of pairs).

Gap model
---------
Two integer scores, both ``<= 0``: ``gap_open`` and ``gap_extend``. Each pair
of rows is scored on its projection (the columns where both of its rows are
gaps are removed); every maximal run of gaps in one row of the pair costs
``gap_open + gap_extend * length`` (natural affine gap costs). **Linear gaps**
are ``gap_open = 0``: every residue-gap pair then adds ``gap_extend``, which
:attr:`Scoring.gap` returns.

The options mean the same in every subcommand and in the Python API:
``--gap G`` (``gap=G``) asks for linear gaps (``gap_open = 0``,
``gap_extend = G``); ``--gap-open O`` / ``--gap-extend E`` ask for affine gaps,
the one not given keeping the default of the stage. ``--gap`` cannot be
combined with the other two.

Which stage honours what
------------------------
``"triplet"``
    The exact 3-way engine's scores (``trimsa triplets``, ``score_triplets``) and
    the banded kernels' (``band_triplet_scores``, ``band_pair_scores``). The engine
    optimises linear and natural affine gaps exactly (docs/engine.md); the banded
    kernels take both too (not exact: restricted to a band).
``"alignment"``
    The exact 3-way engine's alignments (``trimsa align3``, ``align_triplet(s)``):
    the same engine, with defaults chosen by the accuracy of its alignments.
``"progressive"``
    The profile aligner of ``trimsa run`` (profiles, pairwise library) takes
    both. The guide tree's pair-score and triplet distances (``trimsa tree``, ``run
    --tree-distances triplet``, ``pair_score_distances``, ``triplet_distances``) take
    the same defaults, through the engines above.

Defaults (:data:`DEFAULTS`, the one table of them)
--------------------------------------------------

==============================  ==========================  ============================
                                DNA / RNA                   protein
==============================  ==========================  ============================
substitution                    match 1, mismatch -1        BLOSUM62
substitution, ``"alignment"``   match 3, mismatch -2,       BLOSUM62
                                transversion -3
gaps, ``"triplet"``             linear -3                   linear -4
gaps, ``"alignment"``           open -10, extend -2         linear -4
gaps, ``"progressive"``         open -3, extend -1          open -10, extend -1
==============================  ==========================  ============================

The DNA triplet defaults were chosen by the accuracy of exact linear-gap 3-way
alignments of the ``sim/trip-*`` sets; the DNA alignment defaults by that of exact
affine 3-way alignments on the tune splits' triplets (``sim/trip-indel``,
``sim2/tune/trip-*``, triplets drawn from ``real/tune``); the progressive ones on
the ``sim/msa-*`` sets (docs/scoring.md, docs/progressive.md). The guide tree's
triplet distances take the progressive ones: on the tune sets their trees were
closer to the true trees than with the triplet ones (docs/tree.md). The protein gaps
are not tuned. A transversion (a purine, A or G, against a pyrimidine, C or T)
scores ``transversion``, which is ``mismatch`` unless it is given or the stage's
default differs; a ``mismatch`` given without ``transversion`` sets both.

DNA ambiguity codes
-------------------
Each IUPAC code stands for a set of bases. Two codes score

* ``match`` when both are the same plain base (A, C, G or T);
* ``transversion`` when their base sets are disjoint and every base of one
  against every base of the other is a purine against a pyrimidine (``A``
  against ``C``; ``R`` = A/G against ``C`` or ``Y`` = C/T);
* ``mismatch`` when their base sets are disjoint otherwise: a transition (``A``
  against ``G``, ``C`` against ``T``), or sets that hold one (``S`` = C/G against
  ``W`` = A/T);
* ``0`` otherwise: when they could be the same base but need not be (``N``
  against anything, ``R`` against ``A``, ``R`` against ``R``).

So an ``N`` neither rewards nor penalises the residue it is aligned with, and a
run of ``N`` aligns wherever the gaps put it. Scores stay integers, which keeps
every backend (numba, CUDA 32-bit and packed 16-bit) exact and identical.

Protein
-------
A substitution matrix from Biopython (``BLOSUM62`` by default) over the
alphabet in :data:`trimsa.alphabet.PROTEIN`; every entry must be an integer.

Alignment modes
---------------
:data:`MODES` lists the end-gap treatments of the exact engine (``global``,
``semiglobal``: end gaps free, ``local``); docs/engine.md has their exact
rules.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from . import alphabet as _alphabet
from .errors import OptionError

Stage = Literal["triplet", "alignment", "progressive"]
STAGES = ("triplet", "alignment", "progressive")

#: Default scores per alphabet and stage: DNA ``(match, mismatch, transversion)``, and
#: gaps as ``(gap_open, gap_extend)``.
DEFAULTS = {
    "dna": {"substitution": {"triplet": (1, -1, -1), "alignment": (3, -2, -3),
                             "progressive": (1, -1, -1)},
            "gaps": {"triplet": (0, -3), "alignment": (-10, -2), "progressive": (-3, -1)}},
    "protein": {"matrix": "BLOSUM62",
                "gaps": {"triplet": (0, -4), "alignment": (0, -4), "progressive": (-10, -1)}},
}

#: Alignment modes of the exact 3-way engine (docs/engine.md).
Mode = Literal["global", "semiglobal", "local"]
MODES = ("global", "semiglobal", "local")

#: Largest magnitude of any single score.
SCORE_LIMIT = 10_000


def check_mode(mode: str) -> int:
    """The number of ``mode`` (0 global, 1 semiglobal, 2 local); an error for any other."""
    if mode not in MODES:
        raise OptionError(f"unknown mode {mode!r}; choose one of: {', '.join(MODES)}")
    return MODES.index(mode)


def _as_int(value, what: str) -> int:
    try:
        f = float(value)
    except (TypeError, ValueError):
        raise OptionError(f"{what} must be an integer, got {value!r}") from None
    if not np.isfinite(f) or f != int(f):
        raise OptionError(f"{what} must be an integer, got {value!r}")
    if abs(f) > SCORE_LIMIT:
        raise OptionError(f"{what} must lie within [-{SCORE_LIMIT}, {SCORE_LIMIT}], got {value!r}")
    return int(f)


def _gap_score(value, what: str) -> int:
    v = _as_int(value, what)
    if v > 0:
        raise OptionError(f"{what} must be <= 0 (gap scores are penalties, given as "
                          f"negative scores), got {value!r}")
    return v


def resolve_gaps(alphabet_name: str, stage: Stage = "triplet", *, gap=None, gap_open=None,
                 gap_extend=None) -> tuple[int, int]:
    """``(gap_open, gap_extend)`` from the options as the command line takes them.

    ``gap`` alone: linear gaps. ``gap_open`` and/or ``gap_extend``: affine gaps,
    the one not given taking the stage's default. None of them: the stage's
    default (:data:`DEFAULTS`).
    """
    if stage not in STAGES:
        raise OptionError(f"unknown stage {stage!r}; choose one of: {', '.join(STAGES)}")
    default = DEFAULTS["dna" if alphabet_name == "dna" else "protein"]["gaps"][stage]
    if gap is not None:
        if gap_open is not None or gap_extend is not None:
            raise OptionError("--gap sets linear gaps (gap open 0, gap extend G); give either "
                              "--gap or --gap-open/--gap-extend, not both")
        return 0, _gap_score(gap, "--gap (gap)")
    go = default[0] if gap_open is None else _gap_score(gap_open, "--gap-open (gap_open)")
    ge = default[1] if gap_extend is None else _gap_score(gap_extend, "--gap-extend (gap_extend)")
    return go, ge


@dataclass(frozen=True)
class Scoring:
    """A substitution score for every pair of codes and a gap model.

    Build one with :meth:`dna`, :meth:`protein` or :meth:`for_alphabet`.

    Attributes
    ----------
    alphabet
        The :class:`~trimsa.alphabet.Alphabet` the table is indexed by.
    table
        ``int32`` array ``(K, K)``: the score of a residue-residue pair.
    gap_open, gap_extend
        The gap model (integers <= 0): a run of ``L`` gaps in one row of a
        pair costs ``gap_open + gap_extend * L``; ``gap_open = 0`` is linear.
    """

    alphabet: _alphabet.Alphabet
    table: np.ndarray = field(repr=False)
    gap_open: int
    gap_extend: int
    description: str = ""

    def __post_init__(self):
        t = np.ascontiguousarray(self.table, dtype=np.int32)
        if t.shape != (self.alphabet.size, self.alphabet.size):
            raise OptionError("substitution table does not match the alphabet size")
        t.setflags(write=False)
        object.__setattr__(self, "table", t)
        object.__setattr__(self, "gap_open", _gap_score(self.gap_open, "gap_open"))
        object.__setattr__(self, "gap_extend", _gap_score(self.gap_extend, "gap_extend"))

    def __repr__(self):
        gaps = (f"gap={self.gap_extend}" if self.linear
                else f"gap_open={self.gap_open}, gap_extend={self.gap_extend}")
        return f"Scoring({self.description or self.alphabet.name}, {gaps})"

    def __eq__(self, other):
        return (
            isinstance(other, Scoring)
            and self.alphabet == other.alphabet
            and self.gap_open == other.gap_open
            and self.gap_extend == other.gap_extend
            and np.array_equal(self.table, other.table)
        )

    def __hash__(self):
        return hash((self.alphabet.name, self.gap_open, self.gap_extend, self.table.tobytes()))

    # -- the gap model ------------------------------------------------------
    @property
    def linear(self) -> bool:
        """Whether gaps are linear (``gap_open == 0``)."""
        return self.gap_open == 0

    @property
    def gap(self) -> int:
        """The score of a residue-gap pair under linear gaps (an error for affine gaps)."""
        if not self.linear:
            raise OptionError(f"the gap model is affine (gap open {self.gap_open}, gap extend "
                              f"{self.gap_extend}); a single gap score exists for linear gaps only")
        return self.gap_extend

    # -- constructors -----------------------------------------------------
    @classmethod
    def dna(cls, match=None, mismatch=None, gap=None, *, gap_open=None, gap_extend=None,
            transversion=None, stage: Stage = "triplet") -> "Scoring":
        """Match/mismatch/transversion scoring over the DNA alphabet with IUPAC codes.

        Scores and gaps not given take the ``stage``'s defaults (gaps as
        :func:`resolve_gaps` reads them); a ``mismatch`` given without
        ``transversion`` scores transversions too.
        """
        go, ge = resolve_gaps("dna", stage, gap=gap, gap_open=gap_open, gap_extend=gap_extend)
        m0, x0, v0 = DEFAULTS["dna"]["substitution"][stage]
        if transversion is None:
            transversion = v0 if mismatch is None else mismatch
        match = _as_int(m0 if match is None else match, "match score")
        mismatch = _as_int(x0 if mismatch is None else mismatch, "mismatch score")
        transversion = _as_int(transversion, "transversion score")
        sets = _alphabet.DNA.base_sets()
        purines = frozenset("AG")
        k = len(sets)
        table = np.zeros((k, k), dtype=np.int32)
        for x in range(k):
            for y in range(k):
                if len(sets[x]) == 1 and sets[x] == sets[y]:
                    table[x, y] = match
                elif not (sets[x] & sets[y]):
                    # a transversion: purines only against pyrimidines only
                    tv = (sets[x] <= purines and not sets[y] & purines
                          or sets[y] <= purines and not sets[x] & purines)
                    table[x, y] = transversion if tv else mismatch
        what = f"match={match}, mismatch={mismatch}"
        if transversion != mismatch:
            what += f", transversion={transversion}"
        return cls(_alphabet.DNA, table, go, ge, what)

    @classmethod
    def protein(cls, matrix: str | object = DEFAULTS["protein"]["matrix"], gap=None, *,
                gap_open=None, gap_extend=None, stage: Stage = "triplet") -> "Scoring":
        """A Biopython substitution matrix (by name or object) over :data:`PROTEIN`."""
        from Bio.Align import substitution_matrices

        go, ge = resolve_gaps("protein", stage, gap=gap, gap_open=gap_open,
                              gap_extend=gap_extend)
        name = matrix if isinstance(matrix, str) else getattr(matrix, "name", "custom")
        if isinstance(matrix, str):
            try:
                matrix = substitution_matrices.load(matrix.upper())
            except (FileNotFoundError, ValueError):
                known = ", ".join(substitution_matrices.load())
                raise OptionError(f"unknown substitution matrix {name!r}; known: {known}") from None
        alpha = _alphabet.PROTEIN
        letters = set(matrix.alphabet)
        table = np.zeros((alpha.size, alpha.size), dtype=np.int32)
        for x, a in enumerate(alpha.letters):
            for y, b in enumerate(alpha.letters):
                aa = a if a in letters else "X"
                bb = b if b in letters else "X"
                if aa not in letters or bb not in letters:
                    raise OptionError(f"matrix {name} has no entry for {a!r}/{b!r}")
                table[x, y] = _as_int(matrix[aa][bb], f"matrix {name} entry {a}/{b}")
        return cls(alpha, table, go, ge, f"matrix={name}")

    @classmethod
    def for_alphabet(cls, alpha: _alphabet.Alphabet, stage: Stage = "triplet", *, match=None,
                     mismatch=None, matrix=None, gap=None, gap_open=None,
                     gap_extend=None, transversion=None) -> "Scoring":
        """The defaults of ``stage`` for ``alpha``, with any of the options overridden.

        The options mean what the command line says: a match scores above a
        mismatch, and gaps cost something (:meth:`dna` itself takes any table
        and gaps, for tests of the engine).
        """
        gaps = dict(gap=gap, gap_open=gap_open, gap_extend=gap_extend, stage=stage)
        go, ge = resolve_gaps("dna" if alpha.name == "dna" else "protein", stage, gap=gap,
                              gap_open=gap_open, gap_extend=gap_extend)
        if go == 0 and ge == 0:
            raise OptionError("gaps that cost nothing (gap open 0 and gap extend 0) make every "
                              "alignment optimal; give a gap score below 0")
        if alpha.name == "dna":
            if matrix is not None:
                raise OptionError("a substitution matrix applies to protein input only; "
                                  "use --match/--mismatch/--transversion for DNA")
            m0, x0, v0 = DEFAULTS["dna"]["substitution"][stage]
            if transversion is None:
                transversion = v0 if mismatch is None else mismatch
            match = m0 if match is None else _as_int(match, "match score")
            mismatch = x0 if mismatch is None else _as_int(mismatch, "mismatch score")
            transversion = _as_int(transversion, "transversion score")
            for name, v in (("mismatch", mismatch), ("transversion", transversion)):
                if match <= v:
                    raise OptionError(f"the match score must be above the {name} score, got "
                                      f"match {match} and {name} {v}")
            return cls.dna(match, mismatch, transversion=transversion, **gaps)
        if match is not None or mismatch is not None or transversion is not None:
            raise OptionError("--match/--mismatch/--transversion apply to DNA only; use "
                              "--matrix for protein")
        return cls.protein(DEFAULTS["protein"]["matrix"] if matrix is None else matrix, **gaps)

    # -- helpers -----------------------------------------------------------
    def max_abs(self) -> int:
        """Largest magnitude of any single pair score or gap run step (for overflow bounds)."""
        return int(max(np.abs(self.table).max(), abs(self.gap_open) + abs(self.gap_extend)))

    def sum_of_pairs(self, rows) -> int:
        """Score of an alignment of any number of rows under this model (sum of pairs).

        ``rows`` are equal-length integer code arrays with ``-1`` for a gap.
        Each pair of rows is scored on its projection (columns where both are
        gaps removed): the table's score for every two residues, and
        ``gap_open + gap_extend * L`` for every maximal run of ``L`` gaps in one
        row of the pair (natural affine gaps; linear when ``gap_open = 0``).

        Examples
        --------
        >>> sc = Scoring.dna(gap_open=-3, gap_extend=-1)
        >>> a, c, g, t = 0, 1, 2, 3
        >>> sc.sum_of_pairs([[a, c, g, t], [a, -1, -1, t]])   # 1 + (-3 - 2) + 1
        -3
        """
        R = [np.asarray(r, dtype=np.int64) for r in rows]
        if len({r.shape for r in R}) > 1:
            raise OptionError("rows of an alignment must have equal lengths")
        total = 0
        for p in range(len(R)):
            for q in range(p + 1, len(R)):
                x, y = R[p], R[q]
                keep = (x >= 0) | (y >= 0)
                x, y = x[keep], y[keep]
                both = (x >= 0) & (y >= 0)
                total += int(self.table[x[both], y[both]].sum())
                # 0: residue pair, 1: gap in y, 2: gap in x; a run starts where the kind changes
                kind = np.where(both, 0, np.where(x >= 0, 1, 2))
                gaps = kind != 0
                starts = gaps & np.concatenate(([True], kind[1:] != kind[:-1]))
                total += self.gap_extend * int(gaps.sum()) + self.gap_open * int(starts.sum())
        return total

    def pair(self, x: int, y: int) -> int:
        """Linear-gap score of codes ``x`` and ``y``; ``-1`` stands for a gap."""
        if x < 0 and y < 0:
            return 0
        if x < 0 or y < 0:
            return self.gap
        return int(self.table[x, y])
