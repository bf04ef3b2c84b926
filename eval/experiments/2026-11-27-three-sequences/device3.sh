#!/usr/bin/env bash
# Third call: the GPU tests of run (two and three sequences among them) at the final
# support DP of three sequences (row spans; CPU code, after device.sh's run).
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null
export PYTHONPATH=/tmp/site:$PWD
nvidia-smi --query-gpu=name --format=csv,noheader
N=""; python3 -c "import xdist" 2>/dev/null && N="-n 8"
timeout 300 python3 -m pytest -q -m gpu $N -p no:cacheprovider tests/test_progressive.py \
    tests/test_library_gpu.py tests/test_triplet_votes.py tests/test_cli_run.py 2>&1 | tail -4
timeout 200 python3 -m pytest -q $N -p no:cacheprovider tests/test_progressive.py tests/test_cli_run.py 2>&1 | tail -2
