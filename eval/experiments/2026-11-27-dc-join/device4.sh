#!/usr/bin/env bash
# The maintained affine benchmark with the splits joined on the device (writes
# eval/results/bench_affine.md under $OUT), as the 11:12 UTC run: --ncu, two length mixes.
date -u; nvidia-smi --query-gpu=name --format=csv,noheader
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null
export PYTHONPATH=/tmp/site:$PWD
mkdir -p $OUT/results
python3 eval/bench_affine.py --ncu --fasta .data/bench/scale1000/input.fa.gz .data/bench/rf01717/input.fa \
    --out $OUT/results/bench_affine.md 2>&1 | tail -5
date -u
