#!/usr/bin/env bash
# GPU checks of the one-pipeline refactor, on a lent GPU machine, from the repository root:
#   bash eval/experiments/2026-11-24-one-pipeline/gpu_check.sh
# (biopython, dendropy and pytest-xdist wheels in .whl/). Writes $OUT/gpu_check.log and
# $OUT/bench_kernels_quick.md.
set -o pipefail
export PYTHONUNBUFFERED=1
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
W=/tmp/gpucheck
mkdir -p $W
{
date -u
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
python3 -c "import cupy, numba; print('cupy', cupy.__version__, 'numba', numba.__version__)"
echo "== pytest -m gpu"
python3 -m pytest -q -m gpu -n 8 -p no:cacheprovider tests/ 2>&1 | tail -8
echo "== the commands, GPU against CPU"
D=examples/data/input.fa
python3 -m trimsa triplets $D --device gpu -o $W/trip_gpu.tsv
python3 -m trimsa triplets $D --device cpu -o $W/trip_cpu.tsv
cmp $W/trip_gpu.tsv $W/trip_cpu.tsv && echo "triplets: GPU == CPU ($(wc -l < $W/trip_cpu.tsv) lines)"
for mode in semiglobal local; do
  python3 -m trimsa triplets tests/data/six.fa --mode $mode --device gpu -o $W/t6g.tsv
  python3 -m trimsa triplets tests/data/six.fa --mode $mode --device cpu -o $W/t6c.tsv
  cmp $W/t6g.tsv $W/t6c.tsv && echo "triplets --mode $mode: GPU == CPU"
done
python3 -m trimsa tree $D --band exact --triplets all --device gpu -o $W/tree_gpu.nwk -v
python3 -m trimsa tree $D --band exact --triplets all --device cpu -o $W/tree_cpu.nwk -v
cmp $W/tree_gpu.nwk $W/tree_cpu.nwk && echo "tree (all exact triplets): GPU == CPU"
python3 -m trimsa run $D --tree-distances triplet --gap -2 --method nj --device gpu -o $W/run_gpu.fa --tree-out $W/run_gpu.nwk -v -q
python3 -m trimsa run $D --tree-distances triplet --gap -2 --method nj --device cpu -o $W/run_cpu.fa --tree-out $W/run_cpu.nwk -v -q
cmp $W/run_gpu.fa $W/run_cpu.fa && cmp $W/run_gpu.nwk $W/run_cpu.nwk && echo "run --tree-distances triplet: GPU == CPU"
python3 -m trimsa run $D --device gpu -o $W/x.fa; echo "run --device gpu with k-mer distances: exit $?"
python3 -m trimsa align3 tests/data/trip3.fa --device gpu -o $W/y.fa; echo "align3 --device gpu: exit $?"
echo "== eval/bench_kernels.py --quick (GPU scores against the CPU engine, then timings)"
python3 eval/bench_kernels.py --quick --out "$OUT/bench_kernels_quick.md" 2>&1 | tail -25
date -u
} 2>&1 | tee "$OUT/gpu_check.log"
