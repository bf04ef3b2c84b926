"""CPU alignments against the test suite's literal dynamic programme, for as long as given.

Each round draws three short sequences (1-12 residues, 2-5 letters), a random
symmetric substitution table (entries -4..5) or the DNA table, gap scores
(open -6..0, extend -4..0), a mode, and a full-cube limit small enough that the
divide and conquer and the semiglobal/local end and start sweeps run on cubes
of a few cells; then checks, for ``align_triplets`` on one thread and on two
(the wavefront sweeps), that the score equals ``slow_dp``'s optimum and that
the scored core of the rows, rescored by ``natural_sp``, gives it again; and
that ``score_triplets`` agrees.

    python cpu_fuzz.py SECONDS [SEED]
"""
import sys
import time

import numpy as np

import trimsa
from trimsa.alphabet import DNA
from trimsa.io import as_sequence_set
from trimsa.scoring import Scoring
from trimsa.triplet import _affine
from tests.affine_reference import natural_sp, slow_dp

MODES = ("global", "semiglobal", "local")


def main():
    seconds = float(sys.argv[1])
    rng = np.random.default_rng(int(sys.argv[2]) if len(sys.argv) > 2 else 1128)
    t_end = time.perf_counter() + seconds
    rounds = bad = 0
    k = DNA.size
    while time.perf_counter() < t_end:
        rounds += 1
        letters = int(rng.integers(2, 6))
        lengths = rng.integers(1, 13, 3)
        codes = rng.integers(0, letters, int(lengths.sum())).astype(np.uint8)
        offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
        seqs = as_sequence_set([(n, "".join(DNA.letters[x] for x in codes[offsets[r]:offsets[r + 1]]))
                                for r, n in enumerate("abc")], "dna")
        assert seqs.codes.tolist() == codes.tolist()
        if rng.random() < 0.5:
            t = rng.integers(-4, 6, (k, k))
            table = np.minimum(t, t.T).astype(np.int32)
        else:
            table = Scoring.dna().table
        go, ge = -int(rng.integers(0, 7)), -int(rng.integers(0, 5))
        sc = Scoring(DNA, table, go, ge, "fuzz")
        mode = str(rng.choice(MODES))
        _affine.CUBE_CELLS = int(rng.choice([8, 30, 100, 400, 1 << 22]))
        parts = [codes[offsets[r]:offsets[r + 1]] for r in range(3)]
        want = slow_dp(*parts, table, go, ge, mode)
        score = int(trimsa.score_triplets(seqs, [[0, 1, 2]], mode=mode, scoring=sc)[0])
        tag = (f"round {rounds}: lengths {lengths.tolist()} {mode} open {go} extend {ge} "
               f"cube {_affine.CUBE_CELLS}")
        if score != want:
            bad += 1
            print(f"{tag}: score_triplets {score}, slow_dp {want}", flush=True)
        for threads in (1, 2):
            al = trimsa.align_triplets(seqs, [[0, 1, 2]], mode=mode, scoring=sc,
                                       threads=threads)[0]
            (i0, j0, k0), (i1, j1, k1) = al.core
            box = (i0, j0, k0, i1, j1, k1)
            # rows of the core alone: drop the columns of residues outside it
            rows, pos = [[], [], []], [0, 0, 0]
            for col in zip(*al.rows):
                keep = False
                vals = []
                for r in range(3):
                    if col[r] == "-":
                        vals.append(-1)
                    else:
                        inside = box[r] <= pos[r] < box[3 + r]
                        keep |= inside
                        vals.append(int(parts[r][pos[r]]) if inside else -2)
                        pos[r] += 1
                if keep:
                    if -2 in vals:
                        bad += 1
                        print(f"{tag}: a column mixes core and outside residues", flush=True)
                    for r in range(3):
                        rows[r].append(vals[r])
            if al.score != want or natural_sp(rows, table, go, ge) != want:
                bad += 1
                print(f"{tag} threads {threads}: alignment {al.score}, rescored "
                      f"{natural_sp(rows, table, go, ge)}, slow_dp {want}", flush=True)
    print(f"{rounds} rounds, {bad} disagreements")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
