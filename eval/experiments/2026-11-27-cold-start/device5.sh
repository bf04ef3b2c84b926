#!/usr/bin/env bash
# compiled.json rewritten with the k-mer counts' device in the kind (six kinds), the GPU
# test suite, then a first run of 2,000 x 400 under `auto` (the tree library on the GPU,
# the k-mer counts on the CPU: the new kind) and a warm one.
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null
export PYTHONPATH=/tmp/site:$PWD
nproc; nvidia-smi --query-gpu=name --format=csv,noheader; date -u
python3 eval/compiled_manifest.py && cp trimsa/progressive/compiled.json $OUT/
N=""; python3 -c "import xdist" 2>/dev/null && N="-n 8"
timeout 240 python3 -m pytest -q -m gpu $N -p no:cacheprovider tests/ 2>&1 | tail -4
F=.data/speed/n2000.fa.gz
rm -rf /tmp/nc /tmp/cc
for v in cold warm; do
    echo "== $v"
    NUMBA_CACHE_DIR=/tmp/nc CUPY_CACHE_DIR=/tmp/cc /usr/bin/time -f "wall %e s" \
        python3 -m trimsa run $F -o /tmp/o_$v.fa -v 2>&1 | grep -v "read:\|write:" \
        | sed 's/ (short and long gaps; trained emissions, MUSCLE5.s gap probabilities)//'
done
cmp /tmp/o_cold.fa /tmp/o_warm.fa && echo "same alignment cold and warm"
date -u
