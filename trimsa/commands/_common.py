"""Options shared by several subcommands, and how to turn them into objects."""

from __future__ import annotations

import argparse
import sys

from ..errors import OptionError
from ..scoring import Scoring

MODES = ("global", "semiglobal", "local")
DEVICES = ("auto", "cpu", "gpu")


def add_scoring_options(parser: argparse.ArgumentParser) -> None:
    g = parser.add_argument_group("scoring (scores are signed and added)")
    g.add_argument("--alphabet", choices=("auto", "dna", "rna", "protein"), default="auto",
                   help="residue alphabet (default: guessed from the input)")
    g.add_argument("--match", type=int, default=None,
                   help="DNA: score of a matching pair (default 1)")
    g.add_argument("--mismatch", type=int, default=None,
                   help="DNA: score of a mismatching pair (default -1)")
    g.add_argument("--gap", type=int, default=None,
                   help="score of a residue-gap pair (default -3 for DNA, -4 for protein)")
    g.add_argument("--matrix", default=None,
                   help="protein: substitution matrix known to Biopython (default BLOSUM62)")


def add_mode_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--mode", choices=MODES, default="global",
                        help="alignment mode (default: global)")


def add_device_options(parser: argparse.ArgumentParser, *, threads: bool = True) -> None:
    parser.add_argument("--device", choices=DEVICES, default="auto",
                        help="where to compute: a GPU through CuPy, the CPU cores, or auto "
                             "(GPU when one is visible; default)")
    if threads:
        parser.add_argument("--threads", type=int, default=0,
                            help="CPU threads (default 0 = all cores)")


def scoring_from_args(args, alphabet) -> Scoring:
    return Scoring.for_alphabet(alphabet, match=args.match, mismatch=args.mismatch,
                                gap=args.gap, matrix=args.matrix)


def check_threads(threads: int) -> int:
    if threads < 0:
        raise OptionError(f"--threads must be >= 0 (0 = all cores), got {threads}")
    return threads


def note(message: str) -> None:
    """A line of information on stderr."""
    print(f"trimsa: {message}", file=sys.stderr)
