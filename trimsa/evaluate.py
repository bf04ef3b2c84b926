"""Alignment accuracy against a reference: SP-score, Modeler, SPFN, SPFP, TC.

The definitions are FastSP's (Mirarab & Warnow 2011, version 1.7.1), so that
numbers computed here can be put beside numbers from papers:

* A character is a **residue** when it is a letter (case ignored), a **gap**
  when it is ``-`` or ``?``; every other character (``.``, ``*``, digits,
  blanks) is skipped as if it were not there, and does not make a column.
* A **homology** is an unordered pair of residues of two different sequences
  that share a column. Residues are identified by their sequence and their
  rank among that sequence's residues, so the two alignments must hold the
  same residues (checked; case ignored).
* ``sp_score`` = shared homologies / homologies of the reference;
  ``modeler`` = shared homologies / homologies of the estimate;
  ``spfn = 1 - sp_score`` and ``spfp = 1 - modeler``.
* ``tc`` = reference columns with at least two residues whose residues form
  exactly one column of the estimate (holding nothing else) / reference
  columns with at least two residues.
* ``compression`` = columns of the estimate / columns of the reference,
  all-gap columns included (FastSP counts them).

Sequences are matched on the first word of their names, so the padding that
AliSim writes after names is ignored. A ratio whose denominator is zero (no
homology in the reference, say) is ``nan``, as in FastSP; ``--json`` writes it
as ``null``.

The computation is vectorised: every residue gets its reference column and its
estimated column, and the shared homologies are the pairs within each
(reference column, estimated column) class, counted after one sort.
"""

from __future__ import annotations

import io
import math
import os
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from .errors import DuplicateNameError, InputFormatError, TooFewSequencesError, TrimsaError

__all__ = [
    "AlignmentMismatchError",
    "ScoreTable",
    "Scores",
    "compare",
    "compare_many",
    "read_alignment",
]

#: Keys of :meth:`Scores.to_dict` (and of ``trimsa eval --json``), in order.
JSON_KEYS = ("sp_score", "modeler", "spfn", "spfp", "tc", "compression",
             "n_seqs", "ref_columns", "est_columns")

_GAPS = b"-?"
_LETTERS = bytes(range(ord("A"), ord("Z") + 1)) + bytes(range(ord("a"), ord("z") + 1))
#: Bytes that are neither residues nor gaps: deleted before anything else.
_SKIPPED = bytes(b for b in range(256) if b not in _GAPS + _LETTERS)


class AlignmentMismatchError(TrimsaError):
    """The reference and the estimate do not hold the same sequences or residues."""


@dataclass(frozen=True)
class Scores:
    """Accuracy of an estimated alignment against a reference.

    Attributes
    ----------
    sp_score, modeler, spfn, spfp, tc, compression
        The ratios defined in the module docstring (``nan`` where the
        denominator is zero).
    n_seqs
        Number of sequences.
    ref_columns, est_columns
        Columns of the reference and of the estimate (all-gap ones included).
    shared_homologies, ref_homologies, est_homologies
        The homology counts behind ``sp_score`` and ``modeler``.
    correct_columns, ref_aligned_columns
        The column counts behind ``tc``.
    """

    sp_score: float
    modeler: float
    spfn: float
    spfp: float
    tc: float
    compression: float
    n_seqs: int
    ref_columns: int
    est_columns: int
    shared_homologies: int = 0
    ref_homologies: int = 0
    est_homologies: int = 0
    correct_columns: int = 0
    ref_aligned_columns: int = 0

    def to_dict(self) -> dict:
        """The public figures (the keys of ``trimsa eval --json``), ``nan`` as ``None``."""
        d = asdict(self)
        out = {}
        for k in JSON_KEYS:
            v = d[k]
            out[k] = None if isinstance(v, float) and math.isnan(v) else v
        return out

    @property
    def sp_f1(self) -> float:
        """Harmonic mean of ``sp_score`` and ``modeler`` (1 - SPFN and 1 - SPFP)."""
        a, b = self.sp_score, self.modeler
        if math.isnan(a) or math.isnan(b):
            return math.nan
        return 0.0 if a + b == 0 else 2 * a * b / (a + b)


# --------------------------------------------------------------------------- reading

def _first_word(name: str) -> str:
    parts = str(name).split(None, 1)
    return parts[0] if parts else ""


