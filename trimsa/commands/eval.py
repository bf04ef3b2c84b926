"""``trimsa eval``: score an estimated alignment against a reference (FastSP's definitions)."""

from __future__ import annotations

import json

from ..errors import OptionError
from ..evaluate import JSON_KEYS, compare

_LABELS = {
    "sp_score": "SP-Score",
    "modeler": "Modeler",
    "spfn": "SPFN",
    "spfp": "SPFP",
    "compression": "Compression",
    "tc": "TC",
    "n_seqs": "NumSeq",
    "ref_columns": "LenRef",
    "est_columns": "LenEst",
}


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "eval",
        help="score an alignment against a reference (SPFN, SPFP, TC)",
        description="Score an estimated alignment against a reference (true) alignment with "
                    "FastSP's definitions: SP-score, Modeler, SPFN = 1 - SP-score, "
                    "SPFP = 1 - Modeler, TC and compression. Sequences are matched on the "
                    "first word of their names; letters are residues (case ignored), '-' and "
                    "'?' gaps, other characters are skipped.",
    )
    p.add_argument("--reference", "-r", required=True, metavar="TRUE",
                   help="reference alignment (FASTA, plain or gzip)")
    p.add_argument("--estimate", "-e", required=True, metavar="EST",
                   help="estimated alignment (FASTA, plain or gzip)")
    p.add_argument("--format", default="fasta",
                   help="Biopython format of both files (default fasta; e.g. clustal, "
                        "phylip-relaxed, stockholm, nexus)")
    p.add_argument("--reference-format", default=None, metavar="FORMAT",
                   help="format of the reference alone (default: --format)")
    p.add_argument("--estimate-format", default=None, metavar="FORMAT",
                   help="format of the estimate alone (default: --format)")
    p.add_argument("--json", action="store_true",
                   help="print one JSON object (keys: " + ", ".join(JSON_KEYS) + ")")
    p.set_defaults(func=run)


def run(args) -> int:
    if args.reference == "-" and args.estimate == "-":
        raise OptionError("only one of the reference and the estimate can be read from "
                          "standard input ('-')")
    scores = compare(args.reference, args.estimate, format=args.format,
                     reference_format=args.reference_format,
                     estimate_format=args.estimate_format)
    d = scores.to_dict()
    if args.json:
        print(json.dumps(d))
        return 0
    for key in ("sp_score", "modeler", "spfn", "spfp", "compression", "tc",
                "n_seqs", "ref_columns", "est_columns"):
        v = d[key]
        print(f"{_LABELS[key]} {'nan' if v is None else v}")
    return 0
