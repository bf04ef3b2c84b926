"""``trimsa run``: align a FASTA file progressively along a guide tree."""

from __future__ import annotations

import re
import time

from ..errors import OptionError
from ..tree.cluster import METHODS
from ._common import Progress, add_device_options, add_scoring_options, check_threads, note
from ._scale import add_scheduler_option


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "run", help="align sequences (progressive, along a guide tree)",
        description="Align the sequences of INPUT (FASTA, plain or gzip) and write the "
                    "alignment in input order, names intact. PHYLIP output is relaxed "
                    "PHYLIP (names kept in full).")
    p.add_argument("input", metavar="INPUT",
                   help="FASTA file of unaligned sequences (plain or gzip; - reads standard "
                        "input)")
    p.add_argument("-o", "--output", default=None,
                   help="alignment file (default: standard output)")
    p.add_argument("--format", default="fasta",
                   help="output format: fasta, clustal, phylip (relaxed), stockholm, nexus "
                        "(default: fasta)")
    p.add_argument("--tree-out", default=None, metavar="FILE",
                   help="also write the guide tree (Newick)")
    p.add_argument("--guide-tree", default=None, metavar="FILE",
                   help="use this Newick guide tree (leaf labels = sequence names)")
    p.add_argument("--method", choices=tuple(METHODS), default=None,
                   help="guide-tree method (default: upgma)")
    p.add_argument("--tree-distances", choices=("auto", "pairwise", "pair-score", "kmer",
                                                "triplet"),
                   default=None,
                   help="guide-tree distances: pairwise (p-distances of the consistency "
                        "library's pairwise alignments, Jukes-Cantor corrected), pair-score "
                        "(banded global pairwise scores under the run's gaps, on the GPU with "
                        "--device gpu or auto), kmer, triplet (exact 3-way scores "
                        "under the run's gaps, affine or linear, on the GPU with --device gpu "
                        "or auto) or auto (default: triplet for 4 or more DNA/RNA sequences "
                        "when at least one triplet per sequence fits as many seconds as the "
                        "rest of the run is estimated to take; else pairwise when the "
                        "library aligns all pairs, about 250 sequences of 450 residues at "
                        "most; pair-score, every pair, when it aligns the tree's pairs of up "
                        "to 500 sequences and 4e9 banded cells, every length within 0.7-1.5 "
                        "of the median; else kmer; -v says which and why)")
    p.add_argument("--tree-time-budget", type=float, default=None, metavar="S",
                   help="seconds the triplet or pair-score guide tree (--tree-distances "
                        "triplet or pair-score) may spend on its pairs and triplets, an "
                        "estimate at the device's rate (default 240); with auto, the "
                        "triplet tree's budget in place of the rest of the run's estimate")
    add_device_options(p)
    p.add_argument("--gpus", default=None, metavar="LIST",
                   help="the GPUs the consistency library and the k-mer guide tree use when "
                        "they go to the GPU, e.g. 0,1 (default: every visible GPU; the result "
                        "does not depend on them); the pair-score and triplet guide trees use "
                        "the first")
    add_scheduler_option(p, "build the consistency library (and the k-mer or triplet guide "
                            "tree) on Dask workers")
    add_scoring_options(p, "progressive")
    p.add_argument("--consistency", type=float, default=None, metavar="W",
                   help="weight of the pairwise consistency library in the profile scores "
                        "(default 48; 0 = off)")
    p.add_argument("--library", choices=("auto", "all", "tree"), default=None,
                   help="which pairs the consistency library aligns: all pairs, pairs drawn "
                        "at each merge of the guide tree, or auto (default: all pairs up to "
                        "about 250 sequences of 450 residues, else the tree's)")
    p.add_argument("--pairs-per-merge", type=int, default=None, metavar="K",
                   help="most pairs the tree's library draws at one merge (default 128; "
                        "halved while over the library's budget, and no library below 16)")
    p.add_argument("--library-votes", choices=("posterior", "alignment"), default=None,
                   help="what each pair of the library votes with: the match probabilities of "
                        "its residues under a pair HMM (see --pair-hmm), or the residue pairs "
                        "of the pair's alignment itself (default: posterior)")
    p.add_argument("--pair-hmm", choices=("auto", "trained", "fitted"), default=None,
                   help="the pair HMM of the library's posteriors: five states with "
                        "emissions trained on true alignments and MUSCLE5's gap "
                        "probabilities (DNA/RNA), three fitted to "
                        "each pair's alignment, or auto (default: trained for DNA/RNA, "
                        "fitted for proteins)")
    p.add_argument("--triplet-votes", type=float, default=None, metavar="F",
                   help="share of each library pair's votes taken from exact affine 3-way "
                        "alignments of the pair with third sequences near it, in a band "
                        "around the pairwise paths (on the GPU with --device gpu or auto; "
                        "needs the library of all pairs; default 0 = off)")
    p.add_argument("--triplet-thirds", type=int, default=None, metavar="M",
                   help="third sequences per pair for --triplet-votes (default 2; fewer "
                        "where more would not fit the stage's budget of cells)")
    p.add_argument("--triplet-width", type=int, default=None, metavar="W",
                   help="half-width of the band around the pairwise paths for "
                        "--triplet-votes (default 16)")
    p.add_argument("--exact-triplet", choices=("auto", "library", "sum-of-pairs", "off"),
                   default=None,
                   help="three sequences: the exact 3-way alignment of the most consistency-"
                        "library support (library), the exact affine sum-of-pairs optimum "
                        "under --match/--gap-open... (sum-of-pairs), or the progressive "
                        "merges (off); default auto = library up to about 1,000 residues each")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    p.add_argument("-v", "--verbose", action="store_true",
                   help="say for each stage its method, device, work (pairs, triplets, merges, "
                        "DP cells) and time")
    p.set_defaults(func=handler)


