#!/usr/bin/env bash
# A fresh machine's first `trimsa run` on 256 x 490 with the GPU library: numba's compile
# times, the CUDA modules' compile times and the stages (caches in empty folders), then the
# same warm.
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null
export PYTHONPATH=/tmp/site:$PWD
nproc; nvidia-smi --query-gpu=name --format=csv,noheader
F=.data/speed/n256-pow-N512-h0.9-first256.fa
export NUMBA_CACHE_DIR=/tmp/nc CUPY_CACHE_DIR=/tmp/cc
rm -rf /tmp/nc /tmp/cc
for run in cold warm; do
    echo "== $run"
    /usr/bin/time -f "wall %e s" python3 eval/experiments/2026-11-27-cold-start/profile_cold.py $F gpu
done
python3 - <<'PY'
import time; t = time.perf_counter(); import cupy; t1 = time.perf_counter(); cupy.zeros(1).sum(); cupy.cuda.Device().synchronize()
print(f"cupy import {t1 - t:.2f} s, first use {time.perf_counter() - t1:.2f} s")
PY
