"""trimsa: multiple sequence alignment built on exact triplet (3-way) alignments.

The public API is re-exported here::

    import trimsa
    seqs = trimsa.read_sequences("input.fa")
    scores = trimsa.score_triplets(seqs, mode="global")
    aln = trimsa.align_triplet("ACGT", "AGT", "ACT")
"""

from __future__ import annotations

__version__ = "0.1.0"

from .errors import (  # noqa: E402
    AlphabetError,
    BackendUnavailableError,
    DuplicateNameError,
    InputFormatError,
    OptionError,
    TooFewSequencesError,
    TrimsaError,
)
from .io import SequenceSet, read_sequences  # noqa: E402
from .scoring import Scoring  # noqa: E402
from .triplet import (  # noqa: E402
    TripletAlignment,
    align_triplet,
    align_triplets,
    all_triplets,
    score_triplets,
)

__all__ = [
    "AlphabetError",
    "BackendUnavailableError",
    "DuplicateNameError",
    "InputFormatError",
    "OptionError",
    "Scoring",
    "SequenceSet",
    "TooFewSequencesError",
    "TripletAlignment",
    "TrimsaError",
    "align_triplet",
    "align_triplets",
    "all_triplets",
    "read_sequences",
    "score_triplets",
]

# progressive alignment and guide trees
from .progressive import Aligner, AlignmentResult, align  # noqa: E402
from .tree import GuideTree, build_guide_tree  # noqa: E402

__all__ += ["Aligner", "AlignmentResult", "GuideTree", "align", "build_guide_tree"]
