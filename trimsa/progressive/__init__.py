"""Progressive multiple alignment along a guide tree.

``Aligner(...).align(sequences)`` / ``align(sequences, **options)`` return an
:class:`AlignmentResult` (``.alignment``, ``.tree``, ``.timings``, ``.write``).
"""

from .api import FORMATS, Aligner, AlignmentResult, align

__all__ = ["FORMATS", "Aligner", "AlignmentResult", "align"]
