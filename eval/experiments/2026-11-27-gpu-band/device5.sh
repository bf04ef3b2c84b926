#!/usr/bin/env bash
# The library benchmark (eval/bench_library.py) at the current code, and at 256 sequences
# the code before pair_band (.data/base = git archive 3734e31 trimsa pyproject.toml, with
# this bench_library.py copied to .data/base/eval/), alternated: current, base, current,
# base. First run 13:35 UTC (before the CPU warm-up), again 13:4x with it.
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null
export PYTHONPATH=/tmp/site:$PWD
nproc; nvidia-smi --query-gpu=name --format=csv,noheader; date -u
F=.data/speed/n256-pow-N512-h0.9-first256.fa
python3 eval/bench_library.py $F --sizes 16,64,256 --out $OUT/bench_library_h100.md 2>&1 | tail -6
(export PYTHONPATH=/tmp/site:$PWD/.data/base; python3 .data/base/eval/bench_library.py $F --sizes 256) 2>&1 | tail -3
python3 eval/bench_library.py $F --sizes 256 2>&1 | tail -3
(export PYTHONPATH=/tmp/site:$PWD/.data/base; python3 .data/base/eval/bench_library.py $F --sizes 256) 2>&1 | tail -3
date -u
