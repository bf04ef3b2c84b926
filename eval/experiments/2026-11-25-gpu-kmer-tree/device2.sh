#!/usr/bin/env bash
# Second call: the k-mer sets on all threads; the new tests of the GPU path; where the
# bounded tree's time goes at 10^5 on the GPU and on the CPU (profile.py); trimsa run -v.
nproc; nvidia-smi --query-gpu=name --format=csv,noheader; date -u
python -m pytest -q -p no:cacheprovider -m gpu tests/test_kmer_blocks.py 2>&1 | tail -2
python -m pytest -q -p no:cacheprovider tests/test_kmer_blocks.py tests/test_tree_bounded.py 2>&1 | tail -2
echo "== profile, gpu"; python eval/experiments/2026-11-25-gpu-kmer-tree/profile.py .data/n100k/input.fa.gz gpu
echo "== profile, cpu"; python eval/experiments/2026-11-25-gpu-kmer-tree/profile.py .data/n100k/input.fa.gz cpu
date -u
echo "== n100k: trimsa run -v, defaults"
timeout ${RUN_LIMIT:-260} /usr/bin/time -f "elapsed %e s, peak RSS %M kB" python -m trimsa run .data/n100k/input.fa.gz -o /tmp/n100k.aln -v 2>&1
echo "run exit $?"
python -m trimsa eval -r .data/n100k/true.fa.gz -e /tmp/n100k.aln --label trimsa 2>&1
date -u
