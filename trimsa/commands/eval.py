"""``trimsa eval``: score estimated alignments against a reference (FastSP's definitions)."""

from __future__ import annotations

import json
import sys

from ..errors import OptionError
from ..evaluate import JSON_KEYS, compare_many


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "eval",
        help="score alignments against a reference (SPFN, SPFP, TC)",
        description="Score one or more estimated alignments against a reference (true) "
                    "alignment with FastSP's definitions: SP-score, Modeler, SPFN = 1 - "
                    "SP-score, SPFP = 1 - Modeler, TC and compression; one row per estimate. "
                    "Sequences are matched on the first word of their names; letters are "
                    "residues (case ignored), '-' and '?' gaps, other characters are skipped.",
    )
    p.add_argument("--reference", "-r", required=True, metavar="TRUE",
                   help="reference alignment (FASTA, plain or gzip; - reads standard input)")
    p.add_argument("--estimate", "-e", required=True, nargs="+", metavar="EST",
                   help="estimated alignments (FASTA, plain or gzip)")
    p.add_argument("--label", action="append", default=None, metavar="NAME",
                   help="name of an estimate's row, once per estimate in order (default: "
                        "the file names less their extensions)")
    p.add_argument("--format", default="fasta",
                   help="Biopython format of every file (default fasta; e.g. clustal, "
                        "phylip-relaxed, stockholm, nexus)")
    p.add_argument("--reference-format", default=None, metavar="FORMAT",
                   help="format of the reference alone (default: --format)")
    p.add_argument("--estimate-format", action="append", default=None, metavar="FORMAT",
                   help="format of the estimates: once for all, or once per estimate in "
                        "order (default: --format)")
    out = p.add_mutually_exclusive_group()
    out.add_argument("--tsv", action="store_true",
                     help="tab-separated: a header, then one line per estimate")
    out.add_argument("--json", action="store_true",
                     help="JSON: one object for one estimate (keys: " + ", ".join(JSON_KEYS)
                          + "), a list of objects with a 'label' first for several")
    p.set_defaults(func=run)


def run(args) -> int:
    ests = args.estimate
    if sum(x == "-" for x in [args.reference] + ests) > 1:
        raise OptionError("only one of the reference and the estimates can be read from "
                          "standard input ('-')")
    if args.label is not None and len(args.label) != len(ests):
        raise OptionError(f"--label given {len(args.label)} times for {len(ests)} estimates; "
                          "give it once per estimate")
    for label in args.label or ():
        if not label.strip() or any(c in label for c in "\t\n\r"):
            raise OptionError(f"--label {label!r}: a label must be non-empty and hold no tab "
                              "or line break (it is a cell of the TSV output)")
    fmts = args.estimate_format
    if fmts is not None and len(fmts) not in (1, len(ests)):
        raise OptionError(f"--estimate-format given {len(fmts)} times for {len(ests)} "
                          "estimates; give it once, or once per estimate")
    if fmts is not None and len(fmts) == 1:
        fmts = fmts * len(ests)
    table = compare_many(args.reference, ests, labels=args.label, format=args.format,
                         reference_format=args.reference_format, estimate_formats=fmts)
    _note_undefined(table)
    if args.json:
        recs = table.to_records()
        if len(recs) == 1:
            print(json.dumps({k: recs[0][k] for k in JSON_KEYS}))
        else:
            print(json.dumps(recs))
    elif args.tsv:
        print(table.to_tsv(), end="")
    else:
        print(table.to_text(), end="")
    return 0


def _note_undefined(table) -> None:
    """A line on stderr for each score that is nan because there is nothing to count: a
    reference, or an estimate, that puts no two residues in one column."""
    rows = list(table)
    if rows and rows[0][1].ref_homologies == 0:
        print("trimsa eval: note: the reference puts no two residues in one column, so "
              "SPFN, SP-Score and TC are undefined (nan)", file=sys.stderr)
    for label, scores in rows:
        if scores.est_homologies == 0:
            print(f"trimsa eval: note: estimate {label!r} puts no two residues in one "
                  "column, so its SPFP and Modeler are undefined (nan)", file=sys.stderr)
