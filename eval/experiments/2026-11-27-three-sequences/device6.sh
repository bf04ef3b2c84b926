#!/usr/bin/env bash
# Sixth call: the GPU tests of the engine after the rows of triplet alignments are built
# by one numba pass, and bench_affine's full-cube traceback rates again (the API column
# includes building the rows).
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null
export PYTHONPATH=/tmp/site:$PWD
N=""; python3 -c "import xdist" 2>/dev/null && N="-n 8"
timeout 200 python3 -m pytest -q -m gpu $N -p no:cacheprovider tests/test_affine.py \
    tests/test_triplet_engine.py tests/test_progressive.py 2>&1 | tail -2
timeout 300 python3 -c "import sys; sys.path.insert(0,'eval'); import numpy as np, bench_affine as b;
print('\n'.join(b.traceback_rates(np.random.default_rng(2026_11_24), False)))"
