"""Score triplet alignments (trimsa and peers) against the references, by groups of cases.

Library::

    from score import evaluate_groups, trimsa_linear
    res = evaluate_groups(["tune"], aligner=trimsa_linear(gap=-3))
    res["real/tune"].mean("trimsa")      # {'spfn': ..., 'spfp': ..., 'tc': ..., 'n': 240}
    res["real/tune"].per_case["muscle"]  # {case: trimsa.evaluate.Scores}

CLI (from the repository root)::

    python eval/experiments/2026-11-24-affine-triplets/score.py --groups tune [--trimsa-linear]
        [--match 1 --mismatch -1 --gap -3] [--peers mafft-linsi muscle ...] [--tc]
        [--out table.md] [--tsv per_case.tsv]

Groups (a case is a folder with ``input.fa``, ``true.fa`` and ``peers/*.fa``):

=========================  ===================================================================
``sim/trip-indel``         ``<data>/sim/trip-indel-*`` (old development set: defaults tuned here)
``sim/trip-noindel``       ``<data>/sim/trip-noindel-*`` (not in ``tune``; by name only)
``sim2/<split>/trip-geo``  ``<data>/sim2/<split>/trip-geo-*`` (tune only: validate has none)
``sim2/<split>/trip-pow``  ``<data>/sim2/<split>/trip-pow-*``
``real/<split>``           ``.cache/affine-triplets/real/<split>/*`` (drawn by draw.py)
=========================  ===================================================================

Aliases: ``tune`` = sim/trip-indel, sim2/tune/trip-geo, sim2/tune/trip-pow, real/tune;
``validate`` = the sim2/validate/trip-* groups and real/validate. The CLI refuses to run
trimsa on a validate group unless ``--allow-validate-trimsa`` (report time only).

Scoring is :func:`trimsa.evaluate.compare` (FastSP's SPFN, SPFP, TC). It matches rows by
the first word of the record names and ignores case; it does *not* equate U and T, so
both sides go through :func:`normalise_rows` (U -> T, u -> t) first. An estimate that
is missing for a case is left out of that method's mean (the table says ``n=`` when a
mean covers fewer cases than the group); an estimate that cannot be scored (other names
or residues) is recorded in ``GroupResult.errors`` and left out as well.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
# TRIMSA_SRC=<folder holding trimsa/> scores a given tree (e.g. a `git archive` of the base
# commit) instead of this checkout, whose working tree may be in flux.
sys.path.insert(0, os.environ.get("TRIMSA_SRC") or str(ROOT))

from trimsa.evaluate import Scores, compare, read_alignment  # noqa: E402

DATA = (ROOT / ".." / "shared" / "data").resolve()
CACHE = ROOT / ".cache" / "affine-triplets"

#: Peer outputs scored by default (``peers/<name>.fa``); absent files are skipped.
#: ``*-projected`` exist for the real triplets only: the family alignment restricted
#: to the three records (see peers.py), not the tool run on the triplet.
DEFAULT_PEERS = ("mafft-linsi", "muscle", "mafft", "twilight",
                 "twilight-projected", "mafft-linsi-projected", "muscle-projected")

ALIASES = {
    "tune": ("sim/trip-indel", "sim2/tune/trip-geo", "sim2/tune/trip-pow", "real/tune"),
    "validate": ("sim2/validate/trip-geo", "sim2/validate/trip-pow", "real/validate"),
}

Aligner = Callable[[list], Sequence[str]]


# --------------------------------------------------------------------------- cases

def group_cases(group: str, data: Path = DATA, cache: Path = CACHE) -> list:
    """The case folders of a named group (sorted; may be empty)."""
    parts = group.split("/")
    if parts[0] == "sim" and len(parts) == 2 and parts[1].startswith("trip-"):
        return sorted(p for p in (data / "sim").glob(f"{parts[1]}-*") if p.is_dir())
    if parts[0] == "sim2" and len(parts) == 3 and parts[2].startswith("trip-"):
        return sorted(p for p in (data / "sim2" / parts[1]).glob(f"{parts[2]}-*") if p.is_dir())
    if parts[0] == "real" and len(parts) == 2:
        base = cache / "real" / parts[1]
        return sorted(p for p in base.iterdir() if p.is_dir()) if base.is_dir() else []
    raise ValueError(f"unknown group {group!r}")


def expand_groups(groups: Iterable[str]) -> list:
    """Group names with the aliases ``tune`` / ``validate`` expanded (order kept, no repeats)."""
    out = []
    for g in groups:
        for name in ALIASES.get(g, (g,)):
            if name not in out:
                out.append(name)
    return out


def is_validate(group: str) -> bool:
    return "validate" in group.split("/")


# --------------------------------------------------------------------------- scoring

def normalise_rows(rows) -> list:
    """``(name, row)`` pairs with names cut to their first word and U/u read as T/t."""
    table = str.maketrans("Uu", "Tt")
    return [(str(n).split(None, 1)[0], str(r).translate(table)) for n, r in rows]


def score(reference, estimate) -> Scores:
    """SPFN, SPFP, TC (and the rest of :class:`trimsa.evaluate.Scores`) of ``estimate``.

    ``reference`` and ``estimate`` are FASTA paths or lists of ``(name, row)``; rows are
    matched by name (first word), case is ignored, U equals T.
    """
    ref = normalise_rows(read_alignment(reference))
    est = normalise_rows(read_alignment(estimate))
    return compare(ref, est)


def read_records(path) -> list:
    """Unaligned ``(name, sequence)`` pairs of a case's ``input.fa`` (names: first word)."""
    return [(n, s) for n, s in read_alignment(path)]


