#!/usr/bin/env bash
# Call 1 on a lent GPU machine: simulate the 10^4 and 10^5 sets in the background (.data/ is
# ignored and stays on the warm machine for call 2), run the GPU tests meanwhile, wait for
# the 10^4 set, send back its metadata and files, and run `trimsa run -v` on it once if time
# is left (the machine goes back 30 s after a call: call 2 must follow at once).
set -u
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site:$PWD
nproc; date -u; nvidia-smi --query-gpu=name,memory.total --format=csv,noheader; git log -1 --format='commit %h %s'
# piqtree (AliSim) and its pure-Python dependencies, carried in .whl/sim (the machine has
# numpy, scipy and numba), on the path of the simulations only
python3 -m pip install -q --no-index --no-deps --target /tmp/sim .whl/sim/*.whl
SIMPATH=/tmp/sim:$PYTHONPATH
PYTHONPATH=$SIMPATH python3 -c "import sys, piqtree; print('piqtree', piqtree.__version__, 'python', sys.version.split()[0])" || { echo "no piqtree here"; exit 3; }
M='GTR{1.3/2.7/0.7/1.3/3.2/1.0}+F{0.29/0.21/0.22/0.28}+G4{0.55}'
S='POW{1.55/40}'
mkdir -p .data
PYTHONPATH=$SIMPATH setsid nohup /usr/bin/time -f "elapsed %e s, peak RSS %M kB" python3 -m trimsa simulate .data/n10k \
  --taxa 10000 --seed 10001 --model "$M" --length 400 --height 0.7 --ins-rate 0.04 --del-rate 0.04 \
  --ins-size "$S" --del-size "$S" --gzip --force > .data/sim_n10k.log 2>&1 < /dev/null &
PYTHONPATH=$SIMPATH setsid nohup /usr/bin/time -f "elapsed %e s, peak RSS %M kB" python3 -m trimsa simulate .data/n100k \
  --taxa 100000 --seed 100001 --model "$M" --length 400 --height 0.5 --ins-rate 0.001 --del-rate 0.001 \
  --ins-size "$S" --del-size "$S" --gzip --force > .data/sim_n100k.log 2>&1 < /dev/null &
echo "== GPU tests"
python3 -m pytest -q -m gpu -n 8 -p no:cacheprovider 2>&1 | tail -4
date -u
while [ $SECONDS -lt 500 ] && [ ! -f .data/n10k/meta.json ]; do sleep 1; done
date -u
for f in .data/sim_n10k.log .data/sim_n100k.log; do echo "== $f"; cat $f; done
mkdir -p $OUT/n10k
[ -f .data/n10k/meta.json ] && cp .data/n10k/meta.json .data/n10k/input.fa.gz .data/n10k/tree.nwk $OUT/n10k/ && ls -la .data/n10k
left=$((570 - SECONDS))
echo "== n10k run 1 (${left} s left)"
if [ -f .data/n10k/meta.json ] && [ $left -gt 60 ]; then
  timeout $left /usr/bin/time -f "elapsed %e s, peak RSS %M kB" python3 -m trimsa run .data/n10k/input.fa.gz -o .data/n10k/out1.fa -v 2>&1 | grep -v "^\s*$"
  left=$((590 - SECONDS)); [ $left -gt 5 ] && timeout $left python3 -m trimsa eval --reference .data/n10k/true.fa.gz --estimate .data/n10k/out1.fa --label trimsa 2>&1 | tail -2
fi
date -u
