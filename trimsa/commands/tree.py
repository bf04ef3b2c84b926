"""``trimsa tree``: a guide tree (Newick, one line) from pairwise or triplet alignment
scores, or from k-mers."""

from __future__ import annotations

import argparse

from ..errors import OptionError
from ..io import atomic_output, read_sequences
from ..tree.cluster import METHODS
from ..tree.distances import SOURCES, TRANSFORMS, TRIPLET_CHOICES
from ._scale import add_scheduler_option
from ._common import (
    Progress,
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
        "tree", help="guide tree (UPGMA or neighbour-joining) from alignment scores or k-mers",
        description="Build a guide tree and write it as one line of Newick (accepted by Clustal "
                    "Omega --guidetree-in and TWILIGHT -t). Distances come from banded "
                    "pairwise alignment scores (default), from exact 3-way alignment scores "
                    "or from k-mers.")
    p.add_argument("input", help="FASTA file (plain or gzip; - reads standard input)")
    p.add_argument("-o", "--output", default="-", help="Newick output (default: stdout)")
    p.add_argument("--method", choices=tuple(METHODS), default="nj",
                   help="neighbour-joining (rooted at the midpoint; default) or UPGMA")
    p.add_argument("--tree-distances", choices=tuple(SOURCES), default="pair-score",
                   help="distances from pairwise alignment scores (pair-score, default), "
                        "from 3-way alignment scores (triplet) or from k-mers (kmer); the "
                        "options below apply to pair-score and triplet distances, those that "
                        "name triplets to triplet distances only")
    g = p.add_argument_group("pair-score and triplet distances")
    g.add_argument("--triplets", choices=TRIPLET_CHOICES, default=None,
                   help="score all C(n,3) triplets, a sampled design, or all when the time "
                        "budget allows (default auto)")
    g.add_argument("--m", type=int, default=None,
                   help="third sequences per pair in sampled designs (1..n-2; default: as "
                        "many as the budget allows, at least 2)")
    g.add_argument("--band", type=_band, default=None,
                   help="half-width of the banded (not exact) kernels; 'exact' for exact "
                        "scores, or auto (default: pair-score 32; triplets exact on a GPU, "
                        "32 on the CPU)")
    g.add_argument("--time-budget", type=float, default=None,
                   help="seconds for the pairs' and the triplets' scores (default 240)")
    g.add_argument("--transform", choices=TRANSFORMS, default=None,
                   help="score-to-distance transform: deficit (1 - normalised score; default) "
                        "or fd (Feng-Doolittle, -ln of it)")
    g.add_argument("--seed", type=int, default=None,
                   help="seed of the sampled pairs or triplets (default 0)")
    add_mode_option(g)
    add_scheduler_option(p, "score the triplets (the exact engine) or count the shared k-mers "
                            "on Dask workers (not for pair-score distances)")
    p.add_argument("-v", "--verbose", action="store_true",
                   help="say on stderr what was done")
    p.add_argument("-q", "--quiet", action="store_true",
                   help="no progress bar (k-mer distances, pairwise and triplet scores)")
    add_device_options(p)
    p.add_argument("--gpus", default=None, metavar="LIST",
                   help="the GPUs that count the shared k-mers (--tree-distances kmer), e.g. "
                        "0,1 (default: every visible GPU when they go to the GPU; the tree "
                        "does not depend on them)")
    add_scoring_options(p, "progressive")
    p.set_defaults(func=run)


#: options of the score distances: (argparse name, keyword of the source), those of both
#: sources and those of the triplet source alone
_SCORE_OPTIONS = (("band", "band"), ("time_budget", "time_budget"),
                  ("transform", "transform"), ("seed", "seed"))
_TRIPLET_OPTIONS = (("triplets", "triplets"), ("m", "m"))


def run(args) -> int:
    from ..tree import build_guide_tree

    args.threads = check_threads(args.threads)
    if args.time_budget is not None and not args.time_budget > 0:
        raise OptionError(f"--time-budget must be positive, got {args.time_budget}")
    seqs = read_sequences(args.input, None if args.alphabet == "auto" else args.alphabet)
    options = {"threads": args.threads, "device": args.device}
    if args.scheduler is not None:
        options["scheduler"] = args.scheduler
    if args.gpus is not None:
        from ..triplet.devices import parse_gpus

        if args.tree_distances != "kmer":
            raise OptionError(f"--gpus applies to --tree-distances kmer, not to "
                              f"{args.tree_distances} (triplet distances use every visible "
                              f"GPU or Dask workers, pair-score distances one GPU)")
        options["gpus"] = parse_gpus(args.gpus)
    given = {kw: getattr(args, name) for name, kw in _SCORE_OPTIONS
             if getattr(args, name) is not None}
    triplet_given = {kw: getattr(args, name) for name, kw in _TRIPLET_OPTIONS
                     if getattr(args, name) is not None}
    if args.tree_distances == "triplet":
        options.update(given, **triplet_given, mode=args.mode,
                       scoring=scoring_from_args(args, seqs.alphabet))
        if options.get("band") == "exact":
            options["band"] = None
    elif args.tree_distances == "pair-score":
        if args.scheduler is not None:
            raise OptionError("--scheduler applies to kmer and triplet distances; pair-score "
                              "distances are computed in this process")
        extra = [f"--{k}" for k in triplet_given] + (["--mode"] if args.mode != "global"
                                                     else [])
        if extra:
            raise OptionError(f"{extra[0]} applies to triplet distances, not to "
                              f"--tree-distances pair-score")
        options.update(given, scoring=scoring_from_args(args, seqs.alphabet))
        if options.get("band") == "exact":   # a band as wide as the longest: exact scores
            options["band"] = int(seqs.lengths.max())
        elif options.get("band") == "auto":
            del options["band"]
    else:
        scoring_given = [o for o in ("match", "mismatch", "transversion", "matrix", "gap",
                                     "gap_open", "gap_extend") if getattr(args, o) is not None]
        extra = [f"--{k.replace('_', '-')}" for k in list(given) + list(triplet_given)
                 + scoring_given]
        if args.mode != "global":
            extra.append("--mode")
        if extra:
            raise OptionError(f"{extra[0]} applies to pair-score and triplet distances, not to "
                              f"--tree-distances {args.tree_distances}")
    gt = build_guide_tree(seqs, distances=args.tree_distances, method=args.method,
                          progress=Progress(not args.quiet), **options)
    text = gt.newick()
    with atomic_output(args.output) as fh:
        fh.write(text + "\n")
    if args.verbose:
        note(gt.summary())
    return 0
