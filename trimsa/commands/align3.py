"""``trimsa align3``: the optimal alignment of exactly three sequences."""

from __future__ import annotations

import numpy as np

from ..errors import OptionError
from ..io import atomic_output, read_sequences, write_fasta
from ..triplet import _affine, align_triplets
from ..triplet.api import require_three
from ._common import add_device_options, add_mode_option, add_scoring_options, scoring_from_args


def register(sub) -> None:
    p = sub.add_parser(
        "align3",
        help="optimal alignment of three sequences (exact 3-way dynamic programming)",
        description="Align the three records of INPUT optimally (sum-of-pairs score, linear "
                    "or natural affine gaps) and write the alignment as FASTA in input order. The score goes to "
                    "stderr. With affine gaps the alignment can run on the GPU (--device gpu; auto takes "
                    "it for three sequences whose cube has more than 2^22 cells, about 160 residues "
                    "each), with the same result as on the CPU; linear-gap alignments run on the CPU.",
    )
    p.add_argument("input", help="FASTA file with exactly 3 records (plain or gzip; - reads standard input)")
    p.add_argument("-o", "--output", default=None, help="output FASTA (default: stdout)")
    add_mode_option(p)
    add_scoring_options(p, "alignment")
    add_device_options(p)
    p.add_argument("-q", "--quiet", action="store_true", help="do not print the score on stderr")
    p.set_defaults(func=run)


def run(args) -> int:
    from ._common import check_threads, note

    args.threads = check_threads(args.threads)
    seqs = read_sequences(args.input, args.alphabet)
    require_three(seqs)
    scoring = scoring_from_args(args, seqs.alphabet)
    device = args.device
    if device == "gpu" and scoring.linear:
        raise OptionError("align3 runs on the GPU with affine gaps only (--gap-open and "
                          "--gap-extend); linear-gap alignments run on the CPU: use --device cpu "
                          "or auto")
    if device == "auto":
        # a full cube is aligned in well under a second on the CPU: the GPU (and its
        # kernels' first compilation) pays only beyond it
        cells = int(np.prod(seqs.lengths.astype(np.int64) + 1))
        device = "cpu" if scoring.linear or cells <= _affine.CUBE_CELLS else "auto"
    aln = align_triplets(seqs, [[0, 1, 2]], mode=args.mode, scoring=scoring,
                         threads=args.threads, device=device)[0]
    with atomic_output(args.output) as out:
        write_fasta(zip(seqs.descriptions, aln.rows), out)
    if not args.quiet:
        note(f"{args.mode} score {aln.score}")
    return 0
