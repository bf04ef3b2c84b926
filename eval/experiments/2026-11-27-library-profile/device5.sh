#!/usr/bin/env bash
# First runs (numba's and CuPy's caches emptied) with the run waiting for a helper that is
# compiling the function it calls (this code) against a86d370 (.data/base; the run compiled
# such a function itself), each version run from its own folder, alternated; 256 x 490
# three times, 2,000 x 400 once; then the helper tests and the GPU kinds of compiled.json.
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null
nproc; nvidia-smi --query-gpu=name --format=csv,noheader; date -u
TOP=$PWD
root() { if [ "$1" = base ]; then echo $TOP/.data/base; else echo $TOP; fi; }
go() {   # version tag input
    (cd $(root $1) && PYTHONPATH=/tmp/site NUMBA_CACHE_DIR=/tmp/nc_$1 CUPY_CACHE_DIR=/tmp/cc_$1 \
        /usr/bin/time -f "wall %e s" python3 -c "import trimsa, sys; print('trimsa from', trimsa.__file__, file=sys.stderr); from trimsa.cli import main; sys.exit(main())" \
        run $3 -o /tmp/o_$1_$2.fa -v 2>&1 \
        | grep -v "read:\|write:" | sed 's/ (short and long gaps; trained emissions, MUSCLE5.s gap probabilities)//')
}
F=$TOP/.data/speed/n256-pow-N512-h0.9-first256.fa
for r in 1 2 3; do
    for v in new base; do
        rm -rf /tmp/nc_$v /tmp/cc_$v
        echo "== $v first run $r"; go $v first$r $F
    done
done
for v in new base; do echo "== $v warm"; go $v warm $F; done
for f in /tmp/o_*.fa; do cmp -s $f /tmp/o_new_warm.fa || echo "DIFFERS: $f"; done
echo "compared $(ls /tmp/o_*.fa | wc -l) outputs"; rm -f /tmp/o_*.fa
G=$TOP/.data/speed/n2000.fa.gz
for v in new base; do
    rm -rf /tmp/nc_$v /tmp/cc_$v
    echo "== 2000 x 400 $v first"; go $v k1 $G
done
cmp /tmp/o_new_k1.fa /tmp/o_base_k1.fa && echo "2000: same alignment"
date -u
export PYTHONPATH=/tmp/site:$PWD
timeout $((590 - SECONDS)) python3 -m pytest -q -p no:cacheprovider tests/test_precompile.py 2>&1 | tail -3
date -u
