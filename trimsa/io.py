"""Reading sequences and writing results.

FASTA is read through Biopython, plain or gzip-compressed (recognised by its
magic bytes, whatever the file is called), from a path or ``-`` (standard
input). Text is UTF-8; bytes that are not valid UTF-8 are carried through
(``surrogateescape``), so names are written back byte for byte. A byte-order
mark and blank lines before the first record are accepted.
:func:`read_sequences` validates what it reads and raises
:class:`~trimsa.errors.TrimsaError` subclasses whose messages name the file,
the record and the position.

Regular output files are written atomically: :func:`atomic_output` writes to a
temporary file beside the target and renames it on success, so a failed or
interrupted run never leaves a partial file behind; the new file gets the mode
of the file it replaces, or the umask's. Character devices (``/dev/null``),
FIFOs and process substitutions are opened and written in place, and ``-``
is standard output. :func:`check_output` says before any work whether a
location can be written.
"""

from __future__ import annotations

import contextlib
import gzip
import io
import os
import re
import stat
import sys
import tempfile
import threading
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

import numpy as np

from . import alphabet as _alphabet
from .errors import (
    DuplicateNameError,
    InputFormatError,
    OutputError,
    TooFewSequencesError,
)

#: Text encoding of every file trimsa reads or writes.
ENCODING = "utf-8"
#: Bytes that are not UTF-8 travel through as surrogates and are written back as they were.
ERRORS = "surrogateescape"
#: The name standard input goes by in messages.
STDIN = "<stdin>"


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

    def require(self, n: int, what: str, hint: str = "") -> None:
        """Raise unless at least ``n`` sequences are present (``hint``: what to do instead)."""
        if len(self) < n:
            raise TooFewSequencesError(
                f"{self.source}: {what} needs at least {n} sequences, found {len(self)}"
                + (f"; {hint}" if hint else "")
            )


def _read_bytes(source) -> tuple:
    """``(label, bytes)`` of a path or ``-`` (standard input), gunzipped when gzip."""
    if str(source) == "-":
        label = STDIN
        stream = getattr(sys.stdin, "buffer", None)
        try:
            data = stream.read() if stream is not None else sys.stdin.read().encode(ENCODING, ERRORS)
        except OSError as exc:
            raise InputFormatError(f"{label}: cannot be read ({exc.strerror or exc})") from None
    else:
        path = Path(source)
        label = str(path)
        if not path.exists():
            raise InputFormatError(f"{label}: no such file")
        if path.is_dir():
            raise InputFormatError(f"{label}: is a directory, not a FASTA file")
        try:
            with open(path, "rb") as fh:
                data = fh.read()
        except OSError as exc:
            raise InputFormatError(f"{label}: cannot be read ({exc.strerror or exc})") from None
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as exc:
            raise InputFormatError(f"{label}: corrupt gzip stream ({exc})") from None
    return label, data


def _shown(text: str) -> str:
    """``text`` quoted for a message, a byte that is not UTF-8 (read as a surrogate
    escape) written ``\\xNN``."""
    body = "".join(f"\\x{ord(c) - 0xdc00:02x}" if 0xdc80 <= ord(c) <= 0xdcff else c
                   for c in text)
    return repr(body).replace("\\\\x", "\\x")


def _check_ascii_residues(text: str, label: str) -> None:
    """Names may hold any character; a residue outside ASCII is an
    :class:`InputFormatError` naming its record and position (Biopython would only say
    that it cannot decode it)."""
    name, pos = None, 0
    for line in text.split("\n"):
        if line.startswith(">"):
            name, pos = (line[1:].split() or [""])[0], 0
            continue
        for ch in line:
            if ch.isspace():
                continue
            pos += 1
            if not ch.isascii():
                raise InputFormatError(f"{label}: invalid character {_shown(ch)} in sequence "
                                       f"{name!r} at position {pos}")


def read_records(source) -> list:
    """Read FASTA records as ``(name, description, sequence)`` tuples.

    ``source`` is a path (plain or gzip), ``-`` for standard input, or an
    open text handle. Raises :class:`InputFormatError` for a missing, empty,
    non-FASTA or unreadable file, or a corrupt gzip stream.
    """
    from Bio import SeqIO

    if isinstance(source, (str, os.PathLike)):
        label, data = _read_bytes(source)
        text = data.decode(ENCODING, ERRORS)
    else:
        label = getattr(source, "name", "<input>")
        try:
            text = source.read()
        except (OSError, UnicodeDecodeError) as exc:
            raise InputFormatError(f"{label}: cannot be read ({exc})") from None
    records = []
    # any line ending (\r\n, or a lone \r of old Mac files) reads as \n
    text = text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n").lstrip()
    # a header line indented like the first one (which lstrip took care of)
    text = re.sub(r"(?m)^[ \t]+>", ">", text)
    if not text:
        raise InputFormatError(f"{label}: file is empty")
    if text[0] != ">":
        line = text.splitlines()[0][:40]
        raise InputFormatError(
            f"{label}: not a FASTA file (first line {_shown(line)} does not start with '>')"
        )
    if not text.isascii():
        _check_ascii_residues(text, label)
    try:
        for rec in SeqIO.parse(io.StringIO(text), "fasta"):
            seq = str(rec.seq)
            if not rec.id:
                raise InputFormatError(f"{label}: record {len(records) + 1} has no name")
            records.append((rec.id, rec.description, seq))
    except InputFormatError:
        raise
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
        if alpha is _alphabet.PROTEIN:
            _alphabet.check_not_mixed(((n, seq) for n, _d, seq in records), label)
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
    if isinstance(source, (str, os.PathLike)):
        label = STDIN if str(source) == "-" else str(source)
    else:
        label = getattr(source, "name", "<input>")
    return encode_records(read_records(source), alphabet, label)


