"""Exceptions raised for user mistakes.

Every error a user can cause derives from :class:`TrimsaError`, itself a
:class:`ValueError`, so callers can catch either. Messages name the file, the
record and the position where that is known; the command-line interface prints
them as one line on stderr and exits with status 2.
"""

from __future__ import annotations


class TrimsaError(ValueError):
    """Base class of every user-facing trimsa error."""


class InputFormatError(TrimsaError):
    """The input is not what was expected (not FASTA, empty, unreadable)."""


class AlphabetError(TrimsaError):
    """A sequence holds a character outside the alphabet in use."""


class DuplicateNameError(TrimsaError):
    """Two records share a name."""


class TooFewSequencesError(TrimsaError):
    """The operation needs more sequences than were given."""


class OptionError(TrimsaError):
    """An option has a value outside its allowed range or set."""


class BackendUnavailableError(TrimsaError, ImportError):
    """An optional backend (CuPy, Dask, piqtree) is missing or has no device."""


class OutputError(TrimsaError):
    """An output location cannot be written (missing folder, a directory, full disk...)."""


class ResourceError(TrimsaError):
    """The work needs more memory than the machine has available."""
