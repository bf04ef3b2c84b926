#!/usr/bin/env bash
# Split triplets: the affine GPU tests (one warp per triplet and split), then the A/B of
# HEAD (.data/base6) against the split kernel (auto, never) and the split kernel compiled
# without the minimum of blocks per SM (nolb).
date -u; nvidia-smi --query-gpu=name --format=csv,noheader
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null
TOP=$PWD
X=eval/experiments/2026-11-27-split-triplets
export PYTHONPATH=/tmp/site:$TOP
timeout 420 python3 -m pytest -q -x -m gpu -p no:cacheprovider tests/test_affine.py tests/test_affine_band.py 2>&1 | tail -4
date -u
