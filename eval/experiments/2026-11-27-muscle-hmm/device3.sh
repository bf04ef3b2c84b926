#!/usr/bin/env bash
# Where the first run's time goes on a fresh machine: numba's on-disk cache (the
# checkout's __pycache__) and CuPy's kernel cache are removed, then `trimsa run -v` on
# 8 sequences (compilation dominates) with the GPU library, twice, then on the CPU.
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null
export PYTHONPATH=/tmp/site:$PWD
head -16 .data/speed/n256-pow-N512-h0.9-first256.fa > /tmp/n8.fa
find trimsa -name "*.nbi" -delete; find trimsa -name "*.nbc" -delete; rm -rf ~/.cupy/kernel_cache
for dev in gpu gpu cpu; do
    echo "== --device $dev"
    /usr/bin/time -f "wall %e s" python3 -X importtime -m trimsa run /tmp/n8.fa -o /tmp/x.aln -v --device $dev 2> /tmp/err.txt
    grep -E "^trimsa|^wall" /tmp/err.txt
    sort -t'|' -k2 -n /tmp/err.txt | grep "import time" | tail -4
done
python3 - <<'PY'
import time, cupy
t = time.perf_counter(); cupy.zeros(1).sum(); print(f"cupy first use {time.perf_counter() - t:.2f} s")
PY
