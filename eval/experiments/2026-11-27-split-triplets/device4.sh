#!/usr/bin/env bash
# align3 on the GPU: its GPU test, then `trimsa align3` of three sequences of about 400
# and 1,000 residues (.data/align3, random, 15% mutations) with affine gaps, --device cpu
# (16 cores) and gpu, each twice (the first gpu run compiles the kernels).
date -u; nvidia-smi --query-gpu=name --format=csv,noheader
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null
export PYTHONPATH=/tmp/site:$PWD
timeout 200 python3 -m pytest -q -m gpu -p no:cacheprovider tests/test_cli_engine.py 2>&1 | tail -2
for L in 400 1000; do
  for d in cpu gpu cpu gpu; do
    /usr/bin/time -f "align3 L=$L --device $d: %e s wall" timeout 120 python3 -m trimsa align3 .data/align3/t$L.fa --gap-open -3 --gap-extend -1 --device $d -o /tmp/a_${L}_$d.fa 2>&1 | tail -2
  done
  cmp /tmp/a_${L}_cpu.fa /tmp/a_${L}_gpu.fa && echo "L=$L: gpu alignment == cpu alignment"
done
date -u