def read_alignment(source, format: str = "fasta", label: str | None = None) -> list:
    """Read an alignment as ``(name, row)`` pairs, names cut to their first word.

    Parameters
    ----------
    source
        A path (plain or gzip-compressed, recognised by its magic bytes), a
        Biopython alignment (``MultipleSeqAlignment`` or ``Alignment``), an
        iterable of ``SeqRecord`` objects or of ``(name, row)`` pairs.
    format
        Biopython format name for paths: ``fasta`` (default; read with
        ``Bio.SeqIO``) or any format ``Bio.AlignIO`` reads (``clustal``,
        ``phylip-relaxed``, ``stockholm``, ``nexus``, ...).
    label
        What to call the source in messages (default: the path).

    Raises
    ------
    InputFormatError
        Missing, unreadable or empty file, or one Biopython cannot parse.
    DuplicateNameError
        Two rows share a name.
    """
    if isinstance(source, (str, os.PathLike)):
        rows, label = _read_path(Path(source), format, label)
    else:
        label = label or "<alignment>"
        rows = _rows_from_object(source, label)
    if not rows:
        raise InputFormatError(f"{label}: no sequences found")
    seen = {}
    for idx, (name, _row) in enumerate(rows, start=1):
        if not name:
            raise InputFormatError(f"{label}: sequence {idx} has no name")
        if name in seen:
            raise DuplicateNameError(
                f"{label}: duplicate sequence name {name!r} (sequences {seen[name]} and {idx})")
        seen[name] = idx
    return rows


def _read_path(path: Path, fmt: str, label: str | None):
    from Bio import AlignIO, SeqIO

    from .io import ENCODING, ERRORS, _read_bytes

    if str(path) != "-" and path.is_dir():
        raise InputFormatError(f"{label or path}: is a directory, not an alignment file")
    where, data = _read_bytes(path)
    label = where if not label or label == "-" else label
    text = data.decode(ENCODING, ERRORS).removeprefix("\ufeff")
    if not text.strip():
        raise InputFormatError(f"{label}: file is empty")
    fmt = (fmt or "fasta").lower()
    try:
        if fmt == "fasta":
            if text.lstrip()[:1] != ">":
                first = text.lstrip().splitlines()[0][:40]
                raise InputFormatError(
                    f"{label}: not a FASTA file (first line {first!r} does not start with '>')")
            records = list(SeqIO.parse(io.StringIO(text), "fasta"))
        else:
            records = list(AlignIO.read(io.StringIO(text), fmt))
    except InputFormatError:
        raise
    except (ValueError, IndexError, KeyError, AssertionError) as exc:
        msg = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise InputFormatError(f"{label}: cannot be read as {fmt} ({msg})") from None
    return [(_first_word(r.id), str(r.seq)) for r in records], label


def _rows_from_object(obj, label: str) -> list:
    # new-style Bio.Align.Alignment: rows by index, names on .sequences
    if hasattr(obj, "sequences") and hasattr(obj, "shape") and not isinstance(obj, np.ndarray):
        names = [getattr(s, "id", None) or f"seq{i + 1}" for i, s in enumerate(obj.sequences)]
        return [(_first_word(n), str(obj[i])) for i, n in enumerate(names)]
    rows = []
    try:
        items = list(obj)
    except TypeError:
        raise InputFormatError(f"{label}: not an alignment (got {type(obj).__name__})") from None
    for i, item in enumerate(items, start=1):
        if hasattr(item, "seq") and hasattr(item, "id"):
            rows.append((_first_word(item.id), str(item.seq)))
        elif isinstance(item, (tuple, list)) and len(item) == 2:
            rows.append((_first_word(item[0]), str(item[1])))
        else:
            raise InputFormatError(
                f"{label}: item {i} is neither a SeqRecord nor a (name, row) pair")
    return rows


def alignment_matrix(rows: list, label: str) -> np.ndarray:
    """Rows (:func:`read_alignment`) as an ``(n, columns)`` uint8 matrix of residues and gaps
    only; rows of unequal length, or no columns, are an :class:`InputFormatError`
    naming ``label``."""
    cleaned = [row.encode("utf-8").translate(None, _SKIPPED) for _n, row in rows]
    width = len(cleaned[0])
    for (name, row), b in zip(rows, cleaned):
        if len(b) != width:
            dropped = [(n, c) for n, r in (rows[0], (name, row)) for c in r
                       if c.encode("utf-8").translate(None, _SKIPPED) != c.encode("utf-8")]
            why = (f" (after dropping characters that are neither letters nor gaps, such as "
                   f"{dropped[0][1]!r} in sequence {dropped[0][0]!r})" if dropped else "")
            raise InputFormatError(
                f"{label}: not an alignment: sequence {name!r} has {len(b)} columns, "
                f"sequence {rows[0][0]!r} has {width}{why}")
    if width == 0:
        raise InputFormatError(f"{label}: the alignment has no columns")
    return np.frombuffer(b"".join(cleaned), dtype=np.uint8).reshape(len(rows), width)


