#!/usr/bin/env bash
# On a lent machine with two GPUs: the whole -m gpu suite (the several-GPU tests and,
# with Dask installed from .data/whldask, the Dask GPU tests), then two_gpus.py.
date -u; nvidia-smi --query-gpu=name --format=csv,noheader
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl .data/whldask/*.whl 2>/dev/null
export PYTHONPATH=/tmp/site:$PWD
python3 -c "import distributed; print('distributed', distributed.__version__)"
timeout 300 python3 -m pytest -q -m gpu -n 8 -p no:cacheprovider tests 2>&1 | tail -6
X=eval/experiments/2026-11-27-two-gpus
timeout 120 python3 $X/two_gpus.py .data/speed/n256-pow-N512-h0.9-first256.fa 2>&1 | tail -12
timeout 120 python3 $X/two_gpus.py .data/speed/n2000.fa.gz 2>&1 | tail -4
date -u
