#!/usr/bin/env bash
# After the band-local posteriors (f6d33d4): first runs of 256 x 490 on a cold numba and
# CuPy cache, this code and the code before (.data/base = 819e9ac) alternated twice, a
# warm run of each, the same for 2,000 x 400 (warm only), then the whole GPU test suite.
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null
nproc; nvidia-smi --query-gpu=name --format=csv,noheader; date -u
root() { if [ "$1" = base ]; then echo $PWD/.data/base; else echo $PWD; fi; }
go() {   # version tag input
    PYTHONPATH=/tmp/site:$(root $1) NUMBA_CACHE_DIR=/tmp/nc_$1 CUPY_CACHE_DIR=/tmp/cc_$1 \
        /usr/bin/time -f "wall %e s" python3 -m trimsa run $3 -o /tmp/o_$1_$2.fa -v 2>&1 \
        | grep -v "read:\|write:" | sed 's/ (short and long gaps; trained emissions, MUSCLE5.s gap probabilities)//'
}
F=.data/speed/n256-pow-N512-h0.9-first256.fa
for r in 1 2; do
    for v in new base; do
        rm -rf /tmp/nc_$v /tmp/cc_$v
        echo "== $v first run $r"; go $v first$r $F
    done
done
for v in new base new base; do echo "== $v warm"; go $v warm $F; done
for f in /tmp/o_*.fa; do cmp -s $f /tmp/o_new_warm.fa || echo "DIFFERS: $f"; done
echo "compared $(ls /tmp/o_*.fa | wc -l) outputs"; rm -f /tmp/o_*.fa
G=.data/speed/n2000.fa.gz
for v in new base new base; do echo "== 2000 x 400 $v warm"; go $v w2000 $G; done
cmp /tmp/o_new_w2000.fa /tmp/o_base_w2000.fa && echo "2000: same alignment"
date -u
export PYTHONPATH=/tmp/site:$PWD
N=""; python3 -c "import xdist" 2>/dev/null && N="-n 8"
timeout $((590 - SECONDS)) python3 -m pytest -q -m gpu $N -p no:cacheprovider 2>&1 | tail -4
date -u
