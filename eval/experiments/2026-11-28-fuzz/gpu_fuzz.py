"""GPU against CPU on random inputs, for as long as it is given.

Each round draws an alphabet, a mode, a scoring (random match, mismatch,
transversion and gap scores for DNA; a Biopython matrix with random gaps for
protein), a length class and a batch of related or unrelated sequences, then
checks:

* ``score_triplets`` on the GPU equals the CPU (affine and linear gaps; linear
  in ``int16``, ``int32`` and ``auto`` precision);
* ``align_triplets`` on the GPU equals the CPU: rows, score and core (affine);
* every alignment's score equals its triplet's optimal score, and the scored
  core of its rows, rescored by the test suite's literal ``natural_sp``, gives
  the same number.

    python gpu_fuzz.py SECONDS [SEED]

Prints one line per round that disagrees, then a summary; exits 1 on any.
"""
import sys
import time

import numpy as np

import trimsa
from trimsa.io import as_sequence_set
from trimsa.scoring import Scoring
from tests.affine_reference import natural_sp

MODES = ("global", "semiglobal", "local")
DNA = "ACGT"
AMINO = "ACDEFGHIKLMNPQRSTVWY"
# length classes: (low, high) residues; the last ones reach the divide and conquer
CLASSES = {"tiny": (1, 4), "short": (1, 40), "mid": (40, 150), "big": (150, 260),
           "skew": None}


def mutate(rng, s, rate, letters):
    out = []
    i = 0
    while i < len(s):
        u = rng.random()
        if u < rate / 3:                       # a deletion of geometric length
            i += int(rng.geometric(0.4))
            continue
        if u < 2 * rate / 3:                   # an insertion of geometric length
            out.extend(rng.choice(letters, int(rng.geometric(0.4))))
        out.append(rng.choice(letters) if rng.random() < rate else s[i])
        i += 1
    return "".join(out) or str(rng.choice(letters))


def draw_set(rng, protein):
    letters = list(AMINO if protein else DNA)
    if not protein and rng.random() < 0.3:
        letters = letters + list("NRYKMSW")
    if rng.random() < 0.2:                     # a low-entropy alphabet: many ties
        letters = letters[:2]
    cls = str(rng.choice(list(CLASSES)))
    n = int(rng.integers(3, 10))
    if cls == "skew":
        lengths = [int(rng.integers(1, 8))] + [int(rng.integers(200, 700)) for _ in range(n - 1)]
    else:
        lo, hi = CLASSES[cls]
        lengths = rng.integers(lo, hi + 1, n).tolist()
    if rng.random() < 0.5:
        root = "".join(rng.choice(letters, max(lengths)))
        rate = float(rng.uniform(0.02, 0.4))
        strs = [mutate(rng, root[:L], rate, letters) for L in lengths]
    else:
        strs = ["".join(rng.choice(letters, L)) for L in lengths]
    seqs = as_sequence_set([(f"s{q}", x) for q, x in enumerate(strs)],
                           "protein" if protein else "dna")
    return cls, seqs


def draw_scoring(rng, protein, linear=False):
    go = 0 if linear else -int(rng.integers(1, 13))
    ge = -int(rng.integers(1, 6))
    if protein:
        return Scoring.protein(str(rng.choice(["BLOSUM62", "BLOSUM45", "PAM250"])),
                               gap_open=go, gap_extend=ge)
    return Scoring.dna(int(rng.integers(1, 7)), -int(rng.integers(0, 7)),
                       gap_open=go, gap_extend=ge, transversion=-int(rng.integers(0, 7)))


def core_rows(al, seqs, tri):
    """The rows' columns that hold a residue of the core, as code lists."""
    (i0, j0, k0), (i1, j1, k1) = al.core
    lo, hi = (i0, j0, k0), (i1, j1, k1)
    pos = [0, 0, 0]
    keep = [[], [], []]
    codes = [seqs.codes[seqs.offsets[t]:seqs.offsets[t + 1]] for t in tri]
    for col in zip(*al.rows):
        inside = False
        for r in range(3):
            if col[r] != "-":
                inside |= lo[r] <= pos[r] < hi[r]
        for r in range(3):
            if col[r] != "-":
                keep[r].append(int(codes[r][pos[r]]) if lo[r] <= pos[r] < hi[r] else None)
                pos[r] += 1
            else:
                keep[r].append(-1)
        if not inside:
            for r in range(3):
                keep[r].pop()
    # a residue outside the core never shares a column with one inside
    assert all(x is not None for row in keep for x in row), "core mixes in outside residues"
    return keep


def main():
    seconds = float(sys.argv[1])
    rng = np.random.default_rng(int(sys.argv[2]) if len(sys.argv) > 2 else 20261128)
    t_end = time.perf_counter() + seconds
    rounds = bad = n_scores = n_aligned = 0
    seen = {}
    while time.perf_counter() < t_end:
        rounds += 1
        protein = rng.random() < 0.25
        cls, seqs = draw_set(rng, protein)
        mode = str(rng.choice(MODES))
        T = int(rng.integers(1, 4 if cls in ("big", "skew") else 120))
        trip = rng.integers(0, len(seqs), (T, 3))
        tag = f"round {rounds}: {cls} {'protein' if protein else 'dna'} {mode} T={T}"
        seen[cls, mode] = seen.get((cls, mode), 0) + T
        # linear gaps: scores in every precision
        lin = draw_scoring(rng, protein, linear=True)
        cpu = trimsa.score_triplets(seqs, trip, mode=mode, scoring=lin, device="cpu")
        for prec in ("auto", "int32", "int16"):
            gpu = trimsa.score_triplets(seqs, trip, mode=mode, scoring=lin, device="gpu",
                                        precision=prec)
            if gpu.tolist() != cpu.tolist():
                bad += 1
                print(f"{tag} linear {lin} {prec}: scores differ", flush=True)
        # affine gaps: scores and alignments
        sc = draw_scoring(rng, protein)
        cpu = trimsa.score_triplets(seqs, trip, mode=mode, scoring=sc, device="cpu")
        gpu = trimsa.score_triplets(seqs, trip, mode=mode, scoring=sc, device="gpu")
        n_scores += 2 * T
        if gpu.tolist() != cpu.tolist():
            bad += 1
            print(f"{tag} {sc}: affine scores differ", flush=True)
        ga = trimsa.align_triplets(seqs, trip, mode=mode, scoring=sc, device="gpu")
        ca = trimsa.align_triplets(seqs, trip, mode=mode, scoring=sc, device="cpu")
        n_aligned += T
        for t, (g, c) in enumerate(zip(ga, ca)):
            if (g.rows, g.score, g.core) != (c.rows, c.score, c.core):
                bad += 1
                print(f"{tag} {sc}: alignment {t} differs", flush=True)
            if c.score != cpu[t]:
                bad += 1
                print(f"{tag} {sc}: alignment {t} scores {c.score}, optimum {cpu[t]}", flush=True)
            rows = core_rows(c, seqs, trip[t])
            cols = [k for k in range(len(rows[0])) if any(rows[r][k] != -1 for r in range(3))]
            rows = [[row[k] for k in cols] for row in rows]
            if natural_sp(rows, sc.table, sc.gap_open, sc.gap_extend) != c.score:
                bad += 1
                print(f"{tag} {sc}: alignment {t} rescored differently", flush=True)
    print(f"{rounds} rounds, {n_scores} affine scores, {n_aligned} alignments "
          f"(each on both devices), {bad} disagreements")
    print("triplets by class and mode:", dict(sorted(seen.items())))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
