#!/usr/bin/env bash
# A fresh machine's first run after the compile-time mends (UPGMA's sort in NumPy,
# element loops in the library's kernels): caches removed, numba's compile times on
# 8 sequences with the GPU library, then 256 x 490 cold and warm.
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null
export PYTHONPATH=/tmp/site:$PWD
find trimsa -name "*.nbi" -delete; find trimsa -name "*.nbc" -delete; rm -rf ~/.cupy/kernel_cache
python3 eval/experiments/2026-11-27-muscle-hmm/compile_times.py .data/speed/n8.fa gpu 2>&1 | grep -v "^ \{6,\}"
find trimsa -name "*.nbi" -delete; find trimsa -name "*.nbc" -delete; rm -rf ~/.cupy/kernel_cache
for i in cold warm; do
    echo "== 256 x 490, $i"
    /usr/bin/time -f "wall %e s" python3 -m trimsa run .data/speed/n256-pow-N512-h0.9-first256.fa -o /tmp/x.aln -v 2>&1 | grep -E "^trimsa: (library|guide|merges|total)|^wall"
done
