#!/usr/bin/env bash
# compiled.json rewritten on the H100 (every kind), then a fresh machine's first run of
# 256 x 490 and of 2,000 x 400 with and without the helpers (numba's and CuPy's caches
# emptied before each), and warm; then the GPU test suite.
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null
export PYTHONPATH=/tmp/site:$PWD
nproc; nvidia-smi --query-gpu=name --format=csv,noheader; git log --oneline -1; date -u
python3 eval/compiled_manifest.py && cp trimsa/progressive/compiled.json $OUT/
for F in .data/speed/n256-pow-N512-h0.9-first256.fa .data/speed/n2000.fa.gz; do
  for v in without with without with warm; do
    if [ $v != warm ]; then rm -rf /tmp/nc /tmp/cc; fi
    if [ $v = without ]; then mv trimsa/progressive/compiled.json /tmp/cj; fi
    echo "== $F $v"
    NUMBA_CACHE_DIR=/tmp/nc CUPY_CACHE_DIR=/tmp/cc /usr/bin/time -f "wall %e s" \
        python3 -m trimsa run $F -o /tmp/o_$v.fa -v 2>&1 | grep -v "read:\|write:" \
        | sed 's/ (short and long gaps; trained emissions, MUSCLE5.s gap probabilities)//'
    if [ $v = without ]; then mv /tmp/cj trimsa/progressive/compiled.json; fi
  done
  cmp /tmp/o_with.fa /tmp/o_without.fa && cmp /tmp/o_with.fa /tmp/o_warm.fa && echo "same alignment cold with, cold without and warm"
done
date -u
N=""; python3 -c "import xdist" 2>/dev/null && N="-n 8"
timeout 300 python3 -m pytest -q -m gpu $N -p no:cacheprovider tests/ 2>&1 | tail -4