def run_aligner(aligner: Aligner, records: list) -> list:
    """``aligner(records)`` as ``(name, row)`` pairs in input order, checked for shape."""
    rows = list(aligner(records))
    if len(rows) != len(records):
        raise ValueError(f"aligner returned {len(rows)} rows for {len(records)} sequences")
    if len({len(r) for r in rows}) != 1:
        raise ValueError("aligner returned rows of unequal length")
    return [(n, str(r)) for (n, _s), r in zip(records, rows)]


# --------------------------------------------------------------------------- groups

@dataclass
class GroupResult:
    """Scores of every method on every case of one group.

    Attributes
    ----------
    name
        The group's name (``real/tune``, ``sim2/tune/trip-pow``, ...).
    cases
        Case names (folder names), in order.
    per_case
        ``method -> {case: Scores}`` for the cases where the method has a scored output.
    errors
        ``method -> {case: message}`` for outputs that could not be scored.
    seconds
        ``method -> wall seconds`` for methods run here (``trimsa``, in-process).
    """

    name: str
    cases: list
    per_case: dict = field(default_factory=dict)
    errors: dict = field(default_factory=dict)
    seconds: dict = field(default_factory=dict)

    @property
    def methods(self) -> list:
        return list(self.per_case)

    def mean(self, method: str) -> dict:
        """Mean ``spfn``, ``spfp``, ``tc`` over the cases scored for ``method``, and ``n``.

        Means are over the cases where the ratio is defined (not ``nan``); ``n`` is
        the number of cases scored.
        """
        scores = list(self.per_case.get(method, {}).values())
        out = {"n": len(scores)}
        for key in ("spfn", "spfp", "tc"):
            vals = [getattr(s, key) for s in scores if not math.isnan(getattr(s, key))]
            out[key] = sum(vals) / len(vals) if vals else math.nan
        return out

    def means(self) -> dict:
        return {m: self.mean(m) for m in self.per_case}


