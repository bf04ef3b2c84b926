python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null && export PYTHONPATH=/tmp/site:$PWD

echo suite skipped: ran at e164b08 in the previous call
date -u
timeout 150 python3 eval/experiments/2026-11-29-nj-compact/ab.py --base 178edac --base-file .data/dev/cpu_178edac.py --sizes 4000,10000 --rounds 1 --threads 16 --matrix tiled --fasta .data/newsets/sets/msa-new-N2000-h0.6/input.fa.gz 2>&1 | tee $OUT/ab_pruned_tiled_h200.log
date -u
