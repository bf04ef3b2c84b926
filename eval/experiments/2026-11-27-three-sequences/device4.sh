#!/usr/bin/env bash
# Fourth call: semiglobal and local tracebacks beyond the full cube with the core's
# divide and conquer on the GPU (api._cores; the end and start from CPU sweeps then): the
# GPU tests of the affine engine, and a timing of 16 triplets of 231-419 residues per mode,
# GPU against the 16 CPU threads.
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null
export PYTHONPATH=/tmp/site:$PWD
N=""; python3 -c "import xdist" 2>/dev/null && N="-n 8"
timeout 300 python3 -m pytest -q -m gpu $N -p no:cacheprovider tests/test_affine.py \
    tests/test_affine_band.py tests/test_gpu.py 2>&1 | tail -3
timeout 240 python3 - <<'PY'
import time, numpy as np, trimsa
from trimsa.io import as_sequence_set
from trimsa.scoring import Scoring
rng = np.random.default_rng(2026_11_27)
root = rng.integers(0, 4, 500)
def copy():
    s = [c for c in root if rng.random() > 0.1]
    s = [c if rng.random() > 0.15 else int(rng.integers(0, 4)) for c in s]
    return "".join("ACGT"[c] for c in s[int(rng.integers(0, 100)):int(rng.integers(300, len(s)))])
seqs = as_sequence_set([(f"s{i}", copy()) for i in range(48)], "dna")
trip = np.array([[3 * q, 3 * q + 1, 3 * q + 2] for q in range(16)])
sc = Scoring.dna(gap_open=-3, gap_extend=-1)
print("lengths", seqs.lengths.min(), seqs.lengths.max())
for mode in ("global", "semiglobal", "local"):
    trimsa.align_triplets(seqs, trip[:1], scoring=sc, mode=mode, device="gpu")   # warm-up
    t = time.perf_counter(); g = trimsa.align_triplets(seqs, trip, scoring=sc, mode=mode, device="gpu"); tg = time.perf_counter() - t
    t = time.perf_counter(); c = trimsa.align_triplets(seqs, trip, scoring=sc, mode=mode, device="cpu"); tc = time.perf_counter() - t
    same = sum((x.rows, x.score) == (y.rows, y.score) for x, y in zip(g, c))
    print(f"{mode:10s} 16 triplets: GPU {tg:.2f} s, CPU (16 threads) {tc:.2f} s, {same}/16 identical")
PY
