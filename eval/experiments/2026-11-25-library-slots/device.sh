#!/usr/bin/env bash
# One call on the lent machine: the library's GPU tests (fewer partners per residue
# included), then trimsa run -v at 10^5 derived sequences with the defaults (the tree
# library now keeps fewer partners before fewer pairs, and its cells grow with n).
nproc; nvidia-smi --query-gpu=name --format=csv,noheader; date -u
python -m pytest -q -p no:cacheprovider -m gpu -n 4 tests/test_library_gpu.py tests/test_progressive.py 2>&1 | tail -3
date -u
python eval/experiments/2026-11-25-bounded-tree/derive.py .data/n10k/input.fa.gz 10 /tmp/n100k.fa.gz
echo "== n100k (derived): trimsa run -v, defaults"
timeout ${RUN_LIMIT:-450} /usr/bin/time -f "elapsed %e s, peak RSS %M kB" python -m trimsa run /tmp/n100k.fa.gz -o /tmp/n100k.aln -v
echo "run exit $?"
date -u
