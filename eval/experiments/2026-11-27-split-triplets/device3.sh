#!/usr/bin/env bash
# Split triplets, second version (dealt round the triplets; split instantiations for
# score-only and state sweeps only, the others compiled as before): the affine GPU
# tests, then the A/B of HEAD (.data/base6) against SPLIT auto and never.
date -u; nvidia-smi --query-gpu=name --format=csv,noheader
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null
TOP=$PWD
X=$TOP/eval/experiments/2026-11-27-split-triplets
PYTHONPATH=/tmp/site:$TOP timeout 300 python3 -m pytest -q -x -m gpu -p no:cacheprovider tests/test_affine.py 2>&1 | tail -3
run() {  # name code-dir split-mode
    echo "== $1 ($3)"
    (cd /tmp && PYTHONPATH=/tmp/site:$2 timeout 200 python3 $X/ab.py $3 /tmp/$1.npz 2>&1 | tail -16)
}
run base $TOP/.data/base6 -
run auto $TOP auto
run never $TOP never
python3 - <<'PY'
import numpy as np
b = np.load("/tmp/base.npz")
for v in ("auto", "never"):
    try:
        x = np.load(f"/tmp/{v}.npz")
    except FileNotFoundError:
        print(v, "missing"); continue
    diff = [k for k in b.files if k not in x.files or not np.array_equal(b[k], x[k])]
    print(v, "differs from base in:", diff or "nothing")
PY
date -u