def _residue_mask(m: np.ndarray) -> np.ndarray:
    low = m | 0x20
    return (low >= ord("a")) & (low <= ord("z"))


# --------------------------------------------------------------------------- scoring

def _pairs(counts: np.ndarray) -> int:
    c = counts.astype(np.int64)
    return int((c * (c - 1) // 2).sum())


def _ratio(num: int, den: int) -> float:
    return num / den if den else math.nan


def compare(reference, estimate, *, format: str = "fasta", reference_format: str | None = None,
            estimate_format: str | None = None) -> Scores:
    """Score ``estimate`` against ``reference`` with FastSP's definitions.

    Parameters
    ----------
    reference, estimate
        Paths (FASTA, plain or gzip; other formats through ``format``),
        Biopython alignments, or lists of ``SeqRecord`` or ``(name, row)``.
    format
        Biopython format of the files given as paths (default ``fasta``).
    reference_format, estimate_format
        The format of one of the two files, where it differs from ``format``.

    Returns
    -------
    Scores

    Raises
    ------
    AlignmentMismatchError
        A name present on one side only, or a sequence whose residues differ.
    InputFormatError
        Unreadable or empty input, or rows of unequal length.

    Examples
    --------
    >>> s = compare([("a", "AC-GT"), ("b", "ACTGT")], [("a", "ACG-T"), ("b", "ACTGT")])
    >>> s.shared_homologies, s.ref_homologies, s.est_homologies
    (3, 4, 4)
    >>> s.spfn, s.spfp, s.tc
    (0.25, 0.25, 0.75)
    """
    ref_label = str(reference) if isinstance(reference, (str, os.PathLike)) else "reference"
    est_label = str(estimate) if isinstance(estimate, (str, os.PathLike)) else "estimate"
    ref_rows = read_alignment(reference, reference_format or format, ref_label)
    est_rows = read_alignment(estimate, estimate_format or format, est_label)
    return _compare_rows(ref_rows, est_rows, ref_label, est_label)


#: Column headers of the figures in tables (``trimsa eval``), keyed as :data:`JSON_KEYS`.
HEADERS = {"sp_score": "SP-Score", "modeler": "Modeler", "spfn": "SPFN", "spfp": "SPFP",
           "tc": "TC", "compression": "Compression", "n_seqs": "NumSeq",
           "ref_columns": "LenRef", "est_columns": "LenEst"}
#: The order of a table's figures: the error rates first.
TABLE_KEYS = ("spfn", "spfp", "tc", "sp_score", "modeler", "compression", "n_seqs",
              "ref_columns", "est_columns")


@dataclass(frozen=True)
class ScoreTable:
    """Scores of several estimates against one reference, one row per estimate.

    Iterating gives ``(label, Scores)`` pairs in the order given.

    Examples
    --------
    >>> t = compare_many([("a", "AC-GT"), ("b", "ACTGT")],
    ...                  [[("a", "ACG-T"), ("b", "ACTGT")], [("a", "AC-GT"), ("b", "ACTGT")]],
    ...                  labels=["shifted", "same"])
    >>> [(label, s.spfn) for label, s in t]
    [('shifted', 0.25), ('same', 0.0)]
    >>> print(t.to_tsv().splitlines()[0])
    estimate	SPFN	SPFP	TC	SP-Score	Modeler	Compression	NumSeq	LenRef	LenEst
    """

    reference: str
    rows: tuple  # ((label, Scores), ...)

    def __iter__(self):
        return iter(self.rows)

    def __len__(self) -> int:
        return len(self.rows)

    @property
    def labels(self) -> list:
        return [label for label, _s in self.rows]

    def to_records(self) -> list:
        """One dict per estimate: ``label`` and the figures of :data:`JSON_KEYS` (nan as None)."""
        return [{"label": label, **s.to_dict()} for label, s in self.rows]

    def _cells(self, fmt) -> list:
        out = []
        for rec in self.to_records():
            out.append([rec["label"]] + [fmt(rec[k]) for k in TABLE_KEYS])
        return out

    def to_tsv(self) -> str:
        """Tab-separated, a header line then one line per estimate (full precision)."""
        head = ["estimate"] + [HEADERS[k] for k in TABLE_KEYS]
        cells = self._cells(lambda v: "nan" if v is None else repr(v))
        return "\n".join("\t".join(r) for r in [head] + cells) + "\n"

    def to_text(self) -> str:
        """An aligned plain-text table (rates to 4 decimals)."""
        head = ["estimate"] + [HEADERS[k] for k in TABLE_KEYS]
        cells = self._cells(_short)
        widths = [max(len(r[c]) for r in [head] + cells) for c in range(len(head))]
        lines = []
        for r in [head] + cells:
            lines.append("  ".join(x.ljust(w) if c == 0 else x.rjust(w)
                                   for c, (x, w) in enumerate(zip(r, widths))).rstrip())
        return "\n".join(lines) + "\n"

    def to_markdown(self) -> str:
        """A markdown table (rates to 4 decimals)."""
        head = ["estimate"] + [HEADERS[k] for k in TABLE_KEYS]
        lines = ["| " + " | ".join(head) + " |", "|---" + "|---:" * len(TABLE_KEYS) + "|"]
        lines += ["| " + " | ".join(r) + " |" for r in self._cells(_short)]
        return "\n".join(lines) + "\n"

    def to_pandas(self):
        """A ``pandas.DataFrame`` indexed by label (pandas is optional: an error names it)."""
        try:
            import pandas as pd
        except ImportError:
            from .errors import BackendUnavailableError

            raise BackendUnavailableError("ScoreTable.to_pandas needs pandas "
                                          "(pip install pandas)") from None
        recs = self.to_records()
        return pd.DataFrame([{k: (math.nan if r[k] is None else r[k]) for k in TABLE_KEYS}
                             for r in recs], index=pd.Index([r["label"] for r in recs],
                                                             name="estimate"))


def _short(v) -> str:
    if v is None:
        return "nan"
    if isinstance(v, float):
        return f"{v:.4f}"
    return str(v)


def default_labels(paths) -> list:
    """Labels of estimate files: their names less alignment extensions, the whole path
    where two would be the same."""
    exts = (".gz", ".fa", ".fasta", ".fas", ".afa", ".aln", ".msa", ".phy", ".phylip",
            ".sto", ".stockholm", ".nex", ".nexus", ".clustal", ".txt")
    labels = []
    for p in paths:
        name = os.path.basename(str(p)) if str(p) != "-" else "<stdin>"
        changed = True
        while changed:
            changed = False
            for ext in exts:
                if name.lower().endswith(ext) and len(name) > len(ext):
                    name = name[: -len(ext)]
                    changed = True
        labels.append(name)
    if len(set(labels)) < len(labels):
        labels = [str(p) for p in paths]
    return labels


def compare_many(reference, estimates, *, labels=None, format: str = "fasta",
                 reference_format: str | None = None, estimate_formats=None) -> ScoreTable:
    """Score every one of ``estimates`` against ``reference`` (:func:`compare` each).

    ``labels`` name the rows (default: :func:`default_labels` of paths, else
    ``estimate 1``, ...); ``estimate_formats`` gives each estimate its format
    (default ``format``). The reference is read once.
    """
    estimates = list(estimates)
    if not estimates:
        raise TrimsaError("compare_many needs at least one estimate")
    if labels is None:
        if all(isinstance(e, (str, os.PathLike)) for e in estimates):
            labels = default_labels(estimates)
        else:
            labels = [f"estimate {i + 1}" for i in range(len(estimates))]
    labels = [str(x) for x in labels]
    if len(labels) != len(estimates):
        raise TrimsaError(f"{len(labels)} labels for {len(estimates)} estimates")
    if len(set(labels)) < len(labels):
        twice = next(x for x in labels if labels.count(x) > 1)
        raise TrimsaError(f"each estimate needs its own label, and {twice!r} names two "
                          "(name each with labels=..., or --label on the command line)")
    formats = list(estimate_formats) if estimate_formats is not None else [format] * len(estimates)
    if len(formats) != len(estimates):
        raise TrimsaError(f"{len(formats)} formats for {len(estimates)} estimates")
    ref_label = str(reference) if isinstance(reference, (str, os.PathLike)) else "reference"
    ref_rows = read_alignment(reference, reference_format or format, ref_label)
    rows = []
    for est, label, fmt in zip(estimates, labels, formats):
        est_label = str(est) if isinstance(est, (str, os.PathLike)) else label
        est_rows = read_alignment(est, fmt or format, est_label)
        rows.append((label, _compare_rows(ref_rows, est_rows, ref_label, est_label)))
    return ScoreTable(ref_label, tuple(rows))


def _compare_rows(ref_rows, est_rows, ref_label: str, est_label: str) -> Scores:
    est_index = {name: i for i, (name, _row) in enumerate(est_rows)}
    missing = [name for name, _row in ref_rows if name not in est_index]
    if missing:
        raise AlignmentMismatchError(
            f"{est_label}: sequence {missing[0]!r} of the reference is missing"
            + (f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""))
    if len(est_rows) != len(ref_rows):
        ref_names = {name for name, _row in ref_rows}
        extra = [name for name, _row in est_rows if name not in ref_names]
        raise AlignmentMismatchError(
            f"{est_label}: sequence {extra[0]!r} is not in the reference {ref_label}"
            + (f" (and {len(extra) - 1} more)" if len(extra) > 1 else ""))
    n = len(ref_rows)
    if n < 2:
        raise TooFewSequencesError(
            f"{ref_label}: scoring an alignment needs at least 2 sequences, found {n}")
    names = [name for name, _row in ref_rows]
    R = alignment_matrix(ref_rows, ref_label)
    E = alignment_matrix([est_rows[est_index[name]] for name in names], est_label)
    return score_matrices(R, E, names, ref_label, est_label)


def score_matrices(R: np.ndarray, E: np.ndarray, names, ref_label: str = "reference",
                   est_label: str = "estimate") -> Scores:
    """Score two character matrices whose rows are the same sequences in the same order.

    ``R`` and ``E`` are ``uint8`` arrays of ASCII letters and gap characters
    (``-`` or ``?``), one row per sequence; :func:`compare` builds them.
    """
    Lr, Le = R.shape[1], E.shape[1]
    mr, me = _residue_mask(R), _residue_mask(E)
    nr, ne = mr.sum(axis=1), me.sum(axis=1)
    bad = np.flatnonzero(nr != ne)
    if bad.size:
        i = int(bad[0])
        raise AlignmentMismatchError(
            f"{est_label}: sequence {names[i]!r} has {int(ne[i])} residues, "
            f"{int(nr[i])} in the reference {ref_label}")
    # residues in row-major order: the k-th residue of both lists is the same one
    idx = np.int32 if max(Lr, Le) < 2**31 else np.int64
    rc = np.broadcast_to(np.arange(Lr, dtype=idx), R.shape)[mr]
    ec = np.broadcast_to(np.arange(Le, dtype=idx), E.shape)[me]
    ra, ea = R[mr] & 0xDF, E[me] & 0xDF  # upper case
    diff = np.flatnonzero(ra != ea)
    if diff.size:
        k = int(diff[0])
        ends = np.cumsum(nr)
        i = int(np.searchsorted(ends, k, side="right"))
        raise AlignmentMismatchError(
            f"{est_label}: sequence {names[i]!r} differs from the reference at residue "
            f"{k - int(ends[i] - nr[i]) + 1} ({chr(ea[k])!r} instead of {chr(ra[k])!r})")

    ref_counts = np.bincount(rc, minlength=Lr)
    est_counts = np.bincount(ec, minlength=Le)
    ref_hom = _pairs(ref_counts)
    est_hom = _pairs(est_counts)
    # classes of residues sharing a reference column and an estimated column
    kt = np.int32 if Lr * Le < 2**31 else np.int64
    key = rc.astype(kt) * kt(Le) + ec.astype(kt)
    key.sort()
    if key.size:
        starts = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
        sizes = np.diff(np.r_[starts, key.size])
        ukey = key[starts]
    else:
        sizes = ukey = np.zeros(0, kt)
    shared = _pairs(sizes)
    ucol, ecol = ukey // kt(Le), ukey % kt(Le)
    classes_per_col = np.bincount(ucol, minlength=Lr)
    correct = int(np.count_nonzero((sizes >= 2) & (classes_per_col[ucol] == 1)
                                   & (sizes == est_counts[ecol])))
    aligned = int(np.count_nonzero(ref_counts >= 2))
    sp = _ratio(shared, ref_hom)
    mod = _ratio(shared, est_hom)
    return Scores(
        sp_score=sp, modeler=mod, spfn=1 - sp, spfp=1 - mod,
        tc=_ratio(correct, aligned), compression=Le / Lr,
        n_seqs=int(R.shape[0]), ref_columns=int(Lr), est_columns=int(Le),
        shared_homologies=shared, ref_homologies=ref_hom, est_homologies=est_hom,
        correct_columns=correct, ref_aligned_columns=aligned,
    )
