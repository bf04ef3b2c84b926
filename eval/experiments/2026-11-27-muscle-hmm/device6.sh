#!/usr/bin/env bash
# The affine kernel benchmark at the current kernel file (the SUB instantiations changed
# after the last full run of 08:26): eval/bench_affine.py in full, with ncu.
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null
export PYTHONPATH=/tmp/site:$PWD
nvidia-smi --query-gpu=name --format=csv,noheader
date -u
timeout 560 python3 eval/bench_affine.py --ncu --fasta .data/bench/scale1000/input.fa.gz \
    .data/bench/rf01717/input.fa --out $OUT/bench_affine.md 2>&1 | tail -60
date -u
