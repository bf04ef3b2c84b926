#!/bin/bash
# trimsa tree's pair-score default on the H200 host (3,000 tune sequences, default 240 s
# budget, all 16 threads), then the GPU suite.
date -u
nproc
python3 -m trimsa tree .data/dev/tt/msa-scale-N3000-h0.5/input.fa.gz -o $OUT/n3000.nwk -v -q 2>&1 | tail -3
date -u
python3 - <<'PY'
import os, dendropy
import sys
sys.path.insert(0, "eval")
from tree_accuracy import nrf
true = dendropy.Tree.get(path=".data/dev/tt/msa-scale-N3000-h0.5/tree.nwk", schema="newick", preserve_underscores=True)
print("nRF", round(nrf(true, open(os.environ["OUT"] + "/n3000.nwk").read().strip()), 4))
PY
date -u
python3 -m pytest -q -m gpu -n 8 -p no:cacheprovider tests 2>&1 | tail -8
date -u
