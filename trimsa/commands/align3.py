"""``trimsa align3``: the optimal alignment of exactly three sequences."""

from __future__ import annotations

from ..errors import OptionError
from ..io import atomic_output, read_sequences, write_fasta
from ..triplet import align_triplets
from ..triplet.api import require_three
from ._common import add_device_options, add_mode_option, add_scoring_options, scoring_from_args


def register(sub) -> None:
    p = sub.add_parser(
        "align3",
        help="optimal alignment of three sequences (exact 3-way dynamic programming)",
        description="Align the three records of INPUT optimally (sum-of-pairs score, linear "
                    "or natural affine gaps) and write the alignment as FASTA in input order. The score goes to "
                    "stderr. Tracebacks run on the CPU: --device gpu is an error.",
    )
    p.add_argument("input", help="FASTA file with exactly 3 records (plain or gzip; - reads standard input)")
    p.add_argument("-o", "--output", default=None, help="output FASTA (default: stdout)")
    add_mode_option(p)
    add_scoring_options(p, "triplet")
    add_device_options(p)
    p.add_argument("-q", "--quiet", action="store_true", help="do not print the score on stderr")
    p.set_defaults(func=run)


def run(args) -> int:
    from ._common import check_threads, note

    args.threads = check_threads(args.threads)
    if args.device == "gpu":
        raise OptionError("align3 has no GPU path (3-way tracebacks run on the CPU); "
                          "use --device cpu or auto")
    seqs = read_sequences(args.input, args.alphabet)
    require_three(seqs)
    scoring = scoring_from_args(args, seqs.alphabet)
    aln = align_triplets(seqs, [[0, 1, 2]], mode=args.mode, scoring=scoring,
                         threads=args.threads)[0]
    with atomic_output(args.output) as out:
        write_fasta(zip(seqs.descriptions, aln.rows), out)
    if not args.quiet:
        note(f"{args.mode} score {aln.score}")
    return 0
