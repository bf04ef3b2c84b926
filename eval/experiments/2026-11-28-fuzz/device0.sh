#!/usr/bin/env bash
# At 143aba5 (plus this folder): the whole GPU suite, GPU-against-CPU fuzzing,
# and the L = 200 divide-and-conquer profile after the host mends of 80051d2.
date -u; nvidia-smi --query-gpu=name --format=csv,noheader; nproc
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null
export PYTHONPATH=/tmp/site:$PWD
t0=$(date +%s)
timeout 260 python3 -m pytest -q -m gpu -n 8 -p no:cacheprovider tests 2>&1 | tail -4
echo "suite wall $(( $(date +%s) - t0 )) s"; date -u
timeout 200 python3 eval/experiments/2026-11-28-fuzz/gpu_fuzz.py 170 20261128 2>&1 | tail -30
date -u
timeout 100 python3 eval/experiments/2026-11-27-split-tracebacks/profile_dc.py 2>&1 | grep -v "^$" | head -40
date -u
