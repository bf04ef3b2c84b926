#!/usr/bin/env bash
# compiled.json rewritten on the H100 machine (every kind: the merges call new jitted
# functions), then first runs of 256 x 490 with numba's and CuPy's caches emptied, this
# code (with the new compiled.json) against fddc20d (.data/base2), each from its own
# folder, alternated, twice; the outputs compared.
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null
nproc; nvidia-smi --query-gpu=name --format=csv,noheader; date -u
TOP=$PWD
(export PYTHONPATH=/tmp/site:$PWD; python3 eval/compiled_manifest.py) 2>&1 | tail -20
cp trimsa/progressive/compiled.json $OUT/
date -u
root() { if [ "$1" = base ]; then echo $TOP/.data/base2; else echo $TOP; fi; }
go() {   # version tag input
    (cd $(root $1) && PYTHONPATH=/tmp/site NUMBA_CACHE_DIR=/tmp/nc_$1 CUPY_CACHE_DIR=/tmp/cc_$1 \
        /usr/bin/time -f "wall %e s" python3 -c "import trimsa, sys; print('trimsa from', trimsa.__file__, file=sys.stderr); from trimsa.cli import main; sys.exit(main())" \
        run $3 -o /tmp/o_$1_$2.fa -v 2>&1 \
        | grep -v "read:\|write:" | sed 's/ (short and long gaps; trained emissions, MUSCLE5.s gap probabilities)//')
}
F=$TOP/.data/speed/n256-pow-N512-h0.9-first256.fa
for r in 1 2; do
    for v in new base; do
        rm -rf /tmp/nc_$v /tmp/cc_$v
        echo "== $v first run $r"; go $v first$r $F
    done
done
for f in /tmp/o_*.fa; do cmp -s $f /tmp/o_new_first1.fa || echo "DIFFERS: $f"; done
echo "compared $(ls /tmp/o_*.fa | wc -l) outputs"
date -u
