"""Reading sequences and writing results.

FASTA is read through Biopython, plain or gzip-compressed (recognised by its
magic bytes, whatever the file is called). :func:`read_sequences` validates
what it reads and raises :class:`~trimsa.errors.TrimsaError` subclasses whose
messages name the file, the record and the position.

Output files are written atomically: :func:`atomic_output` writes to a
temporary file beside the target and renames it on success, so a failed run
never leaves a partial file behind.
"""

from __future__ import annotations

import contextlib
import gzip
import io
import os
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

import numpy as np

from . import alphabet as _alphabet
from .errors import (
    DuplicateNameError,
    InputFormatError,
    TooFewSequencesError,
)


@dataclass(frozen=True)
class SequenceSet:
    """Validated sequences, encoded for the kernels.

    Attributes
    ----------
    names
        Record identifiers (the first word of each header), in input order.
    descriptions
        The full header lines (without ``>``), for output.
    sequences
        The sequences as read (case kept).
    alphabet
        The alphabet used for ``codes``.
    codes
        All sequences' codes concatenated (``uint8``).
    offsets
        ``int64`` array of ``n + 1`` offsets into ``codes``.
    source
        Where the sequences came from (for messages).
    """

    names: tuple
    descriptions: tuple
    sequences: tuple
    alphabet: _alphabet.Alphabet
    codes: np.ndarray
    offsets: np.ndarray
    source: str = "<input>"

    def __len__(self) -> int:
        return len(self.names)

    @property
    def lengths(self) -> np.ndarray:
        return np.diff(self.offsets)

    def code(self, i: int) -> np.ndarray:
        return self.codes[self.offsets[i]:self.offsets[i + 1]]

    def index(self) -> dict:
        return {n: i for i, n in enumerate(self.names)}

    def require(self, n: int, what: str) -> None:
        """Raise unless at least ``n`` sequences are present."""
        if len(self) < n:
            raise TooFewSequencesError(
                f"{self.source}: {what} needs at least {n} sequences, found {len(self)}"
            )


def _open_text(path: Path):
    with open(path, "rb") as fh:
        magic = fh.read(2)
    if magic == b"\x1f\x8b":
        return gzip.open(path, "rt", encoding="latin-1", newline=None)
    return open(path, "rt", encoding="latin-1", newline=None)


def read_records(source) -> list:
    """Read FASTA records as ``(name, description, sequence)`` tuples.

    ``source`` is a path (plain or gzip) or an open text handle. Raises
    :class:`InputFormatError` for a missing, empty, non-FASTA or unreadable
    file, or a record with an empty sequence.
    """
    from Bio import SeqIO

    if isinstance(source, (str, os.PathLike)):
        path = Path(source)
        label = str(path)
        if not path.exists():
            raise InputFormatError(f"{label}: no such file")
        if path.is_dir():
            raise InputFormatError(f"{label}: is a directory, not a FASTA file")
        try:
            handle = _open_text(path)
        except OSError as exc:
            raise InputFormatError(f"{label}: cannot be read ({exc.strerror or exc})") from None
    else:
        label = getattr(source, "name", "<input>")
        handle = contextlib.nullcontext(source)
    records = []
    try:
        with handle as fh:
            text = fh.read()
    except (OSError, EOFError, gzip.BadGzipFile) as exc:
        raise InputFormatError(f"{label}: cannot be read ({exc})") from None
    if not text.strip():
        raise InputFormatError(f"{label}: file is empty")
    first = text.lstrip()[:1]
    if first != ">":
        line = text.lstrip().splitlines()[0][:40]
        raise InputFormatError(
            f"{label}: not a FASTA file (first line {line!r} does not start with '>')"
        )
    try:
        for rec in SeqIO.parse(io.StringIO(text), "fasta"):
            seq = str(rec.seq)
            if not rec.id:
                raise InputFormatError(f"{label}: record {len(records) + 1} has no name")
            records.append((rec.id, rec.description, seq))
    except ValueError as exc:
        raise InputFormatError(f"{label}: not a valid FASTA file ({str(exc).splitlines()[0]})") from None
    if not records:
        raise InputFormatError(f"{label}: no FASTA records found")
    return records


