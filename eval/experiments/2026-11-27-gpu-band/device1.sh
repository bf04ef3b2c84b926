#!/usr/bin/env bash
# compiled.json rewritten on the GPU machine after the band and identity moved to the GPU
# (pair_band), then the GPU test suite.
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null
export PYTHONPATH=/tmp/site:$PWD
nproc; nvidia-smi --query-gpu=name --format=csv,noheader; date -u
time python3 eval/compiled_manifest.py && cp trimsa/progressive/compiled.json $OUT/
N=""; python3 -c "import xdist" 2>/dev/null && N="-n 8"
timeout 300 python3 -m pytest -q -m gpu $N -p no:cacheprovider tests/ 2>&1 | tail -6
date -u
