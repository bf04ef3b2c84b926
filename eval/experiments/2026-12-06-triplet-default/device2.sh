#!/usr/bin/env bash
# The validate report on a GPU again, with the GPU's affine-pruned rate at 2e11.
set -u
export PYTHONPATH=/tmp/site:$PWD
nvidia-smi --query-gpu=name --format=csv,noheader; date -u +%FT%TZ
timeout 420 python3 eval/bench_run.py --split validate --data .data/val \
  --variants "trimsa,trimsa no-triplet-tree" --out $OUT/bench_run_gpu_validate2 > $OUT/bench2.log 2>&1
echo "bench rc $?"; date -u +%FT%TZ
