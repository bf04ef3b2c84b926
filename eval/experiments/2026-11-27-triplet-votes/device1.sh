#!/usr/bin/env bash
# One call on the lent H100 machine (run from the repository root, $OUT the folder that
# comes back): the GPU tests of the banded tracebacks and the triplet votes, the guide
# trees of tree_rf.py on sim2/tune (GPU), and the validate report of the triplet-votes
# column of bench_run.py beside the default (N <= 256; the setting chosen on tune).
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null
export PYTHONPATH=/tmp/site:$PWD
nvidia-smi --query-gpu=name --format=csv,noheader
timeout 200 python3 -m pytest -q -m gpu tests/test_affine_band.py tests/test_triplet_votes.py \
    2>&1 | tail -3
timeout 150 python3 eval/experiments/2026-11-27-triplet-votes/tree_rf.py --data .data/tv \
    --device gpu --out $OUT/tree_rf.tsv 2>&1 | tee $OUT/tree_rf.log | tail -3
timeout 300 python3 eval/bench_run.py --split validate --data .data/val --max-n 256 \
    --variants "trimsa,trimsa triplet-votes" --out $OUT/bench_run_tv 2>&1 | tail -14
