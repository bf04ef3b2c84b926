"""The pair HMM behind the consistency library's match posteriors.

The library's posteriors (:func:`trimsa.progressive._cpu.posterior_slots`) come from a
global pair HMM with five states: match, and a short and a long gap in either sequence,
each gap length geometric. Two sets of parameters:

``"trained"`` (DNA and RNA)
    One set for every pair. The match emissions are estimated from the true alignments
    of the tune splits (``sim2/tune`` and ``real/tune``: 8,125 pairs of sequences, 2.3
    million aligned columns; ``eval/experiments/2026-11-25-trained-hmm/train.py``);
    ambiguity codes score as the sets of bases they stand for. The gap probabilities are
    MUSCLE5's nucleotide defaults (5.1.0, ``defaulthmmparams.cpp``): on the tune splits
    they align the real RNA families better than the ones estimated from the same true
    alignments, at some cost on the simulated sets
    (``eval/experiments/2026-11-27-muscle-hmm``).
``"fitted"``
    Three states (no long gap), fitted to each pair's own global affine alignment: the
    match odds to its identity, gap opening and extension to its gap runs
    (:func:`trimsa.progressive._cpu.match_odds`, :func:`~trimsa.progressive._cpu.gap_params`).
    The only choice for proteins.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..alphabet import _IUPAC, DNA
from ..errors import OptionError

#: The pair HMM choices of :class:`trimsa.progressive.Aligner` (``"auto"``: trained for
#: DNA and RNA, fitted otherwise).
PAIR_HMMS = ("auto", "trained", "fitted")

#: Trained match emissions of A, C, G, T over their background: ``p(x, y) / (q_x q_y)``.
DNA_ODDS = np.array([
    [2.453480, 0.364812, 0.577368, 0.368299],
    [0.364812, 2.944195, 0.373274, 0.610786],
    [0.577368, 0.373274, 2.977494, 0.368563],
    [0.368299, 0.610786, 0.368563, 2.428970],
])
#: Trained background frequencies of A, C, G, T.
DNA_BACKGROUND = np.array([0.280559, 0.219063, 0.219262, 0.281115])
#: Gap probabilities (MUSCLE5's for nucleotides): short gap open and extend, long gap
#: open and extend (per direction; a match goes on to a match with
#: ``1 - 2 (open_short + open_long)``).
DNA_GAPS = np.array([0.012, 0.35, 0.008, 0.90])


@dataclass(frozen=True)
class PairHmm:
    """The parameters the library's kernels take.

    ``odds``: ``float64 (k, k)`` match odds over the library's codes, or ``(0, 0)``
    for the HMM fitted to each pair; ``gaps``: ``float64 (4,)`` short open, short
    extend, long open, long extend (unused when fitted)."""

    name: str
    odds: np.ndarray = field(repr=False)
    gaps: np.ndarray = field(repr=False)

    def describe(self) -> str:
        if self.name == "fitted":
            return "three-state pair HMM fitted to each pair's alignment"
        return ("five-state pair HMM (short and long gaps; trained emissions, MUSCLE5's gap "
                "probabilities)")


#: The three-state HMM fitted to each pair.
FITTED = PairHmm("fitted", np.zeros((0, 0)), np.zeros(4))


def dna_odds() -> np.ndarray:
    """Trained match odds over all DNA codes (:data:`trimsa.alphabet.DNA`): an ambiguity
    code stands for its set of bases, ``odds(X, Y) = P(x in X, y in Y) / (Q(X) Q(Y))``."""
    p = DNA_ODDS * np.outer(DNA_BACKGROUND, DNA_BACKGROUND)
    member = np.zeros((DNA.size, 4))
    for code, letter in enumerate(DNA.letters):
        for base in _IUPAC[letter]:
            member[code, "ACGT".index(base)] = 1.0
    q = member @ DNA_BACKGROUND
    return (member @ p @ member.T) / np.outer(q, q)


def pair_hmm(choice: str, alphabet_name: str, used_codes) -> PairHmm:
    """The pair HMM of :data:`PAIR_HMMS` ``choice`` for sequences of ``alphabet_name``
    whose library codes are ``used_codes`` (codes of the alphabet, in library order)."""
    if choice not in PAIR_HMMS:
        raise OptionError(f"pair HMM must be one of {', '.join(PAIR_HMMS)}, got {choice!r}")
    dna = alphabet_name == "dna"
    if choice == "fitted" or (choice == "auto" and not dna):
        return FITTED
    if not dna:
        raise OptionError(f"pair HMM 'trained': its parameters are for DNA and RNA, not "
                          f"{alphabet_name}; use 'fitted' or 'auto'")
    used = np.asarray(used_codes, np.int64)
    odds = np.ascontiguousarray(dna_odds()[np.ix_(used, used)])
    return PairHmm("trained", odds, DNA_GAPS.copy())
