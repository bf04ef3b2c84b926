#!/usr/bin/env bash
# Second call on the lent H100 machine: the whole GPU test suite at the session's final
# kernels (banded, subproblem sweeps and cubes), the banded benchmark again (its CPU
# work spaces now reused per chunk), and the divide-and-conquer section of bench_affine.
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null
export PYTHONPATH=/tmp/site:$PWD
nvidia-smi --query-gpu=name --format=csv,noheader
N=""; python3 -c "import xdist" 2>/dev/null && N="-n 8"
timeout 240 python3 -m pytest -q -m gpu $N -p no:cacheprovider tests/ 2>&1 | tail -6
timeout 150 python3 eval/bench_band.py --out $OUT/bench_band_h100.md 2>&1 | tail -13
timeout 180 python3 eval/bench_affine.py --only-dc 2>&1 | tee $OUT/bench_affine_dc.md | tail -8
