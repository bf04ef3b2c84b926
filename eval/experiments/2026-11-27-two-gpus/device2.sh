#!/usr/bin/env bash
# On two GPUs: which jitted functions the triplet-tree run (compiled.json's GPU kind 4)
# calls with both GPUs visible and with one, then the GPU precompile tests with the
# children pinned to one GPU (compiled_manifest.one_gpu_env).
date -u; nvidia-smi --query-gpu=name --format=csv,noheader
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null
export PYTHONPATH=/tmp/site:$PWD
cat > /tmp/called.py <<'PY'
import json, sys, trimsa, trimsa._numba as tn
trimsa.align("examples/data/input.fa", device="gpu", tree_distances="triplet", gap=-3)
print(json.dumps(sorted([n, list(a)] for n, a in tn.called_functions())))
PY
for v in 0,1 0; do
  for i in 1 2; do CUDA_VISIBLE_DEVICES=$v TRIMSA_NUMBA_CACHE=1 python3 /tmp/called.py > /tmp/called_$v.json; done
done
python3 - <<'PY'
import json
two = {json.dumps(x) for x in json.load(open("/tmp/called_0,1.json"))}
one = {json.dumps(x) for x in json.load(open("/tmp/called_0.json"))}
print("called with two GPUs only:", sorted(two - one))
print("called with one GPU only:", sorted(one - two))
PY
timeout 300 python3 -m pytest -q -m gpu -n 8 -p no:cacheprovider tests/test_precompile.py 2>&1 | tail -3
date -u
