#!/usr/bin/env bash
# simulate -> run -> benchmark: three small AliSim data sets, aligned with trimsa, scored
# next to MAFFT (when installed) and any stored outputs (e.g. TWILIGHT's in peers/).
#
#   pip install -e ".[sim,eval]"        # AliSim through piqtree needs Python >= 3.12
#   bash examples/benchmark_workflow.sh [OUTDIR]
set -euo pipefail
out=${1:-benchmark-demo}
mkdir -p "$out/sets"
for seed in 1 2 3; do
    set_dir="$out/sets/sim$seed"
    # a data set folder: true.fa (the true alignment), input.fa, tree.nwk, meta.json
    trimsa simulate "$set_dir" --taxa 24 --height 0.5 --length 300 --seed "$seed" --force
    # trimsa's alignment, stored beside other tools' outputs (peers/TOOL.fa)
    mkdir -p "$set_dir/peers"
    trimsa run "$set_dir/input.fa" -o "$set_dir/peers/trimsa.fa" -q
done
# run the installed peers on each input, score every estimate, write the report
run=none
if command -v mafft >/dev/null; then run=mafft; fi
trimsa benchmark "$out/sets" -o "$out/report" --run "$run" --versus trimsa
echo "report: $out/report/report.html (tables: $out/report/report.md)"
