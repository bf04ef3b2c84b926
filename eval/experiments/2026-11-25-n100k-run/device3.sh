#!/usr/bin/env bash
# Third call: the scaling benchmark alone (the second call's --configs were misspelt).
nproc; nvidia-smi --query-gpu=name --format=csv,noheader; date -u
python eval/bench_run_scale.py .data/tune/sim2/tune/msa-scale-N1000-h0.6 .data/tune/sim2/tune/msa-scale-N3000-h0.5 --out $OUT/scale_tune 2>&1 | tail -3
date -u
python eval/bench_run_scale.py .data/n10k --out $OUT/scale_n10k 2>&1 | tail -3
date -u
