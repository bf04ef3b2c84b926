#!/usr/bin/env bash
# On the same warm machine after sim.sh: trimsa run -v on the 10^5 set of rate R
# (default 0.001), then trimsa eval against its true alignment.
set -u
R=${R:-0.001}; d=.data/n100k_r$R
nproc; nvidia-smi --query-gpu=name --format=csv,noheader; date -u
for i in $(seq ${WAIT_S:-0}); do [ -f $d/meta.json ] && break; sleep 1; done
cat .data/sim_r$R.log; ls -l $d
[ -f $d/meta.json ] || { echo "no set at rate $R"; exit 0; }
timeout ${RUN_LIMIT:-420} /usr/bin/time -f "elapsed %e s, peak RSS %M kB" python -m trimsa run $d/input.fa.gz -o /tmp/n100k.aln -v 2>&1
echo "run exit $?"; date -u
/usr/bin/time -f "eval: elapsed %e s, peak RSS %M kB" python -m trimsa eval -r $d/true.fa.gz -e /tmp/n100k.aln --label trimsa 2>&1
date -u
