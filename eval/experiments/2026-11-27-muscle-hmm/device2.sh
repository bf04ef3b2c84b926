#!/usr/bin/env bash
# `trimsa run -v` timed from the command line on a lent GPU machine after the pair HMM
# change (the speed targets of issue 27): the first 256 sequences of
# sim2/validate/msa-pow-N512-h0.9 (about 490 residues; timing only) twice (a fresh
# process each; the first with cold numba and kernel caches), and msa-scale-N2000-h0.7.
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null
export PYTHONPATH=/tmp/site:$PWD
nvidia-smi --query-gpu=name --format=csv,noheader
for f in .data/speed/n256-pow-N512-h0.9-first256.fa .data/speed/n256-pow-N512-h0.9-first256.fa \
         .data/val/sim2/validate/msa-scale-N2000-h0.7/input.fa.gz; do
    echo "== $f"
    /usr/bin/time -v python3 -m trimsa run "$f" -o /tmp/x.aln -v 2>&1 | \
        grep -E "^trimsa|Elapsed|Maximum resident"
done
