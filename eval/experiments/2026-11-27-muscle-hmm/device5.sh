#!/usr/bin/env bash
# After the compile-time mends of the GPU library's host steps: the whole GPU test suite,
# then a fresh machine's first run again (caches removed): numba's compile times on
# 8 sequences with the GPU library, then 256 x 490 cold and warm.
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null
export PYTHONPATH=/tmp/site:$PWD
N=""; python3 -c "import xdist" 2>/dev/null && N="-n 8"
timeout 240 python3 -m pytest -q -m gpu $N -p no:cacheprovider tests/ 2>&1 | tail -3
bash eval/experiments/2026-11-27-muscle-hmm/device4.sh 2>&1 | grep -v "pip"
