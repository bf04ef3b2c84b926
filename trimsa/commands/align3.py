"""``trimsa align3``: the optimal alignment of exactly three sequences."""

from __future__ import annotations

import os

import numpy as np

from ..errors import OptionError
from ..io import atomic_output, read_sequences, write_fasta
from ..scoring import check_mode
from ..triplet import _affine, align_triplets, pruned
from ..triplet._checks import check_plane_memory
from ..triplet.api import require_three
from ..triplet.backends import resolve_device
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


#: Cells of the cube aligned per second and CPU thread, by gaps and mode: rough rates for
#: the note about long alignments (2-core VM, three sequences of about 770 residues:
#: eval/experiments/2026-11-28-new-user).
CPU_CELL_RATES = {("linear", "global"): 1e8, ("linear", "other"): 1e8,
                  ("affine", "global"): 2.5e7, ("affine", "other"): 1e7}

#: Above this many seconds (estimated) on the CPU, align3 says what it is about to do.
LONG_SECONDS = 60.0


def cpu_estimate(cells: int, linear: bool, mode: str, threads: int) -> float:
    """Rough seconds of an exact alignment of ``cells`` cube cells on ``threads`` CPU threads."""
    key = ("linear" if linear else "affine", "global" if mode == "global" else "other")
    return cells / (CPU_CELL_RATES[key] * max(threads, 1))


def run(args) -> int:
    from ._common import check_threads, note

    args.threads = check_threads(args.threads)
    seqs = read_sequences(args.input, args.alphabet)
    require_three(seqs)
    scoring = scoring_from_args(args, seqs.alphabet)
    device = args.device
    cells = int(np.prod(seqs.lengths.astype(np.int64) + 1))
    if device == "gpu" and scoring.linear:
        raise OptionError("align3 runs on the GPU with affine gaps only (--gap-open and "
                          "--gap-extend); linear-gap alignments run on the CPU: use --device cpu "
                          "or auto")
    if device == "auto":
        # a full cube is aligned in well under a second on the CPU: the GPU (and its
        # kernels' first compilation) pays only beyond it
        device = "cpu" if scoring.linear or cells <= _affine.CUBE_CELLS else "auto"
    on_cpu = device == "cpu" or (device == "auto"
                                 and resolve_device(device, announce=False) == "cpu")
    threads = args.threads or os.cpu_count() or 1
    seconds = cpu_estimate(cells, scoring.linear, args.mode, threads)
    if on_cpu and seconds > LONG_SECONDS and not args.quiet:
        # memory first: an input that cannot fit gets its one error line, not this note too
        check_plane_memory(seqs, np.array([[0, 1, 2]]), scoring,
                           1 if scoring.linear else threads, "aligning the largest triplet",
                           tracebacks=True, mode=check_mode(args.mode))
        lens = ", ".join(str(int(x)) for x in seqs.lengths)
        if pruned.applies(check_mode(args.mode), scoring):
            when = (f"up to roughly {seconds / 60:.0f} min for the full cube (a rough "
                    f"estimate; the bound-pruned path sweeps far fewer cells where the "
                    f"sequences are related)")
        else:
            when = f"roughly {seconds / 60:.0f} min (a rough estimate)"
        note(f"exact alignment of {lens} residues: {cells:.2g} cells on {threads} CPU "
             f"thread{'s' if threads > 1 else ''}, {when}; a GPU (--device gpu) is much "
             f"faster, and 'trimsa run' aligns long sequences progressively")
    work = pruned.Work()
    aln = align_triplets(seqs, [[0, 1, 2]], mode=args.mode, scoring=scoring,
                         threads=args.threads, device=device, work=work)[0]
    with atomic_output(args.output) as out:
        write_fasta(zip(seqs.descriptions, aln.rows), out)
    if not args.quiet:
        if work.swept_cells < work.cube_cells:
            note(f"{100 * work.swept_cells / work.cube_cells:.2g}% of the cube swept "
                 f"(bound-pruned)")
        note(f"{args.mode} score {aln.score}")
    return 0
