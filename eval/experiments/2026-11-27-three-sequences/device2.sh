#!/usr/bin/env bash
# Second call: the affine kernels' benchmark again (score-only TCUPS, register-only
# ceiling, ncu instructions per cell, tracebacks), last run 2026-11-24; the kernel file
# gained the BAND and SUB instantiations on 2026-11-27. The mixes: copies of
# sim2/tune/msa-scale-N1000-h0.6 and real/tune/rfam11-RF01717-N447 in the ignored .data/bench.
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null
export PYTHONPATH=/tmp/site:$PWD
timeout 560 python3 eval/bench_affine.py --ncu --fasta .data/bench/scale1000/input.fa.gz \
    .data/bench/rf01717/input.fa --out $OUT/bench_affine.md 2>&1 | tail -40
