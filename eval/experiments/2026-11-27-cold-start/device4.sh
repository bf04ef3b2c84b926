#!/usr/bin/env bash
# At the session's last product commit: the GPU test suite, then a fresh machine's first
# run of 256 x 490 (with the helpers) and a warm run, and Ctrl-C during a first run.
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null
export PYTHONPATH=/tmp/site:$PWD
nproc; nvidia-smi --query-gpu=name --format=csv,noheader; date -u
N=""; python3 -c "import xdist" 2>/dev/null && N="-n 8"
timeout 300 python3 -m pytest -q -m gpu $N -p no:cacheprovider tests/ 2>&1 | tail -4
python3 -m pytest -q -p no:cacheprovider tests/test_precompile.py -k "signal or same_alignment" 2>&1 | tail -2
F=.data/speed/n256-pow-N512-h0.9-first256.fa
rm -rf /tmp/nc /tmp/cc
for v in cold warm; do
    echo "== $v"
    NUMBA_CACHE_DIR=/tmp/nc CUPY_CACHE_DIR=/tmp/cc /usr/bin/time -f "wall %e s" \
        python3 -m trimsa run $F -o /tmp/o_$v.fa -v 2>&1 | grep -v "read:\|write:" \
        | sed 's/ (short and long gaps; trained emissions, MUSCLE5.s gap probabilities)//'
done
cmp /tmp/o_cold.fa /tmp/o_warm.fa && echo "same alignment cold and warm"
date -u
