#!/usr/bin/env bash
# The triplet options' kinds under device auto (compiled_manifest.py --kinds 14,15,16), then
# first runs of the example with --triplet-votes 0.1 (auto: library on the CPU, votes on
# the GPU), this code against a86d370 (.data/base), alternated twice, each from its own
# folder; then the whole GPU suite.
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null
nproc; nvidia-smi --query-gpu=name --format=csv,noheader; date -u
(export PYTHONPATH=/tmp/site:$PWD; python3 eval/compiled_manifest.py --kinds 14,15,16) 2>&1 | tail -4
cp trimsa/progressive/compiled.json $OUT/
TOP=$PWD
root() { if [ "$1" = base ]; then echo $TOP/.data/base; else echo $TOP; fi; }
go() {   # version tag input options
    (cd $(root $1) && PYTHONPATH=/tmp/site NUMBA_CACHE_DIR=/tmp/nc_$1 CUPY_CACHE_DIR=/tmp/cc_$1 \
        /usr/bin/time -f "wall %e s" python3 -c "import sys; from trimsa.cli import main; sys.exit(main())" \
        run $3 -o /tmp/o_$1_$2.fa -q $4 2>&1)
}
E=$TOP/examples/data/input.fa
for r in 1 2; do for v in new base; do
    rm -rf /tmp/nc_$v /tmp/cc_$v
    echo "== $v first $r, example --triplet-votes 0.1"; go $v tv$r $E "--triplet-votes 0.1"
done; done
for f in /tmp/o_*.fa; do cmp -s $f /tmp/o_new_tv1.fa || echo "DIFFERS: $f"; done
date -u
export PYTHONPATH=/tmp/site:$PWD
N=""; python3 -c "import xdist" 2>/dev/null && N="-n 8"
timeout $((590 - SECONDS)) python3 -m pytest -q -m gpu $N -p no:cacheprovider 2>&1 | tail -4
date -u
