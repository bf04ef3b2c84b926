#!/usr/bin/env bash
# One call on the lent machine: the whole -m gpu suite (the k-mer tree's GPU path is new),
# the k-mer tree on the CPU and the GPU (eval/bench_kmer_tree.py; run as time_tree.py, see README), then trimsa run -v on n100k.
nproc; nvidia-smi --query-gpu=name --format=csv,noheader; date -u
python -m pytest -q -p no:cacheprovider -m gpu -n 8 tests/ 2>&1 | tail -4
date -u
python eval/bench_kmer_tree.py .data/n10k/input.fa.gz .data/n100k/input.fa.gz 2>&1
date -u
echo "== n100k: trimsa run -v, defaults"
timeout ${RUN_LIMIT:-300} /usr/bin/time -f "elapsed %e s, peak RSS %M kB" python -m trimsa run .data/n100k/input.fa.gz -o /tmp/n100k.aln -v 2>&1
echo "run exit $?"
python -m trimsa eval -r .data/n100k/true.fa.gz -e /tmp/n100k.aln --label trimsa 2>&1
date -u
