#!/usr/bin/env bash
# 3 x 10^4 taxa (settings of sim.sh), then trimsa run -v on it (the bounded guide tree:
# beyond 16,384 sequences) and trimsa eval; the set comes back through $OUT.
set -u
M='GTR{1.3/2.7/0.7/1.3/3.2/1.0}+F{0.29/0.21/0.22/0.28}+G4{0.55}'
S="--model $M --length 400 --height 0.5 --ins-rate 0.01 --del-rate 0.01 --ins-size POW{1.55/40} --del-size POW{1.55/40} --gzip --force"
nproc; nvidia-smi --query-gpu=name --format=csv,noheader; date -u
timeout ${SIM_LIMIT:-400} /usr/bin/time -f "elapsed %e s, peak RSS %M kB" python -m trimsa simulate .data/n30k --taxa 30000 --seed 30001 $S
echo "simulate exit $?"; date -u
[ -f .data/n30k/meta.json ] || exit 0
cp .data/n30k/meta.json .data/n30k/input.fa.gz $OUT/
gzip -c .data/n30k/tree.nwk > $OUT/tree.nwk.gz
split -b 15M -d .data/n30k/true.fa.gz $OUT/true.fa.gz.part
timeout ${RUN_LIMIT:-150} /usr/bin/time -f "elapsed %e s, peak RSS %M kB" python -m trimsa run .data/n30k/input.fa.gz -o /tmp/n30k.aln -v
echo "run exit $?"; date -u
python -m trimsa eval -r .data/n30k/true.fa.gz -e /tmp/n30k.aln
date -u
