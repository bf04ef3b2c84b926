#!/usr/bin/env bash
# One call: device1.sh's compiled.json, device2.sh's timings, then the GPU tests in the
# time left.
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null
(export PYTHONPATH=/tmp/site:$PWD; date -u; time python3 eval/compiled_manifest.py) 2>&1 | tail -9
cp trimsa/progressive/compiled.json $OUT/
bash eval/experiments/2026-11-27-gpu-band/device2.sh 2>&1 | tee $OUT/timings.log
export PYTHONPATH=/tmp/site:$PWD
N=""; python3 -c "import xdist" 2>/dev/null && N="-n 8"
echo "tests with $((585 - SECONDS)) s left"
timeout $((585 - SECONDS)) python3 -m pytest -q -m gpu $N -p no:cacheprovider tests/ 2>&1 | tail -6
date -u