def evaluate_groups(groups, aligner: Aligner | None = None,
                    peers: Sequence[str] = DEFAULT_PEERS, *,
                    data: Path = DATA, cache: Path = CACHE) -> dict:
    """Score peers (and ``aligner`` as ``"trimsa"``) on groups of triplet cases.

    Parameters
    ----------
    groups
        Group names or aliases (``"tune"``, ``"validate"``, ``"real/tune"``,
        ``"sim2/tune/trip-pow"``, ...; see the module docstring), or a mapping
        ``name -> list of case folders``.
    aligner
        Optional ``aligner(records) -> 3 aligned strings`` in input order, where
        ``records`` is the case's ``input.fa`` as ``(name, sequence)`` pairs; scored
        as method ``"trimsa"`` and timed (wall seconds in ``GroupResult.seconds``).
    peers
        Names of the stored outputs ``peers/<name>.fa`` to score where present.

    Returns
    -------
    dict
        ``group name -> GroupResult`` (per-case :class:`~trimsa.evaluate.Scores` and
        :meth:`GroupResult.mean`), in the order given.
    """
    if isinstance(groups, Mapping):
        named = {g: [Path(p) for p in cases] for g, cases in groups.items()}
    else:
        if isinstance(groups, str):
            groups = [groups]
        named = {g: group_cases(g, data, cache) for g in expand_groups(groups)}
    results = {}
    for gname, cases in named.items():
        res = GroupResult(gname, [c.name for c in cases])
        methods = (["trimsa"] if aligner is not None else []) + list(peers)
        for m in methods:
            res.per_case[m] = {}
            res.errors[m] = {}
        if aligner is not None:
            res.seconds["trimsa"] = 0.0
        for case in cases:
            ref = case / "true.fa"
            if aligner is not None:
                try:
                    records = read_records(case / "input.fa")
                    t0 = time.perf_counter()
                    rows = run_aligner(aligner, records)
                    res.seconds["trimsa"] += time.perf_counter() - t0
                    res.per_case["trimsa"][case.name] = score(ref, rows)
                except Exception as exc:  # recorded, never silently dropped
                    res.errors["trimsa"][case.name] = f"{type(exc).__name__}: {exc}"
            for p in peers:
                est = case / "peers" / f"{p}.fa"
                if not est.exists():
                    continue
                try:
                    res.per_case[p][case.name] = score(ref, est)
                except Exception as exc:
                    res.errors[p][case.name] = f"{type(exc).__name__}: {exc}"
        # methods with no output anywhere in the group are dropped
        for m in list(res.per_case):
            if not res.per_case[m] and not res.errors[m]:
                del res.per_case[m], res.errors[m]
        results[gname] = res
    return results


# --------------------------------------------------------------------------- trimsa

def trimsa_linear(match: int = 1, mismatch: int = -1, gap: int = -3, mode: str = "global",
                  threads: int = 1) -> Aligner:
    """An aligner: trimsa's exact 3-way alignment with linear gaps (current API).

    ``trimsa.triplet.api.align_triplets(seqs, [[0, 1, 2]], mode, scoring)`` with
    ``Scoring.dna(match, mismatch, gap=gap)``; returns the three rows in input order.
    """
    from trimsa.io import as_sequence_set
    from trimsa.scoring import Scoring
    from trimsa.triplet.api import align_triplets

    scoring = Scoring.dna(match=match, mismatch=mismatch, gap=gap)

    def align(records):
        if len(records) != 3:
            raise ValueError(f"a triplet aligner needs 3 sequences, got {len(records)}")
        seqs = as_sequence_set([(n, s) for n, s in records], scoring.alphabet)
        (aln,) = align_triplets(seqs, [[0, 1, 2]], mode=mode, scoring=scoring, threads=threads)
        if list(aln.names) != [n for n, _s in records]:
            raise ValueError(f"rows came back as {aln.names}")
        return list(aln.rows)

    align.__name__ = f"trimsa_linear(match={match}, mismatch={mismatch}, gap={gap}, mode={mode})"
    return align


# --------------------------------------------------------------------------- tables

