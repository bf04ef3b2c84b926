#!/usr/bin/env bash
# The GPU divide and conquer with the splits joined on the device, against HEAD
# (.data/base5): the D&C section of the affine benchmark for each, alternated; a profile
# of the new one; then the affine GPU tests.
date -u; nvidia-smi --query-gpu=name --format=csv,noheader
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null
TOP=$PWD
for v in base new; do
    d=$TOP; [ $v = base ] && d=$TOP/.data/base5
    echo "== $v"; (cd $d && PYTHONPATH=/tmp/site:$d python3 eval/bench_affine.py --only-dc 2>&1 | tail -12)
done
export PYTHONPATH=/tmp/site:$TOP
python3 -m pytest -q -m gpu -p no:cacheprovider tests/test_affine.py 2>&1 | tail -3
for L in 300 600; do python3 eval/experiments/2026-11-27-dc-join/dc_profile.py $L 2>&1 | head -60; done
date -u
