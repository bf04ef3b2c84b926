#!/usr/bin/env bash
# trimsa simulate at 10^5 taxa with lower indel rates (0.001 and 0.0005; n10k's model and
# length, height 0.5), both started in the background on the lent machine, so that a
# later call on the same warm machine can use them (.data/ is ignored and stays there).
set -u
M='GTR{1.3/2.7/0.7/1.3/3.2/1.0}+F{0.29/0.21/0.22/0.28}+G4{0.55}'
nproc; date -u
for r in 0.001 0.0005; do
  d=.data/n100k_r$r
  setsid nohup /usr/bin/time -f "elapsed %e s, peak RSS %M kB" python -m trimsa simulate $d \
    --taxa 100000 --seed 100001 --model "$M" --length 400 --height 0.5 --ins-rate $r --del-rate $r \
    --ins-size 'POW{1.55/40}' --del-size 'POW{1.55/40}' --gzip --force > .data/sim_r$r.log 2>&1 < /dev/null &
done
for i in $(seq ${WAIT_S:-550}); do
  [ -f .data/n100k_r0.001/meta.json ] && [ -f .data/n100k_r0.0005/meta.json ] && break
  sleep 1
done
date -u
for r in 0.001 0.0005; do echo "== rate $r"; cat .data/sim_r$r.log; [ -f .data/n100k_r$r/meta.json ] && cp .data/n100k_r$r/meta.json $OUT/meta_r$r.json && grep -E 'columns|gap_fraction|seq_len' .data/n100k_r$r/meta.json; done
free -g | head -2
