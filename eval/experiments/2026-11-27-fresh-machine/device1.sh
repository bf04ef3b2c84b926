#!/usr/bin/env bash
# The first `trimsa run` on a freshly started lent machine (nothing cached: no numba or
# CuPy caches, cold file cache), then the same runs warm; then the whole GPU suite.
date -u; nproc; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null
export PYTHONPATH=/tmp/site:$PWD
F=.data/speed/n256-pow-N512-h0.9-first256.fa
t() { /usr/bin/time -f "wall %e s, peak %M KB" "$@"; }
echo "== 1. first run on this machine: 256 x 490"; t python3 -m trimsa run $F -o /tmp/a1.fa -v 2>&1 | grep -v "read:\|write:"
echo "== 2. quick start, first time"; t python3 -m trimsa run examples/data/input.fa -o /tmp/q1.fa -v 2>&1 | grep "total\|wall"
echo "== 3. 256 x 490 warm"; t python3 -m trimsa run $F -o /tmp/a2.fa -v 2>&1 | grep -v "read:\|write:"
echo "== 4. 256 x 490 warm"; t python3 -m trimsa run $F -o /tmp/a3.fa 2>&1
echo "== 5. quick start warm"; t python3 -m trimsa run examples/data/input.fa -o /tmp/q2.fa 2>&1
cmp /tmp/a1.fa /tmp/a2.fa && cmp /tmp/a1.fa /tmp/a3.fa && cmp /tmp/q1.fa /tmp/q2.fa && echo "outputs identical"
python3 -m trimsa run $F -o /tmp/acpu.fa --device cpu 2>&1; cmp /tmp/a1.fa /tmp/acpu.fa && echo "GPU run == CPU run"
date -u
echo "== GPU suite"; python3 -m pytest -q -m gpu -n 8 -p no:cacheprovider tests/ 2>&1 | tail -4
date -u
