"""The Python API of the aligner: :class:`Aligner`, :func:`align`, :class:`AlignmentResult`.

Examples
--------
>>> from trimsa.progressive import align
>>> res = align([("a", "ACGTACGTAC"), ("b", "ACGTCGTAC"), ("c", "ACGACGTAC"), ("d", "ACGTACGAC")])
>>> [len(r) for r in res.rows] == [len(res.rows[0])] * 4
True
>>> [r.replace("-", "") for r in res.rows]
['ACGTACGTAC', 'ACGTCGTAC', 'ACGACGTAC', 'ACGTACGAC']
"""

from __future__ import annotations

import dataclasses
import math
import numbers
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import numpy as np

from .. import _numba
from ..errors import OptionError, TrimsaError
from ..io import SequenceSet, as_sequence_set, atomic_output
from ..scoring import Scoring, resolve_gaps
from ..tree import METHODS, GuideTree, build_guide_tree
from ..triplet import DEVICES
from ..triplet.backends import Device
from . import engine
from .pair_hmm import PAIR_HMMS, pair_hmm
from .triplets import DEFAULT_THIRDS, DEFAULT_WIDTH

Method = Literal["nj", "upgma"]
AlphabetName = Literal["auto", "dna", "rna", "protein"]
TreeDistances = Literal["auto", "kmer", "pairwise", "pair-score", "triplet"]
LibraryDesign = Literal["auto", "all", "tree"]
LibraryVotes = Literal["posterior", "alignment"]
PairHmmName = Literal["auto", "trained", "fitted"]

#: Sources of guide-tree distances the aligner takes: the tree's own sources
#: (:data:`trimsa.tree.SOURCES`) and ``"pairwise"`` (corrected p-distances of
#: the consistency library's pairwise alignments); ``"auto"`` is ``"pairwise"``
#: when the library aligns all pairs, ``"pair-score"`` when it aligns the tree's pairs
#: of up to :data:`PAIR_SCORE_TREE_SEQUENCES` sequences and
#: :data:`PAIR_SCORE_TREE_CELLS` banded cells, every length within
#: :data:`PAIR_SCORE_TREE_LENGTHS` of the median, else ``"kmer"``.
TREE_DISTANCES = ("auto", "kmer", "pairwise", "pair-score", "triplet")
#: Where the library aligns the tree's pairs, ``tree_distances="auto"`` takes the banded
#: pairwise scores of all pairs (:func:`~trimsa.tree.distances.pair_score_distances`) up
#: to this many sequences and banded cells (about 500 sequences of 400 residues), and
#: k-mer distances beyond. On the nine tune sets of 256-450 sequences where the k-mer
#: tree was the default, their UPGMA tree gave lower SPFN on all nine; from 600 sequences
#: on, higher on seven of ten (``eval/experiments/2026-11-29-large-trees``). The limits
#: depend on the input alone, so the tree is the same on any device and thread count.
PAIR_SCORE_TREE_SEQUENCES = 500
PAIR_SCORE_TREE_CELLS = 4e9
#: ... and only where every sequence's length lies within these shares of the median:
#: banded global scores put fragments, and sequences with long flanks, far from
#: everything. With 5%, 10% or 30% of three tune sets' sequences cut to 40-60% of their
#: length the pair-score tree aligned worse than the k-mer tree in eight of the nine
#: cases, and with 5% given flanks of 50-100% of their length in all three
#: (``eval/experiments/2026-11-29-fragments``); in the nine sets where it won, every
#: length lies within 0.75-1.44 of the median.
PAIR_SCORE_TREE_LENGTHS = (0.7, 1.5)
#: ``tree_distances="auto"`` takes the triplet guide tree (exact 3-way scores) for
#: nucleotide sequences when its stage, within a budget of this share of the rest of the
#: run's estimated seconds (:meth:`Aligner.rest_seconds`), scores at least
#: :data:`MIN_TREE_TRIPLETS` triplets per sequence (or all of them); else the tree above.
TRIPLET_TREE_SHARE = 1.0
MIN_TREE_TRIPLETS = 1
#: Fewest sequences whose guide tree ``auto`` takes from triplets (three have one tree).
TRIPLET_TREE_MIN_SEQUENCES = 4
#: The rest of the run, estimated before its guide tree: the library's DP cells at these
#: rates (cells per second per CPU thread, or of a GPU; 1.1-1.5e8 per thread measured on
#: five sim2 tune sets of 48-1,000 sequences on the 2-core VM, 5.2e9 on an H100 for the
#: pairs of 256 x 490) and the merges at :data:`MERGE_SHARE` of the library's CPU time
#: (0.13-0.59 there), plus :data:`LIBRARY_SECONDS` (a library of 120 pairs of 400
#: residues took 0.36 s there, 0.07 s by its cells).
LIBRARY_RATES = {"cpu": 1.2e8, "gpu": 5e9}
LIBRARY_SECONDS = 0.25
MERGE_SHARE = 0.3
#: Pairs the tree's library draws per sequence (17.0-17.6 on sim2 tune sets of 256-1,000).
TREE_PAIRS_PER_SEQUENCE = 17

#: Output formats and the Biopython (Bio.AlignIO) format each is written with.
FORMATS = {
    "fasta": "fasta",
    "clustal": "clustal",
    "phylip": "phylip-relaxed",
    "stockholm": "stockholm",
    "nexus": "nexus",
}

#: Default factor on the gap-open score for gaps at either end of a profile.
DEFAULT_TERMINAL = 0.5
#: Default weight of the consistency library in the profile scores (0 = off).
DEFAULT_CONSISTENCY = 48.0
#: Largest pairwise alignment work (DP cells) of the library of all pairs by default, and
#: the largest memory of its residue maps (bytes): ``auto`` aligns all pairs while they fit
#: both (about 250 sequences of 450 residues). Beyond, the tree's library aligned as well
#: or better on the tune sets (N = 384: ``eval/experiments/2026-11-24-scale-library``).
LIBRARY_CELLS = 1.2e10
LIBRARY_BYTES = 2 ** 30
#: The same for the tree's library, whose size grows with the number of sequences (about
#: 17 pairs per sequence at 128 per merge): 2.8e10 cells and 4.4e9 bytes for 10,000
#: sequences of 400 residues, where the whole run peaked at 7.4 GB on the GPU path.
TREE_LIBRARY_CELLS = 1e11
TREE_LIBRARY_BYTES = 6 * 2 ** 30
#: Beyond 10,000 sequences the tree library's cells grow with them: this many per sequence.
TREE_LIBRARY_CELLS_PER_SEQUENCE = 1e7
#: With device ``"auto"``, the library goes to the GPU from this many DP cells on: below
#: it all cores of a 16-core machine were faster than an H100, whose one thread per pair
#: takes about 0.2 s for pairs of 500 residues however few they are
#: (``eval/experiments/2026-11-24-gpu-library``). The result is the same either way.
GPU_LIBRARY_CELLS = 3e8
#: Third sequences that vote in the extension of the library of all pairs (None = all);
#: in the tree's library every sequence votes (its paths are few).
MAX_WITNESSES: int | None = 32
#: Which pairs the consistency library aligns: ``"all"`` pairs, the pairs ``"tree"``
#: draws at each merge of the guide tree (:func:`~trimsa.progressive.consistency.tree_pairs`),
#: or ``"auto"``: all while they fit the budget, else the tree's.
LIBRARY_DESIGNS = ("auto", "all", "tree")
#: What each pair of the library votes with: the match probabilities of its residues under
#: a pair HMM fitted to the pair's alignment (``"posterior"``), or the residue pairs of the
#: alignment itself (``"alignment"``).
LIBRARY_VOTES = ("posterior", "alignment")

#: How three sequences are aligned (``exact_triplet``).
EXACT_TRIPLETS = ("auto", "library", "sum-of-pairs", "off")

