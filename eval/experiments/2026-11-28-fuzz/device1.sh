#!/usr/bin/env bash
# At the session's last code commit (run at 6ed0498, and again at c9c46e5): the whole GPU suite (the 3- and 4-sequence triplet
# tree on the GPU among it), then gpu_fuzz.py with another seed.
date -u; nvidia-smi --query-gpu=name --format=csv,noheader; nproc
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null
export PYTHONPATH=/tmp/site:$PWD
git log --oneline -1 2>/dev/null
t0=$(date +%s)
timeout 300 python3 -m pytest -q -m gpu -n 8 -p no:cacheprovider tests 2>&1 | tail -4
echo "suite wall $(( $(date +%s) - t0 )) s"; date -u
timeout 200 python3 eval/experiments/2026-11-28-fuzz/gpu_fuzz.py 150 7 2>&1 | tail -5
date -u
