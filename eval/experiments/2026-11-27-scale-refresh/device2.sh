#!/usr/bin/env bash
# Call 2, on the warm machine of call 1: `trimsa run -v` on the 10^4 set again (warm),
# scored with `trimsa eval`; then the 10^5 set once simulated.
set -u
export PYTHONPATH=/tmp/site:$PWD
date -u; git log -1 --format='commit %h %s'
for k in 2; do
  echo "== n10k run $k"
  /usr/bin/time -f "elapsed %e s, peak RSS %M kB" python3 -m trimsa run .data/n10k/input.fa.gz -o .data/n10k/out$k.fa -v 2>&1 | grep -v "^\s*$"
  python3 -m trimsa eval --reference .data/n10k/true.fa.gz --estimate .data/n10k/out$k.fa --label trimsa 2>&1 | tail -2
done
date -u
for i in $(seq ${WAIT_S:-300}); do [ -f .data/n100k/meta.json ] && break; sleep 1; done
echo "== sim n100k"; cat .data/sim_n100k.log; date -u
if [ -f .data/n100k/meta.json ]; then
  mkdir -p $OUT/n100k; cp .data/n100k/meta.json $OUT/n100k/
  echo "== n100k run"
  /usr/bin/time -f "elapsed %e s, peak RSS %M kB" python3 -m trimsa run .data/n100k/input.fa.gz -o .data/n100k/out.fa -v 2>&1 | grep -v "^\s*$"
  /usr/bin/time -f "eval: elapsed %e s, peak RSS %M kB" python3 -m trimsa eval --reference .data/n100k/true.fa.gz --estimate .data/n100k/out.fa --label trimsa 2>&1 | tail -3
fi
date -u