#: Largest cube (cells) that ``exact_triplet="auto"`` aligns exactly by the library's
#: support (about 1,000 residues each: under 3 s on one core even for unrelated
#: sequences, whose support prunes least); larger triplets take the progressive merges.
EXACT_TRIPLET_CELLS = 1e9
#: Most bytes the exact alignment of three sequences by the library's support may hold
#: at once (its pairwise support and bound matrices and two layers of the cube, about
#: 24 bytes per cell of the three pairwise planes): 2 GiB, about 5,000 residues each.
EXACT_TRIPLET_BYTES = 2 ** 31
#: Most pairs the tree design draws at one merge (halved while over the budget).
PAIRS_PER_MERGE = 128
#: Fewest pairs per merge worth a library: with fewer the tree's library is not built
#: (on the tune sets, 8 per merge aligned worse than no library at all).
MIN_PAIRS_PER_MERGE = 16
#: The jitted functions each kind of run calls (``trimsa._numba.Precompiler``), written by
#: ``eval/compiled_manifest.py``.
COMPILED = Path(__file__).with_name("compiled.json")
#: Most helper processes that compile a run's functions ahead on a cold cache.
MAX_COMPILE_HELPERS = 8

#: Formats whose writer (Biopython's) keeps only the first characters of each name.
NAME_WIDTH = {"clustal": 30}
#: Characters a format's writer removes or replaces in names (PHYLIP reserves them).
NAME_FORBIDDEN = {"phylip": "()[]:;,"}


#: How far below the saturation level ``1 - 1/K`` p-distances are capped.
P_MARGIN = 0.01


def corrected_distance(p, states: int) -> np.ndarray:
    """Jukes-Cantor-style distances ``-b ln(1 - p / b)``, ``b = 1 - 1 / states``, from
    p-distances (shares of differing aligned residues; 4 states for DNA/RNA, 20 for
    protein), with ``p`` capped at ``b -`` :data:`P_MARGIN` so saturated pairs stay finite.

    >>> corrected_distance(np.array([0.0, 0.1, 0.5]), 4).round(4).tolist()
    [0.0, 0.1073, 0.824]
    """
    b = 1.0 - 1.0 / states
    q = np.minimum(np.asarray(p, float), b - P_MARGIN)
    return -b * np.log1p(-q / b)


def check_names_for_format(names, format: str) -> None:
    """An error when ``format`` cannot write every one of ``names`` in full (it would
    cut them, and cut names could collide or fail to match the input's)."""
    bad = NAME_FORBIDDEN.get(format, "")
    for name in names:
        hit = [c for c in bad if c in name]
        if hit:
            raise OptionError(
                f"--format {format} reserves the characters {bad} and the name {name!r} holds "
                f"{hit[0]!r}; use fasta, stockholm or nexus, which keep names as they are")
    width = NAME_WIDTH.get(format)
    if width is None:
        return
    for name in names:
        if len(name) > width:
            raise OptionError(
                f"--format {format} holds names of up to {width} characters and {name!r} has "
                f"{len(name)}; use fasta, phylip, stockholm or nexus, which keep names in full")


def _check_choice(value, allowed, what):
    if value not in allowed:
        raise OptionError(f"unknown {what} {value!r}; choose one of: {', '.join(allowed)}")


