#!/usr/bin/env bash
# At the session's last commit: the affine, band and align3 GPU tests, then
# profile_dc.py (where the L = 200 divide and conquer spends its time).
date -u; nvidia-smi --query-gpu=name --format=csv,noheader
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null
export PYTHONPATH=/tmp/site:$PWD
timeout 200 python3 -m pytest -q -m gpu -n 8 -p no:cacheprovider tests/test_affine.py tests/test_affine_band.py tests/test_cli_engine.py 2>&1 | tail -2
timeout 120 python3 eval/experiments/2026-11-27-split-tracebacks/profile_dc.py 2>&1 | grep -v "^$" | head -75
date -u
