#!/usr/bin/env bash
# n100k with the final code (each sequence's votes listed once per merge changes the path
# this size takes): simulated again (the arguments of ../2026-11-25-n100k-sim/meta_r0.001.json),
# then `trimsa run -v` with its time and peak memory, then `trimsa eval`.
set -u
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null
python3 -m pip install -q --no-index --no-deps --target /tmp/sim .whl/sim/*.whl 2>/dev/null
mkdir -p .data; date -u
M='GTR{1.3/2.7/0.7/1.3/3.2/1.0}+F{0.29/0.21/0.22/0.28}+G4{0.55}'
S='POW{1.55/40}'
PYTHONPATH=/tmp/sim:/tmp/site:$PWD /usr/bin/time -f "simulate: elapsed %e s, peak RSS %M kB" python3 -m trimsa simulate .data/n100k \
  --taxa 100000 --seed 100001 --model "$M" --length 400 --height 0.5 --ins-rate 0.001 --del-rate 0.001 \
  --ins-size "$S" --del-size "$S" --gzip --force 2>&1
md5sum .data/n100k/input.fa.gz
export PYTHONPATH=/tmp/site:$PWD
date -u
timeout $((580 - SECONDS)) /usr/bin/time -f "elapsed %e s, peak RSS %M kB" python3 -m trimsa run .data/n100k/input.fa.gz -o .data/n100k/out.fa -v 2>&1 | grep -v "^\s*$"
left=$((595 - SECONDS)); [ $left -gt 5 ] && timeout $left python3 -m trimsa eval --reference .data/n100k/true.fa.gz --estimate .data/n100k/out.fa --label trimsa 2>&1 | tail -2
date -u
