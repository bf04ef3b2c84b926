# Six protein tune sets for the pair-score tree's rule (run on the lent H200 machine,
# whose Python 3.12 takes piqtree 0.8.3; .whl/sim holds its pure-Python dependencies).
set -e
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl .whl/sim/*.whl
export PYTHONPATH=/tmp/site:$PWD
python3 -c "import piqtree; print('piqtree', piqtree.__version__)"
i=0; mkdir -p /tmp/sets
for spec in 360:0.6 360:1.2 420:0.6 420:1.2 480:0.6 480:1.2; do
  n=${spec%:*}; h=${spec#*:}; i=$((i+1))
  /usr/bin/time -f "%e s" python3 -m trimsa simulate /tmp/sets/prot-N$n-h$h --taxa $n \
    --height $h --length 450 --model "LG+G4{1.0}" --ins-rate 0.03 --del-rate 0.03 \
    --ins-size "POW{1.7/30}" --del-size "POW{1.7/30}" --seed $((7720 + i)) --gzip
done
tar -C /tmp -czf $OUT/sets.tgz sets
