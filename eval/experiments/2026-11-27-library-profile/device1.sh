#!/usr/bin/env bash
# The GPU library's posteriors with band-local working rows: GPU tests of the library,
# then where the library stage spends its time (library_profile.py) and bench_library.py at
# n = 256, this code and the code before (.data/base = git archive of 819e9ac's trimsa,
# pyproject.toml and eval/bench_library.py, with library_profile.py) alternated.
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null
export PYTHONPATH=/tmp/site:$PWD
nvidia-smi --query-gpu=name --format=csv,noheader; nproc; date -u
F=.data/speed/n256-pow-N512-h0.9-first256.fa
python3 -m pytest -q -m gpu tests/test_library_gpu.py -p no:cacheprovider 2>&1 | tail -3
for rep in 1 2; do
  echo "== this code"; python3 eval/experiments/2026-11-27-library-profile/library_profile.py $F 2>&1 | tail -8
  echo "== base"; (export PYTHONPATH=/tmp/site:$PWD/.data/base; python3 .data/base/eval/experiments/2026-11-27-library-profile/library_profile.py $F) 2>&1 | tail -8
done
python3 eval/bench_library.py $F --sizes 256 2>&1 | tail -2
(export PYTHONPATH=/tmp/site:$PWD/.data/base; python3 .data/base/eval/bench_library.py $F --sizes 256) 2>&1 | tail -1
date -u
