"""``trimsa triplets``: exact 3-way scores of triplets, as a TSV table."""

from __future__ import annotations

import numpy as np

from ..errors import InputFormatError
from ..io import atomic_output, read_sequences
from ..triplet import iter_all_triplets, score_triplets
from ._common import (
    add_device_options,
    add_mode_option,
    add_scoring_options,
    check_threads,
    scoring_from_args,
)
from ._scale import add_scale_options, scale_session


def register(sub) -> None:
    p = sub.add_parser(
        "triplets",
        help="score triplets of sequences by exact 3-way alignment",
        description="Write the exact 3-way alignment score of every triplet i<j<k of the "
                    "input (or of the triplets named in --triplets) as a TSV table with the "
                    "header seq1, seq2, seq3, score.",
    )
    p.add_argument("input", help="FASTA file (plain or gzip; - reads standard input)")
    p.add_argument("-o", "--output", default=None, help="output TSV (default: stdout)")
    p.add_argument("--triplets", default=None, metavar="FILE",
                   help="score only these triplets: one per line, three sequence names "
                        "(or 0-based indices) separated by tabs or spaces; '#' starts a comment")
    add_mode_option(p)
    add_scoring_options(p, "triplet")
    add_device_options(p)
    add_scale_options(p)
    p.set_defaults(func=run)


def read_triplet_file(path, seqs) -> np.ndarray:
    """Parse a triplet list into ``int32 (T, 3)`` indices (names first, then integers)."""
    index = seqs.index()
    rows = []
    try:
        fh = open(path, encoding="utf-8")
    except OSError as exc:
        raise InputFormatError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    with fh:
        try:
            lines = list(fh)
        except UnicodeDecodeError as exc:
            raise InputFormatError(f"{path}: not a text list of triplets (byte "
                                   f"{exc.start} is not UTF-8)") from None
        for lineno, line in enumerate(lines, start=1):
            text = line.split("#", 1)[0].strip()
            if not text:
                continue
            fields = text.split()
            if len(fields) != 3:
                raise InputFormatError(
                    f"{path}, line {lineno}: expected 3 sequence names, found {len(fields)}"
                )
            if lineno == 1 and fields == ["seq1", "seq2", "seq3"]:
                continue
            row = []
            for f in fields:
                if f in index:
                    row.append(index[f])
                elif f.isdigit() and int(f) < len(seqs):
                    row.append(int(f))
                else:
                    raise InputFormatError(
                        f"{path}, line {lineno}: no sequence named {f!r} in {seqs.source}"
                    )
            rows.append(row)
    if not rows:
        raise InputFormatError(f"{path}: no triplets listed")
    return np.asarray(rows, dtype=np.int32)


def run(args) -> int:
    args.threads = check_threads(args.threads)
    seqs = read_sequences(args.input, args.alphabet)
    seqs.require(3, "trimsa triplets")
    scoring = scoring_from_args(args, seqs.alphabet)
    if args.triplets:
        blocks = [read_triplet_file(args.triplets, seqs)]
    else:
        blocks = iter_all_triplets(len(seqs))
    names = seqs.names
    with scale_session(args) as scale, atomic_output(args.output) as out:
        out.write("seq1\tseq2\tseq3\tscore\n")
        for trip in blocks:
            scores = score_triplets(seqs, trip, mode=args.mode, scoring=scoring,
                                    threads=args.threads, **scale)
            out.write("".join(
                f"{names[i]}\t{names[j]}\t{names[k]}\t{s}\n"
                for (i, j, k), s in zip(trip.tolist(), scores.tolist())
            ))
    return 0
