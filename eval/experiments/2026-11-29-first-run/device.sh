#!/usr/bin/env bash
# The first `trimsa run` of 256 x 490 with numba's and CuPy's caches emptied (on a machine
# that had run the GPU suite: the file cache is warm), then warm runs.
date -u; nproc; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null
export PYTHONPATH=/tmp/site:$PWD
F=.data/speed/n256-pow-N512-h0.9-first256.fa
t() { /usr/bin/time -f "wall %e s, peak %M KB" "$@"; }
clear() {
  find / -xdev \( -name "*.nbi" -o -name "*.nbc" \) -delete 2>/dev/null
  rm -rf ~/.cupy/kernel_cache
}
for i in 1 2; do
  clear
  echo "== first run $i (caches emptied)"; t python3 -m trimsa run $F -o /tmp/a$i.fa -v 2>&1 | grep -v "read:\|write:"
done
for i in 3 4; do echo "== warm run $i"; t python3 -m trimsa run $F -o /tmp/a$i.fa -v 2>&1 | grep "total\|wall"; done
cmp /tmp/a1.fa /tmp/a2.fa && cmp /tmp/a1.fa /tmp/a3.fa && cmp /tmp/a1.fa /tmp/a4.fa && echo "outputs identical"
date -u
