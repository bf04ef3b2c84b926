#!/bin/bash
# The whole GPU suite at this tree, after timing the affine module's first compilation
# (an empty CuPy kernel cache) and a second one (the cache filled).
set -u
nvidia-smi --query-gpu=name --format=csv,noheader
export CUPY_CACHE_DIR=$(mktemp -d)
for i in 1 2; do
python3 - <<'PY'
import os, time
state = "filled" if os.listdir(os.environ["CUPY_CACHE_DIR"]) else "empty"
t = time.perf_counter()
from trimsa.triplet import _gpu_affine as g
g._module()
print(f"affine module compile, CuPy cache {state}: {time.perf_counter() - t:.1f} s")
PY
done
if python3 -c "import xdist" 2>/dev/null; then N="-n 8"; else N=""; fi
python3 -m pytest -q -m gpu $N -p no:cacheprovider tests 2>&1 | tail -8
