#!/usr/bin/env bash
# compiled.json rewritten on the GPU machine (every kind, the triplet options' new), then
# first runs of 256 x 490 with --triplet-votes 0.1, this code against a86d370 (.data/base)
# which had no such kind, each from its own folder.
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null
nproc; nvidia-smi --query-gpu=name --format=csv,noheader; date -u
(export PYTHONPATH=/tmp/site:$PWD; python3 eval/compiled_manifest.py) 2>&1 | tail -16
cp trimsa/progressive/compiled.json $OUT/
date -u
TOP=$PWD
root() { if [ "$1" = base ]; then echo $TOP/.data/base; else echo $TOP; fi; }
go() {   # version tag input options
    (cd $(root $1) && PYTHONPATH=/tmp/site NUMBA_CACHE_DIR=/tmp/nc_$1 CUPY_CACHE_DIR=/tmp/cc_$1 \
        /usr/bin/time -f "wall %e s" python3 -c "import sys; from trimsa.cli import main; sys.exit(main())" \
        run $3 -o /tmp/o_$1_$2.fa -q $4 2>&1)
}
E=$TOP/examples/data/input.fa
for v in new base; do
    rm -rf /tmp/nc_$v /tmp/cc_$v
    echo "== $v first, example --triplet-votes 0.1"; go $v tv $E "--triplet-votes 0.1"
done
cmp /tmp/o_new_tv.fa /tmp/o_base_tv.fa && echo "same alignment"
date -u
