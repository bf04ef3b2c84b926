#!/usr/bin/env bash
# Second call: the whole -m gpu suite, then the scaling benchmark on n10k and the two
# sim2/tune msa-scale sets (one GPU; the merges' scheduling changed since its last run).
nproc; nvidia-smi --query-gpu=name --format=csv,noheader; date -u
python -m pytest -q -p no:cacheprovider -m gpu -n 8 tests/ 2>&1 | tail -5
date -u
python eval/bench_run_scale.py .data/tune/sim2/tune/msa-scale-N1000-h0.6 .data/tune/sim2/tune/msa-scale-N3000-h0.5 --configs gpus:0-0 gpu-workers:1 cpu workers:4 --out $OUT/scale_tune 2>&1 | tail -3
date -u
python eval/bench_run_scale.py .data/n10k --configs gpus:0-0 gpu-workers:1 cpu workers:4 --out $OUT/scale_n10k 2>&1 | tail -3
date -u
