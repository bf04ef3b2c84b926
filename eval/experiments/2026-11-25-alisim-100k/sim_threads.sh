#!/usr/bin/env bash
# AliSim on 16 threads: the simulate tests (piqtree is there), 10^4 taxa twice (same files?),
# then the 10^5 set in the background (sim100k.sh with THREADS=16).
set -u
E=eval/experiments/2026-11-25-alisim-100k
M='GTR{1.3/2.7/0.7/1.3/3.2/1.0}+F{0.29/0.21/0.22/0.28}+G4{0.55}'
S="--model $M --length 400 --height 0.5 --ins-rate 0.01 --del-rate 0.01 --ins-size POW{1.55/40} --del-size POW{1.55/40} --gzip --force"
date -u
python -m pytest -q -p no:cacheprovider tests/test_simulate.py 2>&1 | tail -2
for r in 1 2; do
  /usr/bin/time -f "elapsed %e s, peak RSS %M kB" python -m trimsa simulate .data/t10k_$r --taxa 10000 --seed 20001 $S --threads 16
done
cmp .data/t10k_1/true.fa.gz .data/t10k_2/true.fa.gz && echo "16 threads twice: same true.fa.gz"
THREADS=16 WAIT_S=${WAIT_S:-400} bash $E/sim100k.sh
