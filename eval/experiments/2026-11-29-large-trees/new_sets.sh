set -e
python3 --version
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl .whl/sim/*.whl
export PYTHONPATH=/tmp/site:$PWD
python3 -c "import piqtree; print('piqtree', piqtree.__version__)"
i=0; mkdir -p $OUT/sets
for spec in 300:0.5 300:1.0 450:0.7 450:1.2 600:0.5 600:1.0 800:0.7 1000:0.5 1000:1.0 1500:0.7 2000:0.6; do
  n=${spec%:*}; h=${spec#*:}; i=$((i+1))
  out=$OUT/sets/msa-new-N$n-h$h
  /usr/bin/time -f "%e s" python3 -m trimsa simulate $out --taxa $n --height $h --length 400 \
    --model "GTR{1.2/2.5/0.9/1.1/2.8/1.0}+F{0.27/0.23/0.23/0.27}+G4{0.5}" \
    --ins-rate 0.035 --del-rate 0.035 --ins-size "POW{1.6/35}" --del-size "POW{1.6/35}" \
    --seed $((7700 + i)) --gzip
done
ls -la $OUT/sets/*
