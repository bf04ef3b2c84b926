"""Options shared by several subcommands, and how to turn them into objects.

The scoring options mean the same in every subcommand; their defaults are the
one table :data:`trimsa.scoring.DEFAULTS` (per alphabet, and for the gaps per
stage: the exact 3-way engine of ``triplets`` and ``align3``, or the profile
aligner of ``run``, whose scoring ``tree`` shares).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from ..errors import OptionError
from ..scoring import DEFAULTS, MODES, Scoring
from ..triplet import DEVICES


def add_scoring_options(parser: argparse.ArgumentParser, stage: str) -> None:
    """``--alphabet``, ``--match``, ``--mismatch``, ``--transversion``, ``--matrix``, ``--gap``,
    ``--gap-open``, ``--gap-extend``."""
    def gaps(alpha):
        go, ge = DEFAULTS[alpha]["gaps"][stage]
        return f"linear {ge}" if go == 0 else f"open {go} / extend {ge}"

    match, mismatch, transversion = DEFAULTS["dna"]["substitution"][stage]
    g = parser.add_argument_group(
        f"scoring (integer scores, signed and added; defaults: gaps {gaps('dna')} for DNA, "
        f"{gaps('protein')} for protein)")
    g.add_argument("--alphabet", choices=("auto", "dna", "rna", "protein"), default="auto",
                   help="residue alphabet (default: guessed from the input)")
    g.add_argument("--match", type=int, default=None,
                   help=f"DNA: score of a matching pair (default {match})")
    g.add_argument("--mismatch", type=int, default=None,
                   help=f"DNA: score of a mismatching pair, a transition such as A/G or "
                        f"C/T (default {mismatch})")
    g.add_argument("--transversion", type=int, default=None,
                   help=f"DNA: score of a purine (A, G) against a pyrimidine (C, T/U) "
                        f"(default {transversion}; a --mismatch given alone sets both)")
    g.add_argument("--matrix", default=None,
                   help="protein: substitution matrix known to Biopython (default BLOSUM62)")
    g.add_argument("--gap", type=int, default=None, metavar="G",
                   help="linear gaps: every residue-gap pair scores G (<= 0); the same as "
                        "--gap-open 0 --gap-extend G")
    g.add_argument("--gap-open", type=int, default=None, metavar="O",
                   help="affine gaps: a run of L gaps in a pair of rows scores O + E * L "
                        "(O <= 0)")
    g.add_argument("--gap-extend", type=int, default=None, metavar="E",
                   help="affine gaps: the score E (<= 0) of each gap of a run")
    parser.set_defaults(scoring_stage=stage)


def add_mode_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--mode", choices=MODES, default="global",
                        help="alignment mode (default: global)")


def add_device_options(parser: argparse.ArgumentParser, *, threads: bool = True) -> None:
    parser.add_argument("--device", choices=DEVICES, default="auto",
                        help="where the stages with a GPU path compute: a GPU through CuPy, the "
                             "CPU cores, or auto (GPU when one is visible; default)")
    if threads:
        parser.add_argument("--threads", type=int, default=0,
                            help="CPU threads (default 0 = all cores)")


def scoring_from_args(args, alphabet) -> Scoring:
    return Scoring.for_alphabet(alphabet, args.scoring_stage, match=args.match,
                                mismatch=args.mismatch, matrix=args.matrix, gap=args.gap,
                                gap_open=args.gap_open, gap_extend=args.gap_extend,
                                transversion=args.transversion)


def check_threads(threads: int) -> int:
    """``threads`` (0 = all cores) within ``0..cores``; more than the cores is clamped with a note."""
    if threads < 0:
        raise OptionError(f"--threads must be >= 0 (0 = all cores), got {threads}")
    cores = os.cpu_count() or 1
    if threads > cores:
        note(f"--threads {threads} is more than the {cores} cores here; using {cores}")
        return cores
    return threads


def note(message: str) -> None:
    """A line of information on stderr."""
    print(f"trimsa: {message}", file=sys.stderr)


class Progress:
    """A one-line progress bar on stderr (only when stderr is a terminal).

    Called as ``progress(done, total)`` or ``progress(done, total, stage)``;
    a new ``stage`` (it replaces ``label`` in the bar) starts a new bar. Bars
    of stages shorter than a second are not shown.
    """

    def __init__(self, enabled: bool, label: str = ""):
        self.enabled = enabled and sys.stderr.isatty()
        self.label = label
        self.last = 0.0
        self.start = time.perf_counter()

    def __call__(self, done: int, total: int, stage: str | None = None) -> None:
        if not self.enabled:
            return
        if stage is not None and stage != self.label:
            self.label = stage
            self.start = time.perf_counter()
        now = time.perf_counter()
        if done < total and now - self.last < 0.2:
            return
        if done < total and now - self.start < 1.0:
            return
        self.last = now
        width = 30
        fill = int(width * done / max(total, 1))
        sys.stderr.write(f"\rtrimsa: {self.label} [{'#' * fill}{'.' * (width - fill)}] "
                         f"{done}/{total}")
        if done >= total:
            sys.stderr.write("\n")
        sys.stderr.flush()
