#!/usr/bin/env bash
# The full-cube threshold of the divide and conquer on the GPU and the CPU; then the
# whole GPU suite on the working tree (the splits joined on the device).
date -u; nvidia-smi --query-gpu=name --format=csv,noheader
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null
export PYTHONPATH=/tmp/site:$PWD
python3 eval/experiments/2026-11-27-dc-join/cube_cells.py
date -u
python3 -m pytest -q -m gpu -n 8 -p no:cacheprovider tests/ 2>&1 | tail -4
date -u
