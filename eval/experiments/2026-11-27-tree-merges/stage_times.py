"""Stage times of one `Aligner().align` and a digest of the alignment, for before/after
runs of two checkouts (run from each checkout's folder: `import trimsa` takes the one in
the working directory). Usage: python stage_times.py INPUT.fa THREADS ROUNDS"""
import hashlib
import sys

import trimsa
from trimsa.io import read_sequences
from trimsa.progressive.api import Aligner

path, threads, rounds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
seqs = read_sequences(path)
for r in range(rounds):
    res = Aligner(threads=threads).align(seqs)
    st = {s.name: s.seconds for s in res.stages}
    digest = hashlib.md5("\n".join(res.rows).encode()).hexdigest()[:12]
    print(f"{trimsa.__file__.split('/trimsa/')[0][-12:]:12s} round {r} library {st.get('library', 0):.2f} "
          f"merges {st['merges']:.2f} s  alignment {digest}", flush=True)
