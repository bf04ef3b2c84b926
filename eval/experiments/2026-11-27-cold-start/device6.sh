#!/usr/bin/env bash
# After band_cells left the host's numba path: the GPU tests of compiled.json and of the
# GPU library, then 256 x 490 first (caches emptied) and warm.
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null
export PYTHONPATH=/tmp/site:$PWD
date -u
N=""; python3 -c "import xdist" 2>/dev/null && N="-n 4"
timeout 150 python3 -m pytest -q -m gpu $N -p no:cacheprovider tests/test_precompile.py tests/test_library_gpu.py tests/test_progressive.py 2>&1 | tail -3
F=.data/speed/n256-pow-N512-h0.9-first256.fa
rm -rf /tmp/nc /tmp/cc
for v in cold warm; do
    echo "== $v"
    NUMBA_CACHE_DIR=/tmp/nc CUPY_CACHE_DIR=/tmp/cc /usr/bin/time -f "wall %e s" \
        python3 -m trimsa run $F -o /tmp/o_$v.fa -v 2>&1 | grep -E "library|total|wall" | sed 's/global affine.*all pairs;//'
done
cmp /tmp/o_cold.fa /tmp/o_warm.fa && echo "same alignment cold and warm"
date -u
