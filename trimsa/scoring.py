"""Scoring schemes.

Scores are signed and added (see DESIGN.md): with ``match=2, mismatch=-1,
gap=-2`` a residue-residue pair adds +2 or -1, a residue-gap pair adds -2 and a
gap-gap pair adds 0. A column of a 3-way alignment scores the sum of its three
pairs (sum of pairs).

DNA ambiguity codes
-------------------
Each IUPAC code stands for a set of bases. Two codes score

* ``match`` when both are the same plain base (A, C, G or T);
* ``mismatch`` when their base sets are disjoint (``R`` = A/G against ``C``);
* ``0`` otherwise: when they could be the same base but need not be (``N``
  against anything, ``R`` against ``A``, ``R`` against ``R``).

So an ``N`` neither rewards nor penalises the residue it is aligned with, and a
run of ``N`` aligns wherever the gaps put it. Scores stay integers, which keeps
every backend (numba, CUDA 32-bit and packed 16-bit) exact and identical.

Protein
-------
A substitution matrix from Biopython (``BLOSUM62`` by default) over the
alphabet in :data:`trimsa.alphabet.PROTEIN`; every entry must be an integer.

DNA defaults
------------
``match=1, mismatch=-1, gap=-3``; chosen by measured accuracy of exact
3-way alignments on the ``trip-indel`` sets (see docs/scoring.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from . import alphabet as _alphabet
from .errors import OptionError

DNA_DEFAULTS = {"match": 1, "mismatch": -1, "gap": -3}
PROTEIN_DEFAULTS = {"matrix": "BLOSUM62", "gap": -4}


def _as_int(value, what: str) -> int:
    try:
        f = float(value)
    except (TypeError, ValueError):
        raise OptionError(f"{what} must be an integer, got {value!r}") from None
    if not np.isfinite(f) or f != int(f):
        raise OptionError(f"{what} must be an integer, got {value!r}")
    if abs(f) > 10_000:
        raise OptionError(f"{what} must lie within [-10000, 10000], got {value!r}")
    return int(f)


@dataclass(frozen=True)
class Scoring:
    """A substitution score for every pair of codes and a linear gap score.

    Build one with :meth:`dna`, :meth:`protein` or :meth:`for_alphabet`.

    Attributes
    ----------
    alphabet
        The :class:`~trimsa.alphabet.Alphabet` the table is indexed by.
    table
        ``int32`` array ``(K, K)``: the score of a residue-residue pair.
    gap
        Score of a residue-gap pair (a gap-gap pair scores 0).
    """

    alphabet: _alphabet.Alphabet
    table: np.ndarray = field(repr=False)
    gap: int
    description: str = ""

    def __post_init__(self):
        t = np.ascontiguousarray(self.table, dtype=np.int32)
        if t.shape != (self.alphabet.size, self.alphabet.size):
            raise OptionError("substitution table does not match the alphabet size")
        t.setflags(write=False)
        object.__setattr__(self, "table", t)
        object.__setattr__(self, "gap", _as_int(self.gap, "gap score"))

    def __repr__(self):
        return f"Scoring({self.description or self.alphabet.name}, gap={self.gap})"

    def __eq__(self, other):
        return (
            isinstance(other, Scoring)
            and self.alphabet == other.alphabet
            and self.gap == other.gap
            and np.array_equal(self.table, other.table)
        )

    def __hash__(self):
        return hash((self.alphabet.name, self.gap, self.table.tobytes()))

    # -- constructors -----------------------------------------------------
    @classmethod
    def dna(cls, match=DNA_DEFAULTS["match"], mismatch=DNA_DEFAULTS["mismatch"],
            gap=DNA_DEFAULTS["gap"]) -> "Scoring":
        """Match/mismatch scoring over the DNA alphabet with IUPAC codes."""
        match = _as_int(match, "match score")
        mismatch = _as_int(mismatch, "mismatch score")
        sets = _alphabet.DNA.base_sets()
        k = len(sets)
        table = np.zeros((k, k), dtype=np.int32)
        for x in range(k):
            for y in range(k):
                if len(sets[x]) == 1 and sets[x] == sets[y]:
                    table[x, y] = match
                elif not (sets[x] & sets[y]):
                    table[x, y] = mismatch
        return cls(_alphabet.DNA, table, gap, f"match={match}, mismatch={mismatch}")

    @classmethod
    def protein(cls, matrix: str | object = PROTEIN_DEFAULTS["matrix"],
                gap=PROTEIN_DEFAULTS["gap"]) -> "Scoring":
        """A Biopython substitution matrix (by name or object) over :data:`PROTEIN`."""
        from Bio.Align import substitution_matrices

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
        return cls(alpha, table, gap, f"matrix={name}")

    @classmethod
    def for_alphabet(cls, alpha: _alphabet.Alphabet, *, match=None, mismatch=None,
                     gap=None, matrix=None) -> "Scoring":
        """Defaults for ``alpha`` with any of the options overridden."""
        if alpha.name == "dna":
            if matrix is not None:
                raise OptionError("a substitution matrix applies to protein input only; "
                                  "use --match/--mismatch for DNA")
            return cls.dna(
                DNA_DEFAULTS["match"] if match is None else match,
                DNA_DEFAULTS["mismatch"] if mismatch is None else mismatch,
                DNA_DEFAULTS["gap"] if gap is None else gap,
            )
        if match is not None or mismatch is not None:
            raise OptionError("--match/--mismatch apply to DNA only; use --matrix for protein")
        return cls.protein(
            PROTEIN_DEFAULTS["matrix"] if matrix is None else matrix,
            PROTEIN_DEFAULTS["gap"] if gap is None else gap,
        )

    # -- helpers -----------------------------------------------------------
    def max_abs(self) -> int:
        """Largest magnitude of any single pair score (for overflow bounds)."""
        return int(max(np.abs(self.table).max(), abs(self.gap)))

    def pair(self, x: int, y: int) -> int:
        """Score of codes ``x`` and ``y``; ``-1`` stands for a gap."""
        if x < 0 and y < 0:
            return 0
        if x < 0 or y < 0:
            return self.gap
        return int(self.table[x, y])
