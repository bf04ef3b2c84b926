#!/usr/bin/env bash
# The session's last code: the whole GPU suite (the CPU posteriors, the reference of the GPU
# library's tests, now written as the kernel computes them), then tests/test_precompile.py.
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null
export PYTHONPATH=/tmp/site:$PWD
nvidia-smi --query-gpu=name --format=csv,noheader; git log -1 --format=%h 2>/dev/null; date -u
N=""; python3 -c "import xdist" 2>/dev/null && N="-n 8"
timeout 400 python3 -m pytest -q -m gpu $N -p no:cacheprovider 2>&1 | tail -4
date -u
timeout $((590 - SECONDS)) python3 -m pytest -q $N -p no:cacheprovider tests/test_precompile.py tests/test_library_gpu.py 2>&1 | tail -2
date -u
