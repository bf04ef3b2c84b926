#!/usr/bin/env bash
# Each sequence's votes listed once per merge (this code) against once per band of rows
# (.data/base3 = git archive of 544cff5), each from its own folder, alternated: n2000 and
# n10k, two rounds in one process each (the first compiles), alignment digests compared;
# then compiled.json's tree-library kinds rewritten, the GPU tests and the manifest tests.
set -u
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null
nproc; nvidia-smi --query-gpu=name --format=csv,noheader; date -u
R=$PWD
S=$R/eval/experiments/2026-11-27-tree-merges/stage_times.py
for f in $R/.data/speed/n2000.fa.gz $R/.data/n10k/input.fa.gz; do
  for v in new base new base; do
    d=$R; [ $v = base ] && d=$R/.data/base3
    echo "== $v $(basename $(dirname $f))/$(basename $f)"
    (cd $d && PYTHONPATH=/tmp/site:$d python3 $S $f 16 2)
  done
done
date -u
(export PYTHONPATH=/tmp/site:$R; python3 eval/compiled_manifest.py --kinds 1,4,5) 2>&1 | tail -4
cp trimsa/progressive/compiled.json $OUT/
export PYTHONPATH=/tmp/site:$R
python3 -m pytest -q -m gpu -n 8 -p no:cacheprovider 2>&1 | tail -2
python3 -m pytest -q -n 8 -p no:cacheprovider tests/test_precompile.py 2>&1 | tail -2
date -u
