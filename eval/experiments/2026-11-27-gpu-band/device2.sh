#!/usr/bin/env bash
# First runs (numba's and CuPy's caches emptied) of the code before (.data/base: `git
# archive 3734e31 trimsa pyproject.toml`) and after pair_band, alternated, then a warm run
# of each; 256 x 490 (all pairs on the GPU), then 2,000 x 400 (`auto`) once each.
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null
nproc; nvidia-smi --query-gpu=name --format=csv,noheader; date -u
root() { if [ "$1" = base ]; then echo $PWD/.data/base; else echo $PWD; fi; }
go() {   # version input tag
    PYTHONPATH=/tmp/site:$(root $1) NUMBA_CACHE_DIR=/tmp/nc_$1 CUPY_CACHE_DIR=/tmp/cc_$1 \
        /usr/bin/time -f "wall %e s" python3 -m trimsa run $2 -o /tmp/o_$1_$3.fa -v 2>&1 \
        | grep -v "read:\|write:" | sed 's/ (short and long gaps; trained emissions, MUSCLE5.s gap probabilities)//'
}
F=.data/speed/n256-pow-N512-h0.9-first256.fa
for r in 1 2; do
    for v in base new; do
        rm -rf /tmp/nc_$v /tmp/cc_$v
        echo "== $v first run $r"; go $v $F first$r
    done
done
for v in base new; do echo "== $v warm"; go $v $F warm; done
for f in /tmp/o_*.fa; do cmp -s $f /tmp/o_new_warm.fa || echo "DIFFERS: $f"; done
echo "compared $(ls /tmp/o_*.fa | wc -l) outputs"
F=.data/speed/n2000.fa.gz
for v in base new; do
    rm -rf /tmp/nc_$v /tmp/cc_$v
    echo "== $v first run 2000"; go $v $F k1
    echo "== $v warm 2000"; go $v $F k2
done
for f in /tmp/o_*_k*.fa; do cmp -s $f /tmp/o_new_k2.fa || echo "DIFFERS: $f"; done
date -u
