#!/usr/bin/env bash
# The final code (votes listed once per merge; small merges without a thread pool) against
# .data/base3 (544cff5), each from its own folder, alternated: n256, n2000, n10k, two rounds
# in one process each (round 0 compiles where the cache is cold), digests compared.
set -u
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null
nproc; nvidia-smi --query-gpu=name --format=csv,noheader; date -u; git log -1 --format=%h
R=$PWD
S=$R/eval/experiments/2026-11-27-tree-merges/stage_times.py
for f in $R/.data/speed/n256-pow-N512-h0.9-first256.fa $R/.data/speed/n2000.fa.gz $R/.data/n10k/input.fa.gz; do
  for v in new base new base; do
    d=$R; [ $v = base ] && d=$R/.data/base3
    echo "== $v $(basename $f)"
    (cd $d && PYTHONPATH=/tmp/site:$d python3 $S $f 16 2)
  done
done
date -u