@dataclass(frozen=True, repr=False)
class Aligner:
    """Configuration of a progressive multiple alignment.

    Parameters
    ----------
    method
        Guide-tree method: neighbour joining (rooted at its midpoint) or UPGMA.
    tree_distances
        Where the guide tree's distances come from (:data:`TREE_DISTANCES`):
        ``"pairwise"`` (the share of differing residues in the global affine
        alignments of all pairs that the consistency library is built from,
        corrected for multiple substitutions by :func:`corrected_distance`;
        they cost nothing more when the library aligns all pairs, and are an
        error when those are beyond the budget of all pairs), ``"kmer"`` (k-mer
        distances), ``"triplet"`` (exact 3-way alignment scores under the
        run's scoring, affine or linear, on the GPU when ``device`` allows; see
        :func:`trimsa.tree.distances.triplet_distances`), ``"pair-score"`` (banded
        global pairwise scores under the run's scoring, on the GPU when ``device``
        allows, the same scores; see
        :func:`trimsa.tree.distances.pair_score_distances`) or ``"auto"`` (default:
        ``"triplet"`` for four or more nucleotide sequences when its stage, within as
        many seconds as the rest of the run is estimated to take (:meth:`tree_choice`,
        :data:`TRIPLET_TREE_SHARE`), scores at least one triplet per sequence; else
        ``"pairwise"`` when the library aligns all pairs, ``"pair-score"`` when it
        aligns the tree's pairs of an input within :data:`PAIR_SCORE_TREE_SEQUENCES`
        and :data:`PAIR_SCORE_TREE_CELLS` whose lengths all lie within
        :data:`PAIR_SCORE_TREE_LENGTHS` of the median, else ``"kmer"``).
    device
        Where the stages with a GPU path run: ``"auto"`` (a GPU when CuPy sees
        one; for the library, from :data:`GPU_LIBRARY_CELLS` DP cells on; for
        the k-mer guide tree, from
        :data:`~trimsa.tree.distances.KMER_GPU_SEQUENCES` sequences on),
        ``"cpu"`` or ``"gpu"``. The consistency library (its pairwise
        alignments and posteriors, bit for bit the CPU's), the k-mer guide
        tree (its counts of shared k-mers; the same tree), the triplet
        distances and the exact 3-way engine have a GPU path; ``"gpu"`` where
        none of them runs is an error.
    gpus
        The GPUs the library and the k-mer guide tree use (device numbers;
        default None: every visible one, when the stage goes to the GPU); the
        pair-score and triplet guide trees use the first.
        Given, those stages go to the GPU whatever their size; their work is
        dealt out among the GPUs, and the result is the same on any number of
        them. An error with ``device="cpu"`` or where neither stage is built.
    scheduler
        Dask workers for the consistency library and the triplet or k-mer guide
        tree (``"local:N"``: a cluster of ``N`` processes on this machine, one per
        GPU when it has GPUs and ``device`` is not ``"cpu"``;
        ``"tcp://HOST:PORT"``: a running cluster; or a
        ``distributed.Client``). The workers compute on ``device`` (with
        ``"auto"``, each on its GPU when it has one); the result is the same as
        in this process. An error with ``gpus``, or where none of those stages is
        built.
    threads
        CPU threads (0 = all cores). Where numba's on-disk cache does not yet hold the
        functions an alignment needs, up to ``threads - 1`` helper processes (at most
        :data:`MAX_COMPILE_HELPERS`) compile those of its later stages meanwhile
        (:class:`trimsa._numba.Precompiler`).
    alphabet
        Residue alphabet; guessed from the input by default.
    match, mismatch, transversion, matrix
        Substitution scores: DNA match/mismatch/transversion (a ``mismatch`` given
        alone scores transversions too), or a protein matrix known to Biopython
        (defaults: :data:`trimsa.scoring.DEFAULTS`).
    gap, gap_open, gap_extend
        The gap model as :func:`trimsa.scoring.resolve_gaps` reads it for the
        ``"progressive"`` stage: ``gap`` alone gives linear gaps, ``gap_open``
        and/or ``gap_extend`` affine gaps (integer scores <= 0; defaults -3/-1
        for DNA, -10/-1 for protein). A gap of length ``L`` opposite columns
        with residue fractions ``r_1..r_L`` scores
        ``gap_open * r_1 + gap_extend * sum(r)``.
    terminal
        Factor on ``gap_open`` for gaps at either end of a profile.
    guide_tree
        A Newick file (path), Newick text (ending in ``;``), a ``dendropy.Tree``
        or a :class:`~trimsa.tree.GuideTree` over the sequence names to use
        instead of building one.
    consistency
        Weight of the consistency library (global affine pairwise alignments,
        extended through third sequences) added to the profile scores of each
        merge; 0 turns it off.
    library
        Which pairs the library aligns (:data:`LIBRARY_DESIGNS`): ``"all"``
        (every pair; an error beyond its budget of :data:`LIBRARY_CELLS` DP cells,
        about 250 sequences of 450 residues, or :data:`LIBRARY_BYTES` of residue
        maps), ``"tree"`` (up to ``pairs_per_merge`` pairs drawn at each merge of
        the guide tree while they fit a budget of :data:`TREE_LIBRARY_CELLS` cells, or
        :data:`TREE_LIBRARY_CELLS_PER_SEQUENCE` per sequence where that is more, and
        :data:`TREE_LIBRARY_BYTES` of maps; over it the posterior partners kept per
        residue halve first (4, 2, 1), then the pairs per merge (again with 4
        partners first); no library below :data:`MIN_PAIRS_PER_MERGE` per merge) or
        ``"auto"`` (default: all pairs while they fit their budget, else the tree's).
    pairs_per_merge
        See ``library`` (default :data:`PAIRS_PER_MERGE`).
    library_votes
        What each pair of the library votes with (:data:`LIBRARY_VOTES`):
        ``"posterior"`` (default): for each residue, the
        :data:`~trimsa.progressive.consistency.POSTERIOR_SLOTS` residues of the
        other sequence most probably aligned with it under the pair HMM
        ``pair_hmm``, each with its probability; ``"alignment"``: the residue
        pairs of the global affine alignment itself.
    pair_hmm
        The pair HMM of the posteriors (:mod:`trimsa.progressive.pair_hmm`):
        ``"trained"`` (five states, short and long gaps, parameters trained on
        the tune splits' true alignments; DNA and RNA only), ``"fitted"``
        (three states fitted to each pair's alignment) or ``"auto"`` (default:
        trained for DNA and RNA, fitted for proteins).
    max_library_cells
        The library's budget of DP cells, for either design (default None:
        :data:`LIBRARY_CELLS` for all pairs, the larger of
        :data:`TREE_LIBRARY_CELLS` and :data:`TREE_LIBRARY_CELLS_PER_SEQUENCE` per
        sequence for the tree's).
    max_witnesses
        How many third sequences vote in the library's extension (spread
        evenly along the guide tree); ``None`` = all of them, ``0`` = only the
        direct pairwise support; ``"auto"`` (default): 32 in the library of all
        pairs, all of them in the tree's (whose pairs make few paths).
    exact_triplet
        How exactly three sequences are aligned. ``"library"``: the alignment
        with the most support of the consistency library (the sum, over its
        columns, of the library's support of each pair of residues in the
        column, witness paths included; gaps score nothing), found exactly by a
        3-way dynamic programme in quadratic memory
        (:meth:`~trimsa.progressive.consistency.Library.best_triplet`; CPU,
        one thread); needs the library. ``"sum-of-pairs"``: the exact 3-way
        engine (an optimal alignment under the sum of pairs with natural affine
        gaps and this aligner's scores; global; on the GPU where ``device``
        allows and the cube fits, else on the CPU). ``"off"``: the progressive
        merges, as for any other number. ``"auto"`` (default): ``"library"``
        when the library is on, the cube has at most :data:`EXACT_TRIPLET_CELLS`
        cells and the work space fits :data:`EXACT_TRIPLET_BYTES`, else ``"off"``
        (``"library"`` beyond that budget is an error). On the tune
        triplets ``"library"`` had up to 3% fewer errors than the merges, and
        the sum of pairs 2-32% more.
    triplet_votes
        The share of each library pair's votes taken from exact 3-way
        alignments (:mod:`trimsa.progressive.triplets`): each pair ``(s, t)``
        is aligned with ``triplet_thirds`` third sequences near both, by the
        exact affine 3-way engine in a band of ``triplet_width`` columns
        around the pairwise paths, and each residue's partners become
        ``1 - triplet_votes`` of its pairwise probabilities plus
        ``triplet_votes`` of the triplets' votes (default 0: off). Needs the
        library of all pairs; runs on the GPU where ``device`` allows (affine
        gaps; the same alignments as on the CPU; one GPU, the first of ``gpus``
        when given), else on all CPU ``threads``, within the device's budget of
        band cells (:data:`~trimsa.progressive.triplets.TRIPLET_CELLS`), with
        fewer third sequences where more would not fit (an error where not even
        one fits).
    triplet_thirds, triplet_width
        Third sequences per pair, and the band's half-width, of
        ``triplet_votes`` (defaults
        :data:`~trimsa.progressive.triplets.DEFAULT_THIRDS` and
        :data:`~trimsa.progressive.triplets.DEFAULT_WIDTH`).
    tree_time_budget
        Seconds the triplet guide tree (``tree_distances="triplet"``, or ``"auto"``
        in place of the rest of the run's estimate) may spend on
        its pairwise prior and its triplets, or the pair-score tree
        (``"pair-score"``) on its pairs (default
        :data:`~trimsa.tree.distances.DEFAULT_TIME_BUDGET`; an estimate at the
        device's rate, see :func:`trimsa.tree.distances.triplet_distances`; the
        random baseline's few shuffled triplets or pairs come on top, docs/tree.md).
        Where ``tree_distances="auto"`` takes the pair-score tree, the default budget
        scores every pair on any device and thread count (its
        :data:`PAIR_SCORE_TREE_CELLS` take at most a sixth of it at one CPU thread's
        rate).
    """

    method: Method = "upgma"
    tree_distances: TreeDistances = "auto"
    device: Device = "auto"
    threads: int = 0
    alphabet: AlphabetName = "auto"
    match: int | None = None
    mismatch: int | None = None
    transversion: int | None = None
    matrix: str | None = None
    gap: int | None = None
    gap_open: int | None = None
    gap_extend: int | None = None
    terminal: float = DEFAULT_TERMINAL
    guide_tree: object = None
    consistency: float = DEFAULT_CONSISTENCY
    max_library_cells: float | None = None
    max_witnesses: int | None | Literal["auto"] = "auto"
    library: LibraryDesign = "auto"
    pairs_per_merge: int = PAIRS_PER_MERGE
    exact_triplet: str = "auto"
    triplet_votes: float = 0.0
    triplet_thirds: int = DEFAULT_THIRDS
    triplet_width: int = DEFAULT_WIDTH
    tree_time_budget: float | None = None
    library_votes: LibraryVotes = "posterior"
    pair_hmm: PairHmmName = "auto"
    gpus: tuple | None = None
    scheduler: object = None

    def __post_init__(self):
        for name in ("consistency", "terminal"):
            value = getattr(self, name)
            if (isinstance(value, bool) or not isinstance(value, numbers.Real)
                    or not math.isfinite(value)):
                raise OptionError(f"{name} must be a number, got {value!r}")
        if self.guide_tree is not None and not GuideTree.readable(self.guide_tree):
            raise OptionError(f"guide_tree must be the path of a Newick file, Newick text, "
                              f"a dendropy.Tree or a GuideTree, got a "
                              f"{type(self.guide_tree).__name__}")
        _check_choice(self.method, tuple(METHODS), "guide-tree method")
        _check_choice(self.tree_distances, TREE_DISTANCES, "guide-tree distance source")
        if self.tree_time_budget is not None:
            b = self.tree_time_budget
            if (isinstance(b, bool) or not isinstance(b, numbers.Real) or not math.isfinite(b)
                    or b <= 0):
                raise OptionError(f"tree_time_budget must be a number of seconds > 0, "
                                  f"got {b!r}")
            if self.tree_distances not in ("auto", "triplet", "pair-score"):
                raise OptionError("tree_time_budget applies to the triplet and pair-score "
                                  "guide trees (tree_distances='auto', "
                                  "tree_distances='triplet' or tree_distances='pair-score')")
        _check_choice(self.device, DEVICES, "device")
        _check_choice(self.library, LIBRARY_DESIGNS, "library design")
        _check_choice(self.library_votes, LIBRARY_VOTES, "library votes")
        if float(self.consistency) == 0 and self.library_votes != LIBRARY_VOTES[0]:
            raise OptionError("library_votes applies to the consistency library, which "
                              "consistency=0 turns off")
        _check_choice(self.pair_hmm, PAIR_HMMS, "pair HMM")
        if self.pair_hmm != "auto" and not (float(self.consistency) != 0 and self.posterior):
            raise OptionError("pair_hmm applies to the consistency library's posteriors, "
                              "which consistency=0 or library_votes='alignment' turn off")
        if not isinstance(self.pairs_per_merge, int) or self.pairs_per_merge < 1:
            raise OptionError(f"pairs_per_merge must be an integer >= 1, "
                              f"got {self.pairs_per_merge!r}")
        if self.library == "all" and self.pairs_per_merge != PAIRS_PER_MERGE:
            raise OptionError("pairs_per_merge applies to the tree's library, not to "
                              "library='all'")
        if self.library == "tree" and self.tree_distances == "pairwise":
            raise OptionError("pairwise guide-tree distances come from the library of all "
                              "pairs; library='tree' draws its pairs from the guide tree")
        _check_choice(self.alphabet, ("auto", "dna", "rna", "protein"), "alphabet")
        if self.gpus is not None:
            from ..triplet.devices import parse_gpus

            gpus = parse_gpus(self.gpus) if isinstance(self.gpus, str) else self.gpus
            try:
                gpus = tuple(int(g) for g in gpus)
            except (TypeError, ValueError):
                raise OptionError(f"gpus must be device numbers like (0, 1), got {self.gpus!r}")
            if not gpus or min(gpus) < 0 or len(set(gpus)) != len(gpus):
                raise OptionError(f"gpus must list distinct device numbers >= 0, "
                                  f"got {self.gpus!r}")
            if self.device == "cpu":
                raise OptionError("gpus applies to device 'gpu' or 'auto', not 'cpu'")
            object.__setattr__(self, "gpus", gpus)
        if self.scheduler is not None:
            if self.gpus is not None:
                raise OptionError("gpus cannot be combined with a scheduler (each Dask worker "
                                  "uses its own GPU)")
            if isinstance(self.scheduler, str):
                from ..triplet.distributed import parse_scheduler

                parse_scheduler(self.scheduler)
        if self.max_library_cells is not None and not (
                isinstance(self.max_library_cells, (int, float))
                and float(self.max_library_cells) > 0):
            raise OptionError(f"max_library_cells must be a number > 0 or None, "
                              f"got {self.max_library_cells!r}")
        if not isinstance(self.threads, int) or self.threads < 0:
            raise OptionError(f"threads must be an integer >= 0 (0 = all cores), got {self.threads!r}")
        resolve_gaps("dna", "progressive", gap=self.gap, gap_open=self.gap_open,
                     gap_extend=self.gap_extend)
        if not (0 <= float(self.terminal) <= 10):
            raise OptionError(f"terminal must lie within [0, 10], got {self.terminal!r}")
        if self.max_witnesses not in (None, "auto") and (
                not isinstance(self.max_witnesses, int) or self.max_witnesses < 0):
            raise OptionError(f"max_witnesses must be 'auto', None or an integer >= 0, "
                              f"got {self.max_witnesses!r}")
        if not (0 <= float(self.consistency) <= 1000):
            raise OptionError(f"consistency must lie within [0, 1000], got {self.consistency!r}")
        if self.guide_tree is not None and (self.method != "upgma" or self.tree_distances != "auto"):
            raise OptionError("a given guide tree is used as it is: method and tree_distances "
                              "do not apply to it")
        if not isinstance(self.exact_triplet, str):
            raise OptionError(f"exact_triplet must be one of {', '.join(EXACT_TRIPLETS)}, "
                              f"got {self.exact_triplet!r}")
        _check_choice(self.exact_triplet, EXACT_TRIPLETS, "exact_triplet")
        if self.exact_triplet == "library" and float(self.consistency) == 0:
            raise OptionError("exact_triplet='library' aligns by the consistency library, "
                              "which consistency=0 turns off")
        self._check_triplet_votes()

    def _check_triplet_votes(self):
        if not (isinstance(self.triplet_votes, (int, float)) and 0 <= self.triplet_votes <= 1):
            raise OptionError(f"triplet_votes must lie within [0, 1], got {self.triplet_votes!r}")
        if not isinstance(self.triplet_thirds, int) or self.triplet_thirds < 1:
            raise OptionError(f"triplet_thirds must be an integer >= 1, "
                              f"got {self.triplet_thirds!r}")
        if not isinstance(self.triplet_width, int) or self.triplet_width < 0:
            raise OptionError(f"triplet_width must be an integer >= 0, "
                              f"got {self.triplet_width!r}")
        if float(self.triplet_votes) == 0:
            if (self.triplet_thirds, self.triplet_width) != (DEFAULT_THIRDS, DEFAULT_WIDTH):
                raise OptionError("triplet_thirds and triplet_width apply to the triplet "
                                  "votes, which triplet_votes=0 turns off")
            return
        if float(self.consistency) == 0:
            raise OptionError("triplet_votes go into the consistency library, which "
                              "consistency=0 turns off")
        if self.library == "tree":
            raise OptionError("triplet_votes need the library of all pairs, not "
                              "library='tree'")


    def __repr__(self):
        parts = []
        for f in dataclasses.fields(self):
            v = getattr(self, f.name)
            if v is not f.default and v != f.default:
                parts.append(f"{f.name}={v!r}")
        return f"Aligner({', '.join(parts)})"

    # -- scoring ---------------------------------------------------------------
    def scoring(self, seqs: SequenceSet) -> Scoring:
        """The scoring model for ``seqs`` (the ``"progressive"`` stage's defaults, overridden)."""
        return Scoring.for_alphabet(seqs.alphabet, "progressive", match=self.match,
                                    mismatch=self.mismatch, matrix=self.matrix, gap=self.gap,
                                    gap_open=self.gap_open, gap_extend=self.gap_extend,
                                    transversion=self.transversion)

    # -- the work --------------------------------------------------------------
    def align(self, sequences, *, progress=None, format: str | None = None) -> "AlignmentResult":
        """Align ``sequences``: a FASTA path (``-``: standard input), SeqRecords,
        ``(name, seq)`` pairs or strings.

        ``progress``, when given, is called as ``progress(done, total, stage)``
        while the long stages run (``stage``: ``"tree: ..."`` for the passes of
        the k-mer guide tree over all pairs, ``"library"``, ``"merges"``).
        ``format``: the output format the result will be written in, checked
        against the names before any work.
        """
        t0 = time.perf_counter()
        if progress is not None and not callable(progress):
            raise OptionError(f"progress must be a function progress(done, total, stage), "
                              f"got {progress!r}")
        alpha = None if self.alphabet == "auto" else self.alphabet
        seqs = as_sequence_set(sequences, alpha)
        if format is not None:
            _check_choice(format, tuple(FORMATS), "output format")
            check_names_for_format(seqs.names, format)
        stages = [Stage("read", "FASTA", "cpu", len(seqs), "sequences", None,
                        time.perf_counter() - t0)]
        scoring = self.scoring(seqs)
        threads = _numba.set_threads(self.threads)
        if len(seqs) == 1:
            tree = GuideTree(seqs.names, [], np.zeros(1), 0)
            return self._result(seqs, list(seqs.sequences), tree, stages)
        used, codes = self._compact(seqs)
        sc = engine.make_profile_scoring(scoring.table, used, scoring.gap_open,
                                         scoring.gap_extend, float(self.terminal))
        hmm = pair_hmm(self.pair_hmm, seqs.alphabet.name, used)
        tree_choice = self.tree_choice(seqs)
        source = tree_choice[0]
        exact = self.exact(seqs)
        if exact == "library" and _exact_bytes(seqs) > EXACT_TRIPLET_BYTES:
            raise OptionError(
                f"exact_triplet='library': three sequences of "
                f"{', '.join(str(int(x)) for x in seqs.lengths)} residues need about "
                f"{_exact_bytes(seqs):.3g} bytes for the exact 3-way alignment, beyond its "
                f"budget of {EXACT_TRIPLET_BYTES} bytes; use exact_triplet='off' (the merges)")
        design = self.library_design(seqs)
        if self.gpus is not None and design is None and source not in ("pairwise", "kmer"):
            raise OptionError("gpus: no consistency library and no k-mer guide tree is built "
                              "for this alignment, and only those take a list of GPUs")
        if (self.device == "gpu" and source not in ("triplet", "pair-score", "pairwise", "kmer")
                and not exact and design is None):
            raise OptionError(
                "device 'gpu': no stage of this alignment has a GPU path (without a "
                "consistency library, the given guide tree and the profile merges run on "
                "the CPU); use device 'cpu' or 'auto'")
        if (self.scheduler is not None and design is None and source != "pairwise"
                and not self.tree_on_workers(source)):
            raise OptionError("scheduler: no stage that runs on Dask workers (the "
                              "consistency library, the triplet or k-mer guide tree) is "
                              "built for this alignment")
        if float(self.triplet_votes) > 0 and scoring.linear and self.device == "gpu":
            raise OptionError("device 'gpu': the triplet votes' GPU tracebacks take affine "
                              "gaps; use device 'cpu' or 'auto' with linear gaps")
        if float(self.triplet_votes) > 0 and (design != "all" or len(seqs) < 3):
            raise OptionError(
                "triplet_votes need the consistency library of all pairs of at least three "
                "sequences, which is not built here (" + (
                    "fewer than three sequences" if len(seqs) < 3 else
                    "three aligned by the sum of pairs" if design is None else
                    "the pairs of these sequences are beyond its budget") + ")")
        with _numba.Precompiler(self._compile_ahead(seqs, source, exact, design, hmm, scoring),
                                max(0, min(threads - 1, MAX_COMPILE_HELPERS))):
            return self._stages(seqs, codes, sc, hmm, scoring, threads, progress, stages,
                                tree_choice, exact, design)

    def _compile_ahead(self, seqs, source, exact, design, hmm, scoring) -> list:
        """The jitted functions this alignment calls, in order, with their argument types
        and compile seconds, as :data:`COMPILED` lists them for its kind of run
        (:meth:`compile_kind`; none for a kind it does not list)."""
        import json

        kind = self.compile_kind(seqs, source, exact, design, hmm, scoring)
        try:
            return json.loads(COMPILED.read_text()).get(kind, []) if kind else []
        except (OSError, ValueError):
            return []

    def compile_kind(self, seqs, source, exact, design, hmm, scoring) -> str | None:
        """Which kind of run, for the jitted functions it calls, an alignment of ``seqs`` is:
        its library (design and device), guide-tree distances (for k-mers and triplets,
        where they run; for triplets, the gap model too), exact 3-way alignment (for the
        sum of pairs, where it runs), whether the library's pair HMM ``hmm`` is fitted to each pair, and where the
        triplet votes run (None with a Dask scheduler, fewer than three sequences or a
        device it cannot have)."""
        from .consistency import library_cells

        if self.scheduler is not None or len(seqs) < 3:
            return None
        from ..tree.distances import resolve_kmer_device
        from ..triplet.backends import resolve_device

        tree = source
        try:
            if design == "all" or source == "pairwise":
                device = self.library_device(library_cells(seqs.lengths))
            elif design == "tree":
                device = self.library_device(min(library_cells(seqs.lengths),
                                                 self.cell_budget("tree", len(seqs))))
            else:
                device = "none"
            if source == "kmer":
                tree += f" on {resolve_kmer_device(self.device, len(seqs), self.gpus)}"
            elif source == "triplet":   # the gap model picks the kernels
                gaps = "linear" if scoring.linear else "affine"
                tree += f" {gaps} on {resolve_device(self.device, announce=False)}"
            elif source == "pair-score":
                tree += f" on {resolve_device(self.device, announce=False)}"
            if exact == "sum-of-pairs":
                exact += f" on {self.exact_device(scoring)}"
            votes = (self.triplet_device(scoring) if float(self.triplet_votes) > 0
                     else None)
        except TrimsaError:   # the stage that needs the device says why, in its turn
            return None
        kind = f"library {design or 'none'} on {device}; tree {tree}; exact {exact or 'none'}"
        if ((design or source == "pairwise") and self.library_votes == "posterior"
                and hmm.odds.shape[0] == 0):
            kind += "; hmm fitted"
        if votes is not None:
            kind += f"; triplet votes on {votes}"
        return kind

    def _stages(self, seqs, codes, sc, hmm, scoring, threads, progress, stages, tree_choice,
                exact, design) -> "AlignmentResult":
        """The stages of :meth:`align` after its checks: library, guide tree, merges;
        ``tree_choice`` as :meth:`tree_choice` gave it."""
        source, tree_budget, why = tree_choice
        with self._workers() as workers:
            library = None
            if design == "all" or source == "pairwise":
                library = self._library(seqs, codes, sc, hmm, threads, progress, stages,
                                        workers=workers)
            t = time.perf_counter()
            tree = self._guide_tree(seqs, scoring, threads, source, tree_budget, library,
                                    workers, progress)
            stages.append(self._tree_stage(tree, source, time.perf_counter() - t, why))
            if float(self.triplet_votes) > 0:
                self._triplet_votes(seqs, codes, scoring, sc, library, threads, progress,
                                    stages)
            if exact == "sum-of-pairs":
                rows = self._exact_triplet(seqs, scoring, threads, stages)
                return self._result(seqs, rows, tree, stages)
            btree = tree.binary()
            if design == "tree":
                library = self._tree_library(seqs, codes, sc, hmm, btree, threads, progress,
                                             stages,
                                             workers)
                on_dask = self.scheduler is not None and source not in ("triplet", "kmer")
                on_gpu = (self.device == "gpu" or self.gpus is not None) and source not in (
                    "triplet", "kmer", "pair-score")
                if library is None and (on_dask or on_gpu):
                    if on_dask:
                        asked, where, instead = ("scheduler", "runs on Dask workers",
                                                 "leave the scheduler out")
                    else:
                        asked = "device 'gpu'" if self.device == "gpu" else "gpus"
                        where, instead = ("has a GPU path",
                                          "use device 'cpu' or 'auto' without gpus")
                    raise OptionError(
                        f"{asked}: the tree's library is not built ({stages[-1].method}), "
                        f"so no stage of this alignment {where}; {instead}, or a larger "
                        f"budget (max_library_cells)")
            elif design is None:
                library = None
        if exact == "library" and library is None and self.exact_triplet == "library":
            raise OptionError(f"exact_triplet='library': the library was not built "
                              f"({stages[-1].method}); raise max_library_cells or use "
                              f"the library of all pairs")
        if exact == "library" and library is not None:
            rows = self._library_triplet(seqs, btree, threads, library, design, stages)
        else:
            rows = self._walk(seqs, codes, sc, btree, threads, progress, library, design, stages)
        return self._result(seqs, rows, tree, stages)

    def _workers(self):
        """The Dask client of ``scheduler`` for the length of one alignment (a ``local:N``
        cluster is started once), or None without one."""
        import contextlib

        if self.scheduler is None:
            return contextlib.nullcontext(None)
        from ..triplet.distributed import connect

        return connect(self.scheduler, device=self.device)

    def _exact_triplet(self, seqs, scoring, threads, stages) -> list:
        from ..triplet import align_triplets

        t = time.perf_counter()
        device = self.exact_device(scoring)
        from ..triplet.pruned import Work

        work = Work()
        aln = align_triplets(seqs, [[0, 1, 2]], scoring=scoring, threads=threads,
                             device=device, work=work)[0]
        cells = _cube_cells(seqs)
        method = f"optimal alignment (score {aln.score})"
        if work.swept_cells < work.cube_cells:
            method += (f"; {100 * work.swept_cells / work.cube_cells:.2g}% of the cube "
                       f"swept (bound-pruned)")
        stages.append(Stage("exact 3-way", method, device, 1, "triplets", cells,
                            time.perf_counter() - t))
        return list(aln.rows)

    def exact_device(self, scoring) -> str:
        """Where the exact sum-of-pairs alignment of three sequences runs: ``device``
        resolved, except that ``"auto"`` with linear gaps means the CPU (the GPU's
        tracebacks take affine gaps)."""
        from ..triplet.backends import resolve_device

        device = "cpu" if scoring.linear and self.device == "auto" else self.device
        return resolve_device(device, announce=False)

    def distance_source(self, seqs: SequenceSet) -> str:
        """The guide tree's distance source for ``seqs`` (``"auto"`` resolved)."""
        return self.tree_choice(seqs)[0]

    def tree_choice(self, seqs: SequenceSet) -> tuple:
        """``(source, time_budget, why)``: the guide tree's distance source for ``seqs``
        (``"auto"`` resolved), the seconds its triplet or pair-score stage may spend (None:
        the stage's default) and, for ``"auto"``, why (else ``""``)."""
        if self.guide_tree is not None:
            return "given", None, ""
        if self.tree_distances != "auto":
            return self.tree_distances, self.tree_time_budget, ""
        fallback = self._fallback_source(seqs)
        n = len(seqs)
        if n < TRIPLET_TREE_MIN_SEQUENCES or seqs.alphabet.name == "protein":
            return fallback, None, ""
        from ..triplet.backends import resolve_device
        from ..tree.distances import affordable_triplets, n_all_triplets

        nthreads = _numba.set_threads(self.threads)
        try:
            device = resolve_device(self.device, announce=False)
            # on the CPU estimated at one thread and shared out, so that the triplets (and
            # the alignment) do not depend on the thread count
            rest = (self.rest_seconds(seqs, 1) / nthreads if device == "cpu"
                    else self.rest_seconds(seqs, nthreads))
        except TrimsaError:   # the stage that needs the device says why, in its turn
            return fallback, None, ""
        if self.tree_time_budget is not None:
            budget, what = float(self.tree_time_budget), "tree_time_budget"
        else:
            budget = TRIPLET_TREE_SHARE * rest
            what = "the rest of the run's estimate"
        count = affordable_triplets(seqs, self.scoring(seqs), budget, device=device,
                                    nthreads=nthreads)
        need = min(n_all_triplets(n), MIN_TREE_TRIPLETS * n)
        if count >= need:
            return "triplet", budget, f"budget {budget:.3g} s ({what})"
        return fallback, None, (f"not from triplets: {need} triplets would not fit "
                                f"{budget:.3g} s ({what})")

    def tree_on_workers(self, source: str) -> bool:
        """Whether the guide tree of ``source`` goes to the Dask workers of ``scheduler``:
        the k-mer tree and the triplet tree asked for by name. ``auto``'s triplet tree keeps
        to this process, whose rates its budget and its design follow, so that the run is
        the same with and without workers."""
        return source == "kmer" or (source == "triplet" and self.tree_distances == "triplet")

    def rest_seconds(self, seqs: SequenceSet, nthreads: int) -> float:
        """Estimated seconds of the stages after the guide tree: the consistency library's
        DP cells (its tree's pairs estimated as :data:`TREE_PAIRS_PER_SEQUENCE` per
        sequence) at :data:`LIBRARY_RATES` on its device plus :data:`LIBRARY_SECONDS`,
        and the merges at
        :data:`MERGE_SHARE` of that library's time on the CPU (at least ``n L^2``
        cells' worth without a library), with ``nthreads`` CPU threads."""
        from .consistency import library_cells

        n = len(seqs)
        side = float(np.mean(seqs.lengths)) + 1.0
        design = self.library_design(seqs)
        if design == "all":
            cells = float(library_cells(seqs.lengths))
        elif design == "tree":
            cells = min(TREE_PAIRS_PER_SEQUENCE * n * side ** 2, self.cell_budget("tree", n))
        else:
            cells = n * side ** 2
        cpu = cells / (LIBRARY_RATES["cpu"] * nthreads)
        library = cpu
        if design is not None and self.library_device(cells) == "gpu":
            library = cells / LIBRARY_RATES["gpu"]
        return (LIBRARY_SECONDS if design is not None else 0.0) + library + MERGE_SHARE * cpu

    def _fallback_source(self, seqs: SequenceSet) -> str:
        """``"auto"``'s source where the triplet tree does not fit: the library's pairwise
        distances, the pair-score tree or k-mers (see :data:`TREE_DISTANCES`)."""
        design = self.library_design(seqs)
        if design == "all":
            return "pairwise"
        from ..tree.distances import pair_score_cells

        if (design == "tree" and len(seqs) <= PAIR_SCORE_TREE_SEQUENCES
                and pair_score_cells(seqs.lengths) <= PAIR_SCORE_TREE_CELLS
                and _lengths_within(seqs.lengths, PAIR_SCORE_TREE_LENGTHS)):
            return "pair-score"
        return "kmer"

    def exact(self, seqs: SequenceSet) -> str | None:
        """How ``seqs`` are aligned exactly: ``"library"`` or ``"sum-of-pairs"`` (three
        sequences, see ``exact_triplet``), or None (progressively)."""
        if len(seqs) != 3 or self.exact_triplet == "off":
            return None
        if self.exact_triplet != "auto":
            return self.exact_triplet
        if (float(self.consistency) > 0 and _cube_cells(seqs) <= EXACT_TRIPLET_CELLS
                and _exact_bytes(seqs) <= EXACT_TRIPLET_BYTES):
            return "library"
        return None

    def _library_triplet(self, seqs, btree, threads, library, design, stages) -> list:
        from .consistency import pick_witnesses

        t = time.perf_counter()
        library.set_witnesses(pick_witnesses(len(seqs), btree.leaves(),
                                             self.witnesses_for(design)))
        moves, support = library.best_triplet(seqs.lengths, threads)
        cells = _cube_cells(seqs)
        stages.append(Stage("exact 3-way", f"alignment of the most library support "
                            f"({support:.4g}; exact)", "cpu", 1, "triplets", cells,
                            time.perf_counter() - t))
        positions = [np.flatnonzero((moves >> d) & 1) for d in range(3)]
        return engine.assemble(positions, moves.size, seqs.sequences)

    def _library(self, seqs, codes, sc, hmm, threads, progress, stages, pairs=None,
                 design=None, workers=None, slots=None):
        """The library of all pairs, or of ``pairs`` (described by ``design``), on the Dask
        client ``workers`` when given, with ``slots`` partners per residue (default
        :attr:`slots`) and the posteriors of the pair HMM ``hmm``."""
        from .consistency import all_pairs, build_library, library_bytes, library_cells, pairs_cost

        if pairs is None:
            cells = library_cells(seqs.lengths)
            if not self.library_affordable(seqs):
                asked = ("library='all' needs" if self.library == "all"
                         else "pairwise guide-tree distances need")
                raise OptionError(
                    f"{asked} all {len(seqs) * (len(seqs) - 1) // 2} pairwise alignments "
                    f"({cells:.3g} cells, {library_bytes(seqs.lengths, self.slots):.3g} bytes "
                    f"of maps), "
                    f"beyond the budget of {self.cell_budget('all'):.3g} cells or "
                    f"{LIBRARY_BYTES} bytes; use the kmer or triplet distances with the "
                    f"library 'auto' or 'tree'")
            pairs = all_pairs(len(seqs))
            design = "all pairs"
        else:
            cells = pairs_cost(seqs.lengths, pairs)[0]
        t = time.perf_counter()
        step = None if progress is None else (lambda done, total: progress(done, total, "library"))
        gpus = None
        if workers is not None:
            device = self.device
        else:
            device = self.library_device(cells)
        if device == "gpu" and workers is None:
            from . import _gpu

            gpus = _gpu.devices(self.gpus)
        library = build_library(codes, sc.table[:-1, :-1], sc.gap_open, sc.gap_extend, sc.term,
                                pairs=pairs, weight=float(self.consistency),
                                witnesses=np.zeros(0, np.int64), posterior=self.posterior,
                                hmm=hmm, slots=slots, threads=threads, progress=step, device=device,
                                gpus=gpus, scheduler=workers)
        if workers is not None:
            from ..triplet.distributed import describe_workers

            device = describe_workers(workers, device)
        what = "global affine pairwise alignments"
        if self.posterior:
            what += (f" and match posteriors of the {hmm.describe()} "
                     f"({library.n_posterior} pairs; the others' were not finite and they "
                     f"vote with their alignment)"
                     if library.n_posterior < library.n_pairs else
                     f" and their match posteriors of the {hmm.describe()}")
        if gpus is not None and len(gpus) > 1:
            design += f", on GPUs {','.join(map(str, gpus))}"
        stages.append(Stage("library", f"{what}, {design}", device, library.n_pairs, "pairs",
                            cells, time.perf_counter() - t))
        return library

    def library_device(self, cells: float) -> str:
        """Where a library of ``cells`` DP cells is built: ``"cpu"`` or ``"gpu"``."""
        from ..triplet.backends import resolve_device

        if self.gpus is not None:   # GPUs named: the library goes there
            return resolve_device("gpu", announce=False)
        if self.device == "auto" and cells < GPU_LIBRARY_CELLS:
            return "cpu"
        return resolve_device(self.device, announce=False)

    def _tree_library(self, seqs, codes, sc, hmm, btree, threads, progress, stages,
                      workers=None):
        """The library of the pairs drawn along ``btree``, as many per merge and partners
        per residue as the budget allows (``pairs_per_merge`` and :attr:`slots`; over it,
        the partners halve first, then the pairs); None, with a stage saying why, when
        fewer than :data:`MIN_PAIRS_PER_MERGE` per merge with one partner would fit."""
        from .consistency import pairs_cost, tree_pairs

        budget = self.cell_budget("tree", len(seqs))
        per = self.pairs_per_merge
        while True:
            pairs = tree_pairs(btree, per)
            slots = self.slots
            while True:
                cells, nbytes = pairs_cost(seqs.lengths, pairs, slots)
                if cells <= budget and nbytes <= TREE_LIBRARY_BYTES:
                    design = f"up to {per} per merge of the guide tree"
                    if slots < self.slots:
                        design += (f", {slots} posterior partner{'s' if slots > 1 else ''}"
                                   f" per residue (of {self.slots}: the maps' budget)")
                    return self._library(seqs, codes, sc, hmm, threads, progress, stages, pairs,
                                         design, workers, slots)
                if slots == 1 or cells > budget:
                    break
                slots //= 2
            if per // 2 < min(MIN_PAIRS_PER_MERGE, self.pairs_per_merge):
                stages.append(Stage(
                    "library", f"none: {per} pairs per merge need {cells:.3g} cells and "
                    f"{nbytes:.3g} bytes of maps ({slots} partner{'s' if slots > 1 else ''} "
                    f"per residue), beyond the tree library's budget of {budget:.3g} cells "
                    f"or {TREE_LIBRARY_BYTES} bytes",
                    "cpu", 0, "pairs", None, 0.0))
                return None
            per //= 2

    def _guide_tree(self, seqs, scoring, threads, source, seconds, library, workers=None,
                    progress=None) -> GuideTree:
        """The guide tree from ``source``; ``seconds``: its triplet or pair-score stage's
        budget (None: the stage's default)."""
        if source == "given":
            return GuideTree.read(self.guide_tree, seqs.names)
        if source == "kmer":
            return build_guide_tree(seqs, distances="kmer", method=self.method, threads=threads,
                                    device=self.device, gpus=self.gpus, scheduler=workers,
                                    progress=progress)
        if source == "pairwise":
            return self._pairwise_tree(seqs, library)
        budget = {} if seconds is None else {"time_budget": float(seconds)}
        if source == "triplet" and len(seqs) == 2:   # one tree only, no triplet to score
            return GuideTree(seqs.names, [(0, 1)], np.zeros(3), 2, method=self.method)
        from ..triplet.backends import resolve_device

        # resolved here, quietly, as the other stages are: -v names the device. The
        # pair-score tree is scored in this process; Dask workers resolve their own.
        on_workers = self.tree_on_workers(source) and workers is not None
        device = self.device if on_workers else resolve_device(self.device, announce=False)
        extra = {"scheduler": workers} if on_workers else {}
        with _on_gpu(self.gpus[0] if self.gpus else None):
            return build_guide_tree(seqs, distances=source, method=self.method,
                                    scoring=scoring, device=device, threads=threads,
                                    progress=progress, **budget, **extra)

    def _triplet_votes(self, seqs, codes, scoring, sc, library, threads, progress, stages):
        """Mix the votes of banded exact 3-way alignments into ``library``
        (:func:`~trimsa.progressive.triplets.add_triplet_votes`), as many third sequences
        per pair as the budget allows."""
        from .consistency import all_pairs
        from .triplets import TRIPLET_CELLS, add_triplet_votes, triplet_cells

        width = int(self.triplet_width)
        device = self.triplet_device(scoring)
        budget = TRIPLET_CELLS[device]
        per = triplet_cells(seqs.lengths, all_pairs(len(seqs)), 1, width)
        thirds = min(int(self.triplet_thirds), len(seqs) - 2, int(budget // per))
        if thirds < 1:
            raise OptionError(
                f"triplet_votes: one third sequence per pair needs about {per:.3g} band cells, "
                f"beyond the budget of {budget:.3g} on the {device}; use a narrower "
                f"triplet_width or fewer sequences")
        t = time.perf_counter()
        step = None if progress is None else (
            lambda done, total: progress(done, total, "triplets"))
        with _on_gpu(self.gpus[0] if device == "gpu" and self.gpus else None):
            info = add_triplet_votes(library, seqs, codes, scoring, sc,
                                     _library_distances(seqs, library), thirds=thirds,
                                     width=width, share=float(self.triplet_votes),
                                     threads=threads, progress=step, device=device)
        method = (f"exact affine 3-way alignments of each pair with {thirds} third "
                  f"sequence{'s' if thirds > 1 else ''} near it, in a band of {width} around "
                  f"the pairwise paths; {float(self.triplet_votes):g} of the library's votes")
        if thirds < min(int(self.triplet_thirds), len(seqs) - 2):
            method += f" ({thirds} of {self.triplet_thirds} thirds: the budget)"
        stages.append(Stage("triplets", method, device, info["triplets"], "triplets",
                            info["cells"], time.perf_counter() - t))

    def triplet_device(self, scoring) -> str:
        """Where the triplet votes' alignments run: the GPU with ``device`` ``"gpu"``, or
        ``"auto"`` when CuPy sees one; the CPU with linear gaps (the GPU's tracebacks take
        affine gaps; :meth:`align` refuses ``"gpu"`` then) or ``device="cpu"``."""
        from ..triplet.backends import resolve_device

        if scoring.linear:
            return "cpu"
        return resolve_device(self.device, announce=False)

    def _pairwise_tree(self, seqs, library) -> GuideTree:
        from ..tree import Distances
        from .consistency import library_cells

        t = time.perf_counter()
        D = _library_distances(seqs, library)
        n = len(seqs)
        dist = Distances(seqs.names, D, "pairwise",
                         {"pairs": n * (n - 1) // 2, "cells": library_cells(seqs.lengths)})
        tree = METHODS[self.method](D, seqs.names)
        tree.distances = dist
        tree.timings = {self.method: time.perf_counter() - t}
        return tree

    def _tree_stage(self, tree, source, seconds, why: str = "") -> "Stage":
        n = len(tree.names)
        if source == "given":
            return Stage("guide tree", "given", "cpu", n, "sequences", None, seconds)
        dist = tree.distances
        method = f"{tree.method} of {dist.describe()}" if dist is not None else tree.method
        if why:
            method += f"; {why}"
        if source == "triplet":
            if dist is None:   # two sequences: one tree, no triplet scored
                return Stage("guide tree", f"{tree.method} of two sequences", "cpu", 0,
                             "triplets", None, seconds)
            if dist.info.get("swept_share") is not None:
                method += (f"; {100 * dist.info['swept_share']:.2g}% of the cube cells swept "
                           f"(bound-pruned cubes)")
            return Stage("guide tree", method, dist.info["device"], dist.info["n_triplets"],
                         "triplets", dist.info.get("cells"), seconds)
        # the pairwise alignments' cells are the library stage's; the pair scores' its own
        cells = dist.info.get("cells") if source == "pair-score" else None
        return Stage("guide tree", method, dist.info.get("device", "cpu"),
                     dist.info.get("prior_pairs", n * (n - 1) // 2), "pairs", cells, seconds)

    def _compact(self, seqs):
        used = np.unique(seqs.codes)
        lut = np.zeros(256, np.int64)
        lut[used] = np.arange(used.size)
        codes = [lut[seqs.code(i)] for i in range(len(seqs))]
        return used, codes

    def _walk(self, seqs, codes, sc, btree, threads, progress, library, design, stages):
        from .consistency import pick_witnesses

        t = time.perf_counter()
        if library is not None:
            library.set_witnesses(pick_witnesses(len(seqs), btree.leaves(),
                                                 self.witnesses_for(design)))
        step = None if progress is None else (lambda done, total: progress(done, total, "merges"))
        walk = engine.Walk(btree, codes, engine.tree_weights(btree), sc, threads=threads,
                           progress=step, library=library)
        walk.run()
        positions, width = walk.positions()
        rows = engine.assemble(positions, width, seqs.sequences)
        method = "profile DP"
        if library is not None:
            method += (f" with the consistency library (weight {float(self.consistency):g}, "
                       f"{library.witnesses.size} witnesses)")
        stages.append(Stage("merges", method, "cpu", len(seqs) - 1, "merges", walk.cells,
                            time.perf_counter() - t))
        return rows

    def library_affordable(self, seqs: SequenceSet) -> bool:
        """Whether all pairwise alignments of ``seqs`` fit the budget of cells
        (:meth:`cell_budget`) and their residue maps :data:`LIBRARY_BYTES`."""
        from .consistency import library_bytes, library_cells

        return (library_cells(seqs.lengths) <= self.cell_budget("all")
                and library_bytes(seqs.lengths, self.slots) <= LIBRARY_BYTES)

    def cell_budget(self, design: str, n: int = 0) -> float:
        """DP cells the library of ``design`` (``"all"`` or ``"tree"``) of ``n`` sequences
        may spend."""
        if self.max_library_cells is not None:
            return float(self.max_library_cells)
        if design == "all":
            return LIBRARY_CELLS
        return max(TREE_LIBRARY_CELLS, TREE_LIBRARY_CELLS_PER_SEQUENCE * n)

    @property
    def posterior(self) -> bool:
        """Whether the library votes with pair-HMM posteriors."""
        return self.library_votes == "posterior"

    @property
    def slots(self) -> int:
        """Partners the library keeps per residue."""
        from .consistency import POSTERIOR_SLOTS

        return POSTERIOR_SLOTS if self.posterior else 1

    def library_design(self, seqs: SequenceSet) -> str | None:
        """Which consistency library is built for ``seqs``: ``"all"`` pairs, the ``"tree"``'s
        pairs, or None (weight 0, one sequence, or three aligned by the sum of pairs)."""
        if float(self.consistency) <= 0 or len(seqs) < 2 or self.exact(seqs) == "sum-of-pairs":
            return None
        if self.library == "auto":
            return "all" if self.library_affordable(seqs) else "tree"
        return self.library

    def witnesses_for(self, design: str | None) -> int | None:
        """How many third sequences vote in the library of ``design`` (None = all)."""
        if self.max_witnesses != "auto":
            return self.max_witnesses
        return MAX_WITNESSES if design == "all" else None

    def _result(self, seqs, rows, tree, stages) -> "AlignmentResult":
        return AlignmentResult(names=tuple(seqs.names), descriptions=tuple(seqs.descriptions),
                               rows=tuple(rows), guide=tree, alphabet=seqs.alphabet.name,
                               stages=tuple(stages))


def _lengths_within(lengths, shares) -> bool:
    """Whether every length lies within ``shares`` (low, high) of the median length."""
    L = np.asarray(lengths, float)
    med = float(np.median(L))
    return bool(L.min() >= shares[0] * med and L.max() <= shares[1] * med)


def _cube_cells(seqs: SequenceSet) -> float:
    """Cells of the 3-way DP cube of ``seqs`` (three sequences)."""
    return float(np.prod(np.asarray(seqs.lengths, float) + 1))


def _exact_bytes(seqs: SequenceSet) -> float:
    """Bytes the exact 3-way alignment of most library support of ``seqs`` holds at once
    (:data:`EXACT_TRIPLET_BYTES`)."""
    la, lb, lc = (float(x) + 1 for x in seqs.lengths)
    return 24 * (la * lb + la * lc + lb * lc)


def _on_gpu(gpu):
    """The context of CuPy device ``gpu``, or none for None."""
    import contextlib

    if gpu is None:
        return contextlib.nullcontext()
    import cupy

    return cupy.cuda.Device(int(gpu))


def _library_distances(seqs, library) -> np.ndarray:
    """Corrected distances (:func:`corrected_distance`) of the library's pairwise
    alignments, 0 on the diagonal."""
    D = corrected_distance(1.0 - library.identities(),
                           20 if seqs.alphabet.name == "protein" else 4)
    np.fill_diagonal(D, 0.0)
    return D


@dataclass(frozen=True)
class Stage:
    """What one stage of an alignment did: ``method`` on ``device``, ``items``
    ``unit`` (pairs, triplets, merges), ``cells`` of dynamic programming
    (``None`` where the stage fills none) in ``seconds``."""

    name: str
    method: str
    device: str
    items: int
    unit: str
    cells: float | None
    seconds: float

    def line(self) -> str:
        cells = "" if self.cells is None else f", {self.cells:.3g} cells"
        unit = self.unit[:-1] if self.items == 1 and self.unit.endswith("s") else self.unit
        return (f"{self.name}: {self.method}; {self.device}, {self.items} {unit}{cells}, "
                f"{self.seconds:.3f} s")


@dataclass(frozen=True)
class AlignmentResult:
    """A multiple alignment, its guide tree and the time each stage took.

    Attributes
    ----------
    names, descriptions, rows
        The aligned rows in input order (input characters and ``-``).
    guide
        The guide tree (:class:`~trimsa.tree.GuideTree`).
    alphabet
        ``"dna"`` for nucleotides, DNA and RNA alike (one alphabet, ``U`` read as
        ``T``; the rows keep the input's letters, and :attr:`alignment` marks rows
        with a ``U`` as RNA), or ``"protein"``.
    stages
        What each stage did and how long it took (:class:`Stage`).
    """

    names: tuple
    descriptions: tuple
    rows: tuple
    guide: object = field(repr=False)
    alphabet: str = "dna"
    stages: tuple = ()

    @property
    def timings(self) -> dict:
        """Seconds per stage."""
        return {s.name: s.seconds for s in self.stages}

    @property
    def alignment(self):
        """The alignment as a :class:`Bio.Align.MultipleSeqAlignment`."""
        from Bio.Align import MultipleSeqAlignment
        from Bio.Seq import Seq
        from Bio.SeqRecord import SeqRecord

        mol = ("protein" if self.alphabet == "protein" else
               "RNA" if any("U" in r or "u" in r for r in self.rows) else "DNA")
        recs = [SeqRecord(Seq(r), id=n, name=n, description=d,
                          annotations={"molecule_type": mol})
                for n, d, r in zip(self.names, self.descriptions, self.rows)]
        return MultipleSeqAlignment(recs)

    @property
    def tree(self):
        """The guide tree as a ``dendropy.Tree``."""
        return self.guide.to_dendropy()

    def newick(self) -> str:
        """The guide tree as one line of Newick."""
        return self.guide.newick()

    def __len__(self) -> int:
        return len(self.rows[0]) if self.rows else 0

    def write(self, path=None, format: str = "fasta") -> None:
        """Write the alignment to ``path`` (None or ``"-"``: standard output; an open text
        file: :meth:`write_to`)."""
        if hasattr(path, "write"):
            self.write_to(path, format)
            return
        _check_choice(format, tuple(FORMATS), "output format")
        check_names_for_format(self.names, format)
        with atomic_output(path) as fh:
            self.write_to(fh, format)

    def write_to(self, handle, format: str = "fasta") -> None:
        _check_choice(format, tuple(FORMATS), "output format")
        check_names_for_format(self.names, format)
        if format == "fasta":
            for d, r in zip(self.descriptions, self.rows):
                handle.write(f">{d}\n{r}\n")
            return
        from Bio import AlignIO

        AlignIO.write(self.alignment, handle, FORMATS[format])


def align(sequences, *, progress=None, format: str | None = None, **options) -> AlignmentResult:
    """Align ``sequences`` with an :class:`Aligner` made from ``options``; ``progress``
    and ``format`` as :meth:`Aligner.align` takes them."""
    return Aligner(**options).align(sequences, progress=progress, format=format)
