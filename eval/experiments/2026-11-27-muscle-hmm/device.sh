#!/usr/bin/env bash
# One call on a lent GPU machine after the library's pair HMM took MUSCLE5's gap
# probabilities (698b5e5): the whole GPU test suite (the GPU library must still equal the
# CPU's), then the validate benchmark of `run` with every variant (report only: the
# choice was made on tune and committed first). Validate sets copied to the ignored .data/val.
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null
export PYTHONPATH=/tmp/site:$PWD
nvidia-smi --query-gpu=name --format=csv,noheader
N=""; python3 -c "import xdist" 2>/dev/null && N="-n 8"
timeout 240 python3 -m pytest -q -m gpu $N -p no:cacheprovider tests/ 2>&1 | tail -6
timeout 340 python3 eval/bench_run.py --split validate --data .data/val --out $OUT/bench_run_h100 2>&1 | tail -25
