"""Residue alphabets and their uint8 encodings.

Two alphabets are built in:

``DNA``
    ``A C G T`` followed by the IUPAC ambiguity codes ``R Y S W K M B D H V N``
    (15 codes). ``U`` is read as ``T`` so that RNA uses the same codes. Each code
    stands for a set of bases (``N`` = any base). See
    :func:`trimsa.scoring.Scoring` for how ambiguity codes score.
``PROTEIN``
    The 24 letters of the BLOSUM matrices: the 20 amino acids, ``B`` (D or N),
    ``Z`` (E or Q), ``X`` (any) and ``*`` (stop). ``J``, ``U`` and ``O`` are read
    as ``X``, which the matrices score as an unknown residue.

Lower-case letters are read as upper case. Gaps (``-``, ``.``) and any other
character are errors for unaligned input: :meth:`Alphabet.encode` reports the
first offending character with its 1-based position.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .errors import AlphabetError, OptionError

INVALID = 255

_IUPAC = {
    "A": "A", "C": "C", "G": "G", "T": "T",
    "R": "AG", "Y": "CT", "S": "CG", "W": "AT", "K": "GT", "M": "AC",
    "B": "CGT", "D": "AGT", "H": "ACT", "V": "ACG", "N": "ACGT",
}


@dataclass(frozen=True)
class Alphabet:
    """An ordered set of residue letters; a letter's code is its index.

    Parameters
    ----------
    name
        ``"dna"`` or ``"protein"`` (or a matrix's name for custom alphabets).
    letters
        The canonical letters, in code order.
    aliases
        Extra letters read as one of ``letters`` (``U`` -> ``T`` for DNA).
    """

    name: str
    letters: str
    aliases: dict = field(default_factory=dict)

    def __post_init__(self):
        lut = np.full(256, INVALID, dtype=np.uint8)
        for code, ch in enumerate(self.letters):
            lut[ord(ch.upper())] = code
            lut[ord(ch.lower())] = code
        for src, dst in self.aliases.items():
            code = self.letters.index(dst)
            lut[ord(src.upper())] = code
            lut[ord(src.lower())] = code
        object.__setattr__(self, "_lut", lut)

    @property
    def size(self) -> int:
        return len(self.letters)

    def encode(self, seq: str, *, name: str = "sequence", source: str | None = None) -> np.ndarray:
        """Encode one sequence to uint8 codes.

        Raises :class:`~trimsa.errors.AlphabetError` naming the record (and the
        file, when ``source`` is given) and the 1-based position of the first
        character outside the alphabet.
        """
        raw = np.frombuffer(seq.encode("latin-1", errors="replace"), dtype=np.uint8)
        codes = self._lut[raw]
        bad = np.flatnonzero(codes == INVALID)
        if bad.size:
            pos = int(bad[0])
            where = f"{source}: " if source else ""
            ch = seq[pos]
            hint = ""
            if ch in "-.":
                hint = " (trimsa expects unaligned sequences: remove gaps first)"
            raise AlphabetError(
                f"{where}invalid character {ch!r} in sequence {name!r} at position {pos + 1} "
                f"for the {self.name} alphabet{hint}"
            )
        return codes

    def decode(self, codes: np.ndarray) -> str:
        return "".join(self.letters[c] for c in np.asarray(codes))

    def base_sets(self) -> list[frozenset]:
        """For DNA, the set of bases each code stands for."""
        if self.name != "dna":
            raise OptionError("base sets are defined for the DNA alphabet only")
        return [frozenset(_IUPAC[ch]) for ch in self.letters]


DNA = Alphabet("dna", "ACGTRYSWKMBDHVN", {"U": "T"})
PROTEIN = Alphabet("protein", "ARNDCQEGHILKMFPSTWYVBZX*", {"J": "X", "U": "X", "O": "X"})

_DNA_LETTERS = set("ACGTUN")
#: Letters of nucleotide sequences: the bases, U, and the IUPAC ambiguity codes.
_IUPAC_LETTERS = set("ACGTURYSWKMBDHVN")


def guess(sequences) -> Alphabet:
    """Guess DNA or protein: DNA when at least 90% of the letters are A, C, G, T, U or N,
    or when every letter is a nucleotide code (IUPAC ambiguity codes included) and at
    least half are A, C, G, T, U or N.

    A DNA-like file with a few stray letters is thus read as DNA, and the stray
    letters are then reported as errors, rather than silently switching to
    protein; so is DNA with many ambiguity codes. Protein has letters no nucleotide
    code uses (E, F, I, L, P, Q) and far fewer A, C, G, T and N. Gap characters
    (``-``, ``.``) are not counted, so an aligned DNA file is read as DNA and its
    gaps are reported as such.

    >>> guess(["ACGTRYKMACGTNNAC"]).name, guess(["MKVLHEEWACGT"]).name
    ('dna', 'protein')
    """
    total = 0
    nuc = 0
    letters = set()
    for s in sequences:
        u = s.upper().replace("-", "").replace(".", "")
        total += len(u)
        nuc += sum(u.count(c) for c in _DNA_LETTERS)
        letters.update(u)
    if total == 0 or nuc >= 0.9 * total:
        return DNA
    if letters <= _IUPAC_LETTERS and nuc >= 0.5 * total:
        return DNA
    return PROTEIN


#: A record of at least this many letters, at least 90% of them A, C, G, T, U or N, is
#: read as nucleotides by :func:`check_not_mixed`.
MIXED_MIN_LETTERS = 30


def _looks_nucleotide(seq: str) -> bool:
    u = seq.upper().replace("-", "").replace(".", "")
    return sum(u.count(c) for c in _DNA_LETTERS) >= 0.9 * len(u)


def check_not_mixed(records, source: str = "<input>") -> None:
    """Raise :class:`AlphabetError` when a file read as protein also holds records that
    are plainly nucleotides (``(name, sequence)`` pairs; records of at least
    :data:`MIXED_MIN_LETTERS` letters, 90% of them A, C, G, T, U or N): aligning DNA as
    protein is almost always a mixed-up input. ``--alphabet`` (or ``alphabet=``)
    reads such a file as given.

    >>> check_not_mixed([("p", "MKVLHEEWLLAAKQ" * 3), ("d", "ACGTTGCA" * 5)])
    Traceback (most recent call last):
    ...
    trimsa.errors.AlphabetError: <input>: 1 of 2 records look like DNA/RNA (first 'd') and the others like protein; give --alphabet dna or protein if this is intended
    """
    records = list(records)
    nuc = [name for name, seq in records
           if len(seq) >= MIXED_MIN_LETTERS and _looks_nucleotide(seq)]
    if nuc and len(nuc) < len(records):
        raise AlphabetError(f"{source}: {len(nuc)} of {len(records)} records look like "
                            f"DNA/RNA (first {nuc[0]!r}) and the others like protein; give "
                            f"--alphabet dna or protein if this is intended")


def get(name: str) -> Alphabet:
    """The alphabet called ``name`` (``"dna"``, ``"rna"`` or ``"protein"``)."""
    key = name.lower()
    if key in ("dna", "rna", "nucleotide"):
        return DNA
    if key in ("protein", "aa", "amino"):
        return PROTEIN
    raise OptionError(f"unknown alphabet {name!r}; choose one of: dna, rna, protein")
