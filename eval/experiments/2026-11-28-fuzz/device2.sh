#!/usr/bin/env bash
# After 3003a54 (the triplet tree's scores in progress blocks): the tree GPU tests, and
# `trimsa tree` (which always passes a progress function) on the GPU against the CPU,
# all triplets and a sampled design, exact engine.
date -u; nvidia-smi --query-gpu=name --format=csv,noheader
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null
export PYTHONPATH=/tmp/site:$PWD
timeout 200 python3 -m pytest -q -m gpu -p no:cacheprovider tests/test_tree.py tests/test_cli_engine.py 2>&1 | tail -2
for t in all sampled; do
  for d in gpu cpu; do
    python3 -m trimsa tree .data/tree/t30.fa --triplets $t --band exact --m 3 --device $d -o /tmp/$t.$d.nwk -v 2>&1 | tail -1
  done
  cmp /tmp/$t.gpu.nwk /tmp/$t.cpu.nwk && echo "$t: GPU tree = CPU tree"
done
date -u