def check_records(records, label: str = "<input>") -> None:
    """Raise for duplicate names or empty sequences."""
    seen = {}
    for idx, (name, _desc, seq) in enumerate(records, start=1):
        if name in seen:
            raise DuplicateNameError(
                f"{label}: duplicate sequence name {name!r} (records {seen[name]} and {idx})"
            )
        seen[name] = idx
        if len(seq) == 0:
            raise InputFormatError(f"{label}: sequence {name!r} (record {idx}) is empty")


def encode_records(records, alphabet=None, label: str = "<input>") -> SequenceSet:
    """Validate and encode ``(name, description, sequence)`` tuples."""
    records = list(records)
    if not records:
        raise InputFormatError(f"{label}: no sequences given")
    check_records(records, label)
    if alphabet is None or alphabet == "auto":
        alpha = _alphabet.guess(seq for _n, _d, seq in records)
    elif isinstance(alphabet, str):
        alpha = _alphabet.get(alphabet)
    else:
        alpha = alphabet
    codes = [alpha.encode(seq, name=name, source=label) for name, _d, seq in records]
    offsets = np.zeros(len(codes) + 1, dtype=np.int64)
    offsets[1:] = np.cumsum([c.size for c in codes])
    flat = np.concatenate(codes) if codes else np.zeros(0, np.uint8)
    return SequenceSet(
        names=tuple(r[0] for r in records),
        descriptions=tuple(r[1] for r in records),
        sequences=tuple(r[2] for r in records),
        alphabet=alpha,
        codes=flat,
        offsets=offsets,
        source=label,
    )


def read_sequences(source, alphabet=None) -> SequenceSet:
    """Read, validate and encode a FASTA file (see :func:`read_records`)."""
    label = str(source) if isinstance(source, (str, os.PathLike)) else getattr(source, "name", "<input>")
    return encode_records(read_records(source), alphabet, label)


def as_sequence_set(seqs, alphabet=None) -> SequenceSet:
    """Coerce what the API accepts into a :class:`SequenceSet`.

    Accepts a :class:`SequenceSet`, a FASTA path, Biopython ``SeqRecord``
    objects, ``(name, sequence)`` pairs or plain strings (named ``seq1``,
    ``seq2``, ... in order).
    """
    if isinstance(seqs, SequenceSet):
        return seqs
    if isinstance(seqs, (str, os.PathLike)):
        return read_sequences(seqs, alphabet)
    records = []
    for i, item in enumerate(seqs, start=1):
        if hasattr(item, "seq") and hasattr(item, "id"):
            records.append((item.id, item.description or item.id, str(item.seq)))
        elif isinstance(item, str):
            records.append((f"seq{i}", f"seq{i}", item))
        elif hasattr(item, "__len__") and len(item) == 2:
            name, seq = item
            records.append((str(name), str(name), str(seq)))
        else:
            raise InputFormatError(
                f"item {i} is neither a SeqRecord, a (name, sequence) pair nor a string"
            )
    return encode_records(records, alphabet, "<sequences>")


@contextlib.contextmanager
def atomic_output(path, mode: str = "w"):
    """Open ``path`` for writing through a temporary file, renamed on success.

    ``path`` of ``None`` or ``"-"`` writes to standard output instead.
    """
    if path is None or str(path) == "-":
        yield sys.stdout
        sys.stdout.flush()
        return
    target = Path(path)
    directory = target.parent if str(target.parent) else Path(".")
    if not directory.exists():
        raise InputFormatError(f"{target}: directory {directory} does not exist")
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, mode) as fh:
            yield fh
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def write_fasta(rows: Iterable, handle, width: int = 0) -> None:
    """Write ``(header, sequence)`` pairs as FASTA (one line per sequence when ``width`` is 0)."""
    for header, seq in rows:
        handle.write(f">{header}\n")
        if width and width > 0:
            for start in range(0, len(seq), width):
                handle.write(seq[start:start + width] + "\n")
        else:
            handle.write(seq + "\n")
