#!/usr/bin/env bash
# After Aligner.exact_device (one rule for where the exact sum of pairs runs): the whole
# GPU suite at the session's last code.
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null
export PYTHONPATH=/tmp/site:$PWD
nvidia-smi --query-gpu=name --format=csv,noheader; date -u
N=""; python3 -c "import xdist" 2>/dev/null && N="-n 8"
timeout 500 python3 -m pytest -q -m gpu $N -p no:cacheprovider 2>&1 | tail -4
date -u