def _fmt(x: float) -> str:
    return "nan" if math.isnan(x) else f"{x:.4f}"


def markdown_table(results: dict, keys=("spfn", "spfp")) -> str:
    """One row per group: cases, then ``SPFN / SPFP`` (``keys``) of every method."""
    methods = []
    for res in results.values():
        for m in res.per_case:
            if m not in methods:
                methods.append(m)
    head = "| group | cases | " + " | ".join(
        f"{m} {' / '.join(k.upper() for k in keys)}" for m in methods) + " |"
    lines = [head, "|---|---:|" + "---|" * len(methods)]
    for g, res in results.items():
        cells = []
        for m in methods:
            if m not in res.per_case or not res.per_case[m]:
                cells.append("–")
                continue
            mean = res.mean(m)
            cell = " / ".join(_fmt(mean[k]) for k in keys)
            if mean["n"] != len(res.cases):
                cell += f" (n={mean['n']})"
            cells.append(cell)
        lines.append(f"| {g} | {len(res.cases)} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def per_case_tsv(results: dict) -> str:
    lines = ["group\tcase\tmethod\tspfn\tspfp\ttc"]
    for g, res in results.items():
        for m, by_case in res.per_case.items():
            for c in res.cases:
                if c in by_case:
                    s = by_case[c]
                    lines.append(f"{g}\t{c}\t{m}\t{s.spfn:.6f}\t{s.spfp:.6f}\t{s.tc:.6f}")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--groups", nargs="+", default=["tune"],
                    help="group names or aliases (tune, validate)")
    ap.add_argument("--peers", nargs="*", default=list(DEFAULT_PEERS))
    ap.add_argument("--trimsa-linear", action="store_true",
                    help="also run trimsa's exact 3-way alignment with linear gaps")
    ap.add_argument("--match", type=int, default=1)
    ap.add_argument("--mismatch", type=int, default=-1)
    ap.add_argument("--gap", type=int, default=-3)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--allow-validate-trimsa", action="store_true",
                    help="permit running trimsa on validate groups (report time only)")
    ap.add_argument("--tc", action="store_true", help="add a TC table")
    ap.add_argument("--out", type=Path, help="also write the table(s) here")
    ap.add_argument("--tsv", type=Path, help="write per-case scores here")
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--cache", type=Path, default=CACHE)
    args = ap.parse_args(argv)

    names = expand_groups(args.groups)
    aligner = None
    if args.trimsa_linear:
        bad = [g for g in names if is_validate(g)]
        if bad and not args.allow_validate_trimsa:
            ap.error(f"refusing to run trimsa on validate groups {bad} "
                     "(choose settings on tune; --allow-validate-trimsa at report time)")
        aligner = trimsa_linear(args.match, args.mismatch, args.gap, threads=args.threads)
    named = {}
    for g in names:
        cases = group_cases(g, args.data, args.cache)
        if cases:
            named[g] = cases
        else:
            print(f"note: group {g} has no cases, left out", file=sys.stderr)
    results = evaluate_groups(named, aligner=aligner, peers=args.peers)

    text = markdown_table(results)
    if args.tc:
        text += "\nTC (total column score, higher is better):\n\n" + markdown_table(results, ("tc",))
    print(text, end="")
    if aligner is not None:
        import trimsa
        print(f"trimsa: {aligner.__name__} from {Path(trimsa.__file__).parent}", file=sys.stderr)
    for g, res in results.items():
        for m, errs in res.errors.items():
            for c, msg in errs.items():
                print(f"error: {g} {c} {m}: {msg}", file=sys.stderr)
        for m, s in res.seconds.items():
            print(f"time: {g} {m}: {s:.1f} s over {len(res.per_case.get(m, {}))} cases",
                  file=sys.stderr)
    if args.out:
        args.out.write_text(text)
    if args.tsv:
        args.tsv.write_text(per_case_tsv(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
