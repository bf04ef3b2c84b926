#!/usr/bin/env bash
# The warm command line's costs beyond the stages (cli_profile.py), after a first run has
# filled the caches; then the import time of the command line.
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null
export PYTHONPATH=/tmp/site:$PWD
nvidia-smi --query-gpu=name --format=csv,noheader; date -u
F=.data/speed/n256-pow-N512-h0.9-first256.fa
python3 -m trimsa run $F -o /tmp/first.fa -q
python3 $(dirname $0)/cli_profile.py $F 2>&1 | grep -v "read:\|write:" | sed 's/ (short and long gaps; trained emissions, MUSCLE5.s gap probabilities)//'
cd /tmp && python3 -X importtime -c "import trimsa.cli" 2>&1 | sort -t'|' -k2 -n | tail -12
date -u
