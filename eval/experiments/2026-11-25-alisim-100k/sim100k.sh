#!/usr/bin/env bash
# trimsa simulate at 10^5 taxa (settings as sim.sh), started in the background so that a
# later call on the same warm machine can wait for it; the set's files come back through $OUT.
set -u
M='GTR{1.3/2.7/0.7/1.3/3.2/1.0}+F{0.29/0.21/0.22/0.28}+G4{0.55}'
S="--model $M --length 400 --height 0.5 --ins-rate 0.01 --del-rate 0.01 --ins-size POW{1.55/40} --del-size POW{1.55/40} --gzip --force"
date -u
if [ ! -f .data/n100k/meta.json ] && ! kill -0 "$(cat .data/sim100k.pid 2>/dev/null)" 2>/dev/null; then
  echo "starting the simulation"
  setsid nohup /usr/bin/time -f "elapsed %e s, peak RSS %M kB" python -m trimsa simulate .data/n100k \
    --taxa 100000 --seed 100001 $S --threads ${THREADS:-1} > .data/sim100k.log 2>&1 < /dev/null &
  echo $! > .data/sim100k.pid
fi
for i in $(seq ${WAIT_S:-540}); do
  [ -f .data/n100k/meta.json ] && break
  kill -0 "$(cat .data/sim100k.pid)" 2>/dev/null || break
  sleep 1
done
date -u; cat .data/sim100k.log; free -g | head -2
[ -f .data/n100k/meta.json ] || exit 0
cp .data/n100k/meta.json .data/n100k/input.fa.gz $OUT/
gzip -c .data/n100k/tree.nwk > $OUT/tree.nwk.gz
split -b 15M -d .data/n100k/true.fa.gz $OUT/true.fa.gz.part
ls -l $OUT
