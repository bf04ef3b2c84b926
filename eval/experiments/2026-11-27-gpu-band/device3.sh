#!/usr/bin/env bash
# After gpu_pair_outputs became a plain copy (the pairs whose posteriors are not finite go
# through gpu_pair_inputs): compiled.json again, then first runs of 256 x 490 before
# (.data/base, 3734e31) and after, alternated three times (the first pair profiled: the
# run's own numba compilations and CUDA modules, profile_cold.py), a warm run of each, and
# the GPU tests of the library, the aligner and compiled.json.
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null
(export PYTHONPATH=/tmp/site:$PWD; date -u; python3 eval/compiled_manifest.py) 2>&1 | tail -7
cp trimsa/progressive/compiled.json $OUT/
nproc; nvidia-smi --query-gpu=name --format=csv,noheader; date -u
root() { if [ "$1" = base ]; then echo $PWD/.data/base; else echo $PWD; fi; }
P=$PWD/eval/experiments/2026-11-27-cold-start/profile_cold.py
F=.data/speed/n256-pow-N512-h0.9-first256.fa
go() {   # version tag [profile]
    if [ -n "$3" ]; then cmd="$P $F gpu"; else cmd="-m trimsa run $F -o /tmp/o_$1_$2.fa -v"; fi
    PYTHONPATH=/tmp/site:$(root $1) NUMBA_CACHE_DIR=/tmp/nc_$1 CUPY_CACHE_DIR=/tmp/cc_$1 \
        /usr/bin/time -f "wall %e s" python3 $cmd 2>&1 \
        | grep -v "read:\|write:" | sed 's/ (short and long gaps; trained emissions, MUSCLE5.s gap probabilities)//'
}
for r in 1 2 3; do
    for v in base new; do
        rm -rf /tmp/nc_$v /tmp/cc_$v
        echo "== $v first run $r"; go $v first$r $([ $r = 1 ] && echo profile)
    done
done
for v in base new; do echo "== $v warm"; go $v warm; done
for f in /tmp/o_*.fa; do cmp -s $f /tmp/o_new_warm.fa || echo "DIFFERS: $f"; done
echo "compared $(ls /tmp/o_*.fa | wc -l) outputs"
date -u
export PYTHONPATH=/tmp/site:$PWD
N=""; python3 -c "import xdist" 2>/dev/null && N="-n 8"
timeout $((585 - SECONDS)) python3 -m pytest -q -m gpu $N -p no:cacheprovider \
    tests/test_library_gpu.py tests/test_precompile.py tests/test_progressive.py 2>&1 | tail -4
date -u
