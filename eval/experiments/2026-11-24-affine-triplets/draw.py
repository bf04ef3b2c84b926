"""Draw triplets of records from the real RNA families into an ignored cache.

Usage (from the repository root)::

    python eval/experiments/2026-11-24-affine-triplets/draw.py [--splits tune validate]
        [--per-family 8] [--data ../shared/data] [--cache .cache/affine-triplets]

For every family folder ``<data>/real/<split>/<family>/`` (``input.fa``, ``true.fa``) it
draws ``--per-family`` triplets of distinct records with
``numpy.random.default_rng(zlib.crc32(family))``: each draw is
``rng.choice(n, 3, replace=False)`` over the records that have at least one residue, in
``input.fa`` order; a draw whose set of three records was drawn before is rejected and
drawn again (the family's possible triplets are enumerated when it has fewer than
``--per-family`` of them). The three records keep the drawn order.

Each case ``<cache>/real/<split>/<family>-t<idx>/`` gets

* ``input.fa``: the three unaligned sequences as in the family's ``input.fa``;
* ``true.fa``: the family's reference alignment restricted to the three records, the
  columns where none of the three has a residue removed;

and ``<cache>/real/<split>/cases.tsv`` lists case, family, names and lengths. Drawing is
deterministic; existing files are rewritten with the same content.

The simulated triplet sets (``sim/trip-indel-*``, ``sim2/<split>/trip-*``) are triplets
already and are read in place by ``score.py``; nothing is copied for them.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import zlib
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
sys.path.insert(0, str(ROOT))

from trimsa.evaluate import read_alignment  # noqa: E402

DATA = (ROOT / ".." / "shared" / "data").resolve()
CACHE = ROOT / ".cache" / "affine-triplets"
PER_FAMILY = 8


def family_seed(family: str) -> int:
    """The seed of a family's draws: CRC-32 of its folder name."""
    return zlib.crc32(family.encode("utf-8"))


def has_residue(seq: str) -> bool:
    return any(ch.isalpha() for ch in seq)


def draw_triplets(n: int, k: int, seed: int) -> list:
    """``k`` distinct triplets (as drawn, unsorted) of ``range(n)``; all of them if fewer."""
    total = n * (n - 1) * (n - 2) // 6
    if total <= k:
        return [list(t) for t in itertools.combinations(range(n), 3)]
    rng = np.random.default_rng(seed)
    seen, out = set(), []
    while len(out) < k:
        t = [int(x) for x in rng.choice(n, 3, replace=False)]
        key = frozenset(t)
        if key in seen:
            continue
        seen.add(key)
        out.append(t)
    return out


def restrict(rows: list, names: list) -> list:
    """``rows`` (name, aligned row) restricted to ``names`` (in that order), all-gap columns out."""
    index = {n: r for n, r in rows}
    missing = [n for n in names if n not in index]
    if missing:
        raise KeyError(f"records {missing} not in the alignment")
    sub = [index[n] for n in names]
    width = len(sub[0])
    if any(len(r) != width for r in sub):
        raise ValueError("rows of unequal length")
    keep = [j for j in range(width) if any(r[j].isalpha() for r in sub)]
    return [(n, "".join(r[j] for j in keep)) for n, r in zip(names, sub)]


def write_fasta(path: Path, rows) -> None:
    path.write_text("".join(f">{n}\n{s}\n" for n, s in rows))


def ungap(row: str) -> str:
    return "".join(ch for ch in row if ch.isalpha())


def draw_split(data: Path, cache: Path, split: str, per_family: int) -> list:
    src = data / "real" / split
    out = cache / "real" / split
    out.mkdir(parents=True, exist_ok=True)
    table, notes = [], []
    for fam_dir in sorted(p for p in src.iterdir() if p.is_dir()):
        family = fam_dir.name
        seqs = read_alignment(fam_dir / "input.fa")  # (first word of name, sequence)
        true = read_alignment(fam_dir / "true.fa")
        usable = [(n, s) for n, s in seqs if has_residue(s)]
        if len(usable) < len(seqs):
            notes.append(f"{family}: {len(seqs) - len(usable)} records without residues skipped")
        if len(usable) < 3:
            notes.append(f"{family}: fewer than 3 usable records, no triplet")
            continue
        trips = draw_triplets(len(usable), per_family, family_seed(family))
        if len(trips) < per_family:
            notes.append(f"{family}: only {len(trips)} distinct triplets")
        for idx, t in enumerate(trips):
            recs = [usable[i] for i in t]
            names = [n for n, _s in recs]
            ref = restrict(true, names)
            for (n, s), (_n, r) in zip(recs, ref):
                if ungap(s).upper() != ungap(r).upper():
                    raise ValueError(f"{family}: {n}: true.fa and input.fa hold different residues")
            case = f"{family}-t{idx}"
            d = out / case
            d.mkdir(exist_ok=True)
            write_fasta(d / "input.fa", recs)
            write_fasta(d / "true.fa", ref)
            table.append((case, family, ",".join(names),
                          ",".join(str(len(ungap(s))) for _n, s in recs), len(ref[0][1])))
    with open(out / "cases.tsv", "w") as fh:
        fh.write("case\tfamily\tnames\tlengths\ttrue_columns\n")
        for row in table:
            fh.write("\t".join(str(x) for x in row) + "\n")
    print(f"real/{split}: {len(table)} cases in {out}")
    for line in notes:
        print("  note:", line)
    return table


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--splits", nargs="+", default=["tune", "validate"])
    ap.add_argument("--per-family", type=int, default=PER_FAMILY)
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--cache", type=Path, default=CACHE)
    args = ap.parse_args(argv)
    for split in args.splits:
        draw_split(args.data, args.cache, split, args.per_family)
    return 0


if __name__ == "__main__":
    sys.exit(main())
