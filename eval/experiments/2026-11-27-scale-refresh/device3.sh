#!/usr/bin/env bash
# Call 3 (a fresh machine): the 10^4 set simulated again, its true alignment sent back too
# (call 1 sent only its input), and the input compared with call 1's.
set -u
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null
python3 -m pip install -q --no-index --no-deps --target /tmp/sim .whl/sim/*.whl 2>/dev/null
export PYTHONPATH=/tmp/sim:/tmp/site:$PWD
date -u
M='GTR{1.3/2.7/0.7/1.3/3.2/1.0}+F{0.29/0.21/0.22/0.28}+G4{0.55}'
S='POW{1.55/40}'
/usr/bin/time -f "elapsed %e s, peak RSS %M kB" python3 -m trimsa simulate .data/n10k \
  --taxa 10000 --seed 10001 --model "$M" --length 400 --height 0.7 --ins-rate 0.04 --del-rate 0.04 \
  --ins-size "$S" --del-size "$S" --gzip --force 2>&1
mkdir -p $OUT/n10k && cp .data/n10k/* $OUT/n10k/ && md5sum .data/n10k/*
date -u
