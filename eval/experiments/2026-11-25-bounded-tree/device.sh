#!/usr/bin/env bash
# One call on the lent machine: the bounded tree at 10^4 against the dense one, then
# trimsa tree and trimsa run on 10^5 derived sequences, with time and peak memory.
E=eval/experiments/2026-11-25-bounded-tree
nproc; nvidia-smi --query-gpu=name --format=csv,noheader; date -u
python -m pytest -q -p no:cacheprovider tests/test_tree_bounded.py 2>&1 | tail -2
python $E/derive.py .data/n10k/input.fa.gz 10 /tmp/n100k.fa.gz
echo "== n10k: bounded (budget of 1163^2 floats) and dense, 16 threads"
/usr/bin/time -f "elapsed %e s, peak RSS %M kB" python $E/compare.py .data/n10k/input.fa.gz .data/n10k/tree.nwk 10820672 --dense
echo "== n10k: dense alone, for its peak RSS"
/usr/bin/time -f "elapsed %e s, peak RSS %M kB" python -m trimsa tree .data/n10k/input.fa.gz -o /tmp/n10k.nwk --tree-distances kmer --method upgma -v
echo "== n100k (derived): trimsa tree, default budget"
/usr/bin/time -f "elapsed %e s, peak RSS %M kB" python -m trimsa tree /tmp/n100k.fa.gz -o /tmp/n100k.nwk --tree-distances kmer --method upgma -v
echo "== n100k (derived): trimsa run -v"
timeout ${RUN_LIMIT:-330} /usr/bin/time -f "elapsed %e s, peak RSS %M kB" python -m trimsa run /tmp/n100k.fa.gz -o /tmp/n100k.aln -v
echo "run exit $?"
date -u