#: Aligner parameters whose names in a message are the command line's flags: every one
#: in the form ``name=value`` or as the subject the message starts with, those with an
#: underscore anywhere.
_PARAMETERS = ("pairs_per_merge", "library_votes", "pair_hmm", "triplet_votes",
               "triplet_thirds", "triplet_width", "exact_triplet", "tree_time_budget",
               "tree_distances", "gap_open",
               "gap_extend", "guide_tree", "consistency", "library", "method", "device", "gpus",
               "scheduler", "match", "mismatch", "transversion", "matrix", "gap", "alphabet",
               "threads")


def as_flags(message: str) -> str:
    """An :class:`~trimsa.progressive.api.Aligner` error in the words of the command line:
    ``pairs_per_merge`` -> ``--pairs-per-merge``, ``library_votes='alignment'`` ->
    ``--library-votes alignment``."""
    for name in _PARAMETERS:
        flag = "--" + name.replace("_", "-")
        message = re.sub(rf"(?<![\w-]){name}=(['\"]?)([^'\",;)\s]*)\1", rf"{flag} \2", message)
        if "_" in name:
            message = re.sub(rf"(?<![\w-]){name}(?!\w)", flag, message)
        else:   # the parameter a message starts with
            message = re.sub(rf"^{name}(?= must| takes| applies)", flag, message)
    # a flag that the message already named, then its API spelling: once is enough
    return re.sub(r"(--[\w-]+(?: [^\s()]+)?) \(\1\)", r"\1", message)


def handler(args) -> int:
    from ..progressive.api import FORMATS, Aligner

    fmt = args.format.lower()
    if fmt not in FORMATS:
        raise OptionError(f"unknown --format {args.format!r}; choose one of: {', '.join(FORMATS)}")
    args.threads = check_threads(args.threads)
    if args.guide_tree is not None:
        given = [f for f, v in (("--method", args.method),
                                ("--tree-distances", args.tree_distances)) if v is not None]
        if given:
            raise OptionError(f"{given[0]} does not apply to a tree given with --guide-tree")
    options = {k: v for k, v in (("gpus", args.gpus), ("scheduler", args.scheduler),
                                 ("method", args.method),
                                 ("tree_distances", args.tree_distances),
                                 ("tree_time_budget", args.tree_time_budget),
                                 ("consistency", args.consistency), ("library", args.library),
                                 ("pairs_per_merge", args.pairs_per_merge),
                                 ("library_votes", args.library_votes),
                                 ("pair_hmm", args.pair_hmm),
                                 ("triplet_votes", args.triplet_votes),
                                 ("triplet_thirds", args.triplet_thirds),
                                 ("triplet_width", args.triplet_width),
                                 ("exact_triplet", args.exact_triplet)) if v is not None}
    t0 = time.perf_counter()
    try:
        aligner = Aligner(device=args.device, threads=args.threads, alphabet=args.alphabet,
                          match=args.match, mismatch=args.mismatch,
                          transversion=args.transversion, matrix=args.matrix,
                          gap=args.gap, gap_open=args.gap_open, gap_extend=args.gap_extend,
                          guide_tree=args.guide_tree, **options)
        result = aligner.align(args.input, progress=Progress(not args.quiet), format=fmt)
    except OptionError as exc:
        raise OptionError(as_flags(str(exc))) from None
    t = time.perf_counter()
    if args.tree_out:
        from ..io import atomic_output

        with atomic_output(args.tree_out) as fh:
            fh.write(result.newick() + "\n")
    result.write(args.output, fmt)
    if args.verbose:
        for stage in result.stages:
            note(stage.line())
        note(f"write: {fmt}; {time.perf_counter() - t:.3f} s")
        n = len(result.names)
        note(f"total: {time.perf_counter() - t0:.3f} s ({n} sequence{'s' if n != 1 else ''}, "
             f"{len(result)} columns)")
    return 0
