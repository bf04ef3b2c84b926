#!/usr/bin/env bash
# Fifth call: the end and start sweeps of semiglobal and local alignments on the GPU
# (the SUB instantiation's packed mode, `where` and closed far faces): the whole GPU
# suite (the kernel changed), then device4.sh's timing of 16 triplets per mode.
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null
export PYTHONPATH=/tmp/site:$PWD
N=""; python3 -c "import xdist" 2>/dev/null && N="-n 8"
timeout 300 python3 -m pytest -q -m gpu $N -p no:cacheprovider tests/ 2>&1 | grep -E "passed|failed|FAILED|Error" | head -20
sed -n '/^timeout 240 python3 - <<.PY.$/,/^PY$/p' eval/experiments/2026-11-27-three-sequences/device4.sh > /tmp/timing.sh
bash /tmp/timing.sh
