#!/usr/bin/env bash
# Split triplets A/B on one machine: HEAD (.data/base6), the split kernel with SPLIT auto
# and never, and the split kernel compiled without the minimum of blocks per SM (nolb,
# auto); each variant's scores and alignments compared with HEAD's.
date -u; nvidia-smi --query-gpu=name --format=csv,noheader
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null
TOP=$PWD
X=$TOP/eval/experiments/2026-11-27-split-triplets
rm -rf /tmp/nolb && mkdir -p /tmp/nolb && cp -r trimsa /tmp/nolb/
sed -i 's/__launch_bounds__(128, TRACE ? 3 : 4)/__launch_bounds__(128)/' /tmp/nolb/trimsa/kernels/triplet_affine.cu
grep -c "__launch_bounds__(128)$" /tmp/nolb/trimsa/kernels/triplet_affine.cu
run() {  # name code-dir split-mode
    echo "== $1 ($3)"
    (cd /tmp && PYTHONPATH=/tmp/site:$2 timeout 200 python3 $X/ab.py $3 /tmp/$1.npz 2>&1 | tail -16)
}
run base $TOP/.data/base6 -
run auto $TOP auto
run never $TOP never
run nolb /tmp/nolb auto
python3 - <<'PY'
import numpy as np
b = np.load("/tmp/base.npz")
for v in ("auto", "never", "nolb"):
    try:
        x = np.load(f"/tmp/{v}.npz")
    except FileNotFoundError:
        print(v, "missing"); continue
    diff = [k for k in b.files if k not in x.files or not np.array_equal(b[k], x[k])]
    print(v, "differs from base in:", diff or "nothing")
PY
date -u
