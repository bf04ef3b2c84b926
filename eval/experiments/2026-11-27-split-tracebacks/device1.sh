#!/usr/bin/env bash
# Split tracebacks: the affine GPU tests at this tree, then the A/B of HEAD (24aba44,
# .data/base7) against this tree with SPLIT auto and never, and a variant of this tree
# whose split state sweeps are held to 3 blocks per SM (168 registers, no spills)
# instead of 4 (128, 40 bytes spilled).
date -u; nvidia-smi --query-gpu=name --format=csv,noheader
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null
TOP=$PWD
X=$TOP/eval/experiments/2026-11-27-split-tracebacks
PYTHONPATH=/tmp/site:$TOP timeout 400 python3 -m pytest -q -x -m gpu -n 8 -p no:cacheprovider tests/test_affine.py tests/test_cli_engine.py 2>&1 | tail -3
rm -rf /tmp/lb3 && mkdir /tmp/lb3 && cp -r $TOP/trimsa /tmp/lb3/
sed -i 's/__launch_bounds__(128, SPLIT ? (TRACE ? 3 : 4) : 0)/__launch_bounds__(128, SPLIT ? 3 : 0)/' /tmp/lb3/trimsa/kernels/triplet_affine.cu
grep -c "SPLIT ? 3 : 0" /tmp/lb3/trimsa/kernels/triplet_affine.cu
run() {  # name code-dir split-mode
    echo "== $1 ($3)"
    (cd /tmp && PYTHONPATH=/tmp/site:$2 timeout 150 python3 $X/ab.py $3 /tmp/$1.npz 2>&1 | tail -16)
}
run base $TOP/.data/base7 auto
run auto $TOP auto
run never $TOP never
run lb3 /tmp/lb3 auto
python3 - <<'PY'
import numpy as np
b = np.load("/tmp/base.npz")
for v in ("auto", "never", "lb3"):
    try:
        x = np.load(f"/tmp/{v}.npz")
    except FileNotFoundError:
        print(v, "missing"); continue
    diff = [k for k in b.files if k not in x.files or not np.array_equal(b[k], x[k])]
    print(v, "differs from base in:", diff or "nothing")
PY
date -u