def _record_header(rid: str, description: str) -> str:
    """The FASTA header of a SeqRecord: its description where that starts with its id (as
    Biopython's readers give it), else the id and the description (as Biopython's FASTA
    writer does); Biopython's placeholder description is dropped."""
    if description in ("", "<unknown description>") or description == rid:
        return rid
    if description.startswith(rid) and description[len(rid)].isspace():
        return description
    return f"{rid} {description}"


def _check_name(name, i: int) -> str:
    if not isinstance(name, str):
        raise InputFormatError(f"item {i}: the sequence name {name!r} is not a string")
    if not name or any(c.isspace() for c in name):
        raise InputFormatError(
            f"item {i}: sequence name {name!r} must be non-empty and hold no space, tab or "
            "line break (FASTA and the other formats read a name up to the first space)")
    return name


def _is_sequence(seq) -> bool:
    """A string, or Biopython's ``Seq`` (and ``MutableSeq``), whose ``str()`` is the
    sequence."""
    return isinstance(seq, str) or (hasattr(seq, "count") and hasattr(seq, "upper")
                                    and not isinstance(seq, (bytes, bytearray)))


def api_record(item, i: int, default_name: str) -> tuple:
    """``(name, header, sequence)`` of item ``i`` (from 1) of what the API takes: a
    ``SeqRecord``, a ``(name, sequence)`` pair, or a bare sequence (a string or a Biopython
    ``Seq``), which is named ``default_name``. A name is a non-empty string without
    whitespace; anything else is an :class:`InputFormatError` naming the item."""
    if hasattr(item, "seq") and hasattr(item, "id"):
        rid = _check_name(item.id, i)
        if not _is_sequence(item.seq):
            raise InputFormatError(f"item {i}: the record {rid!r} holds no sequence")
        return rid, _record_header(rid, item.description or ""), str(item.seq)
    if _is_sequence(item):
        return default_name, default_name, str(item)
    if isinstance(item, (tuple, list)) and len(item) == 2:
        name = _check_name(item[0], i)
        if not _is_sequence(item[1]):
            raise InputFormatError(f"item {i}: the sequence of {name!r} is a "
                                   f"{type(item[1]).__name__}, not a string or a Biopython Seq")
        return name, name, str(item[1])
    raise InputFormatError(f"item {i} is a {type(item).__name__}, neither a SeqRecord, a "
                           "(name, sequence) pair nor a sequence")


def as_sequence_set(seqs, alphabet=None) -> SequenceSet:
    """Coerce what the API accepts into a :class:`SequenceSet`.

    Accepts a :class:`SequenceSet`, a FASTA path, or items as :func:`api_record` takes
    them (``SeqRecord`` objects, ``(name, sequence)`` pairs, plain strings or ``Seq``
    objects, these named ``seq1``, ``seq2``, ... in order), or a mapping of names to
    sequences or ``SeqRecord`` objects (``Bio.SeqIO.to_dict``).
    """
    if isinstance(seqs, SequenceSet):
        return seqs
    if isinstance(seqs, str) and seqs.isalpha() and not os.path.exists(seqs):
        raise InputFormatError(f"{seqs[:30]}: no such file (to align sequences given as "
                               f"strings, pass a list of them)")
    if isinstance(seqs, (str, os.PathLike)):
        return read_sequences(seqs, alphabet)
    if not isinstance(seqs, Iterable):
        raise InputFormatError(f"give a FASTA path, SeqRecords, (name, sequence) pairs or "
                               f"strings, not a {type(seqs).__name__}")
    if isinstance(seqs, (bytes, bytearray)) or hasattr(seqs, "read"):
        raise InputFormatError("give a FASTA path, not a file object or bytes (or a list of "
                               "SeqRecords from Bio.SeqIO.parse(handle, 'fasta'))")
    if hasattr(seqs, "items") and hasattr(seqs, "keys"):   # a mapping: name -> sequence
        seqs = [v if hasattr(v, "seq") and hasattr(v, "id") else (k, v)
                for k, v in seqs.items()]
    records = [api_record(item, i, f"seq{i}") for i, item in enumerate(seqs, start=1)]
    return encode_records(records, alphabet, "<sequences>")


