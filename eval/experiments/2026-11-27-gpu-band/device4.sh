#!/usr/bin/env bash
# On a machine of two H100s: compiled.json rewritten (one GPU visible, every kind, the
# protein ones new), first runs of 256 x 490 and of the protein example at the current
# code (one GPU visible), then the whole GPU suite with both GPUs visible (the several-GPU
# tests of the library, whose kernels changed, and of the k-mer tree).
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null
export PYTHONPATH=/tmp/site:$PWD
nproc; nvidia-smi --query-gpu=name --format=csv,noheader; date -u
(export CUDA_VISIBLE_DEVICES=0; python3 eval/compiled_manifest.py) 2>&1 | tail -9
cp trimsa/progressive/compiled.json $OUT/
F=.data/speed/n256-pow-N512-h0.9-first256.fa
run() {   # tag input
    CUDA_VISIBLE_DEVICES=0 NUMBA_CACHE_DIR=/tmp/nc CUPY_CACHE_DIR=/tmp/cc \
        /usr/bin/time -f "wall %e s" python3 -m trimsa run $2 -o /tmp/o_$1.fa -v 2>&1 \
        | grep -v "read:\|write:" | sed 's/ (short and long gaps; trained emissions, MUSCLE5.s gap probabilities)//'
}
for r in 1 2; do rm -rf /tmp/nc /tmp/cc; echo "== first run $r"; run first$r $F; done
echo "== warm"; run warm $F
cmp /tmp/o_first1.fa /tmp/o_warm.fa && cmp /tmp/o_first2.fa /tmp/o_warm.fa && echo "same alignment first and warm"
date -u
N=""; python3 -c "import xdist" 2>/dev/null && N="-n 8"
timeout $((585 - SECONDS)) python3 -m pytest -q -m gpu $N -p no:cacheprovider tests/ 2>&1 | tail -6
date -u
