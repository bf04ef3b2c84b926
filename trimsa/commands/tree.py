"""``trimsa tree``: a guide tree (Newick, one line) from triplet scores."""

from __future__ import annotations

import argparse

from ..errors import OptionError
from ..io import atomic_output, read_sequences
from ._common import (
    add_device_options,
    add_mode_option,
    add_scoring_options,
    check_threads,
    note,
    scoring_from_args,
)


def _band(text: str):
    if text in ("auto", "exact"):
        return text
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected auto, exact or a half-width in residues, got {text!r}") from None


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "tree", help="guide tree (UPGMA or neighbour-joining) from triplet scores",
        description="Build a guide tree from 3-way alignment scores and write it as one line "
                    "of Newick (accepted by Clustal Omega --guidetree-in and TWILIGHT -t).")
    p.add_argument("input", help="FASTA file (plain or gzip)")
    p.add_argument("-o", "--output", default="-", help="Newick output (default: stdout)")
    p.add_argument("--method", choices=("nj", "upgma"), default="nj",
                   help="neighbour-joining (rooted at the midpoint; default) or UPGMA")
    p.add_argument("--triplets", choices=("auto", "all", "sampled"), default="auto",
                   help="score all C(n,3) triplets, a sampled design, or all when the time "
                        "budget allows (default)")
    p.add_argument("--m", type=int, default=None,
                   help="third sequences per pair in sampled designs (1..n-2; default: as "
                        "many as the budget allows, at least 2)")
    p.add_argument("--band", type=_band, default="auto",
                   help="half-width of the banded (not exact) triplet kernel, 'exact' for the "
                        "exact engine, or auto (default)")
    p.add_argument("--time-budget", type=float, default=None,
                   help="seconds for the prior and the triplet scoring (default 240)")
    p.add_argument("--distance", choices=("deficit", "fd"), default="deficit",
                   help="score-to-distance transform: deficit (1 - normalised score; default) or fd "
                        "(Feng-Doolittle, -ln of it)")
    p.add_argument("--seed", type=int, default=0, help="seed of the sampled design (default 0)")
    p.add_argument("-v", "--verbose", action="store_true",
                   help="say on stderr what was done")
    add_mode_option(p)
    add_device_options(p)
    add_scoring_options(p)
    p.set_defaults(func=run)


def run(args) -> int:
    from ..tree import api

    check_threads(args.threads)
    if args.time_budget is not None and not args.time_budget > 0:
        raise OptionError(f"--time-budget must be positive, got {args.time_budget}")
    seqs = read_sequences(args.input, None if args.alphabet == "auto" else args.alphabet)
    scoring = scoring_from_args(args, seqs.alphabet)
    band = None if args.band == "exact" else args.band
    gt = api.build_guide_tree(
        seqs, method=args.method, triplets=args.triplets, m=args.m, band=band,
        time_budget=args.time_budget or api.DEFAULT_TIME_BUDGET, mode=args.mode,
        scoring=scoring, distance=args.distance, device=args.device, threads=args.threads,
        seed=args.seed, verbose=False)
    text = gt.newick()
    with atomic_output(args.output) as fh:
        fh.write(text + "\n")
    if args.verbose:
        note(gt.summary())
    return 0