def _is_stdout(path) -> bool:
    return path is None or str(path) == "-"


def _stream_target(path: Path) -> bool:
    """Whether ``path`` exists and is not a regular file (a device, FIFO or socket)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return not stat.S_ISREG(mode) and not stat.S_ISDIR(mode)


def check_output(path, what: str = "output") -> None:
    """Raise :class:`OutputError` unless ``path`` can be written (``None``/``-``: stdout).

    Called before the work starts, so that a mistyped output location costs
    nothing. Regular files need a writable folder (the new file is renamed
    into place); devices, FIFOs and sockets need only to be writable.
    """
    if _is_stdout(path):
        return
    text = os.fspath(path)
    if text == "":
        raise OutputError(f"empty {what} path")
    target = Path(text)
    if _stream_target(target):
        if not os.access(target, os.W_OK):
            raise OutputError(f"{target}: {what} is not writable")
        return
    if target.is_dir():
        raise OutputError(f"{target}: {what} is a directory")
    real = Path(os.path.realpath(target))
    directory = real.parent
    if not directory.exists():
        raise OutputError(f"{target}: directory {target.parent} does not exist")
    if not directory.is_dir():
        raise OutputError(f"{target}: {target.parent} is not a directory")
    if not os.access(directory, os.W_OK | os.X_OK):
        raise OutputError(f"{target}: cannot create files in {target.parent} (permission denied)")
    if real.exists() and not os.access(real, os.W_OK):
        raise OutputError(f"{target}: {what} is not writable (permission denied)")


#: Temporary files being written (removed on an interrupt that ends the process).
_PENDING: set = set()
_PENDING_LOCK = threading.Lock()


def remove_pending() -> None:
    """Delete every temporary output file still being written."""
    with _PENDING_LOCK:
        for tmp in list(_PENDING):
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        _PENDING.clear()


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _os_error(label: str, exc: OSError) -> OutputError:
    if isinstance(exc, BrokenPipeError):
        return OutputError(f"{label}: closed before the output was written (broken pipe)")
    return OutputError(f"{label}: cannot be written ({exc.strerror or exc})")


@contextlib.contextmanager
def atomic_output(path, mode: str = "w"):
    """Open ``path`` for writing (UTF-8 text, or bytes with ``mode="wb"``).

    A regular file (new or existing) is written through a temporary file
    beside it, renamed on success (a symbolic link keeps pointing at it); the
    result has the replaced file's mode, or ``0666`` less the umask. A
    character device, FIFO or socket is written in place. ``None`` or ``"-"``
    is standard output. Operating-system errors (full disk, broken pipe, ...)
    become one :class:`OutputError`.
    """
    binary = "b" in mode
    if _is_stdout(path):
        label = "standard output"
        try:
            raw = getattr(sys.stdout, "buffer", None)
            if raw is None:
                yield sys.stdout
                sys.stdout.flush()
                return
            sys.stdout.flush()
            if binary:
                yield raw
                raw.flush()
                return
            fh = io.TextIOWrapper(raw, encoding=ENCODING, errors=ERRORS, newline="\n")
            try:
                yield fh
                fh.flush()
            finally:
                fh.detach()
        except OSError as exc:
            raise _os_error(label, exc) from None
        return
    check_output(path)
    target = Path(os.fspath(path))
    label = str(target)
    kw = {} if binary else {"encoding": ENCODING, "errors": ERRORS}
    if _stream_target(target):
        try:
            with open(target, mode, **kw) as fh:
                yield fh
        except OSError as exc:
            raise _os_error(label, exc) from None
        return
    real = Path(os.path.realpath(target))
    try:
        keep = stat.S_IMODE(os.stat(real).st_mode)
    except OSError:
        keep = 0o666 & ~_umask()
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{real.name}.", suffix=".tmp", dir=real.parent)
    except OSError as exc:
        raise _os_error(label, exc) from None
    with _PENDING_LOCK:
        _PENDING.add(tmp)
    try:
        with os.fdopen(fd, mode, **kw) as fh:
            yield fh
        os.chmod(tmp, keep)
        os.replace(tmp, real)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise _os_error(label, exc) from None
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    finally:
        with _PENDING_LOCK:
            _PENDING.discard(tmp)


def write_fasta(rows: Iterable, handle, width: int = 0) -> None:
    """Write ``(header, sequence)`` pairs as FASTA (one line per sequence when ``width`` is 0)."""
    for header, seq in rows:
        handle.write(f">{header}\n")
        if width and width > 0:
            for start in range(0, len(seq), width):
                handle.write(seq[start:start + width] + "\n")
        else:
            handle.write(seq + "\n")
