#!/usr/bin/env bash
# One call on the lent machine: trimsa run -v at 10^5 sequences derived from n10k
# (eval/experiments/2026-11-25-bounded-tree/derive.py), with the defaults of the commit,
# its stage lines, wall time and peak RSS.
nproc; nvidia-smi --query-gpu=name --format=csv,noheader; git log --oneline -1; date -u
python eval/experiments/2026-11-25-bounded-tree/derive.py .data/n10k/input.fa.gz 10 /tmp/n100k.fa.gz
date -u
echo "== n100k (derived): trimsa run -v, defaults"
timeout ${RUN_LIMIT:-540} /usr/bin/time -f "elapsed %e s, peak RSS %M kB" python -m trimsa run /tmp/n100k.fa.gz -o /tmp/n100k.aln -v 2>&1
echo "run exit $?"
date -u
