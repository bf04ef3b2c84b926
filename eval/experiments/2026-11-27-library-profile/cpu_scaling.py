"""The CPU library's time per pair on 1..N threads (posteriors on and off), warm.

    python eval/experiments/2026-11-27-library-profile/cpu_scaling.py FASTA N THREADS...
"""
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from trimsa.io import as_sequence_set, read_records  # noqa: E402
from trimsa.progressive import Aligner  # noqa: E402
from trimsa.progressive import consistency as C  # noqa: E402
from trimsa.progressive.pair_hmm import pair_hmm  # noqa: E402

recs = [(r[0], r[2]) for r in read_records(sys.argv[1])][:int(sys.argv[2])]
al = Aligner(device="cpu")
seqs = as_sequence_set(recs)
used, codes = al._compact(seqs)
sc = al.scoring(seqs)
tab = sc.table[np.ix_(used, used)]
hmm = pair_hmm(al.pair_hmm, seqs.alphabet.name, used)
pairs = len(codes) * (len(codes) - 1) // 2
C.build_library(codes[:4], tab, sc.gap_open, sc.gap_extend, 1.0, posterior=True, hmm=hmm)
C.build_library(codes[:4], tab, sc.gap_open, sc.gap_extend, 1.0, posterior=False, hmm=hmm)
for threads in [int(x) for x in sys.argv[3:]]:
    for post in (False, True):
        t = time.perf_counter()
        C.build_library(codes, tab, sc.gap_open, sc.gap_extend, 1.0, posterior=post, hmm=hmm,
                        threads=threads)
        dt = time.perf_counter() - t
        print(f"threads {threads:2d} posteriors {post!s:5}: {dt:.3f} s, "
              f"{dt / pairs * threads * 1e3:.2f} ms per pair and thread", flush=True)
