#!/usr/bin/env bash
# First GPU call: validate report of the triplet default against the tree it replaces (one
# process, the same machine), then the compiled-function lists of the GPU kinds of run.
set -u
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site:$PWD
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/gpu.txt
date -u +%FT%TZ | tee -a $OUT/gpu.txt
timeout 400 python3 eval/bench_run.py --split validate --data .data/val \
  --variants "trimsa,trimsa no-triplet-tree" --out $OUT/bench_run_gpu_validate > $OUT/bench.log 2>&1
echo "bench rc $?"
tail -3 $OUT/bench.log
cp trimsa/progressive/compiled.json $OUT/compiled_before.json
timeout 240 python3 eval/compiled_manifest.py --kinds 3,4,5,7,9,11,13,15,16,17,18,19,21,22,23 > $OUT/manifest.log 2>&1
echo "manifest rc $?"
cp trimsa/progressive/compiled.json $OUT/compiled_gpu.json
date -u +%FT%TZ
