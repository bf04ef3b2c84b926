python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site:$PWD
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; date -u; git log --oneline | head -1
python3 eval/compiled_manifest.py --kinds 21,22,23 > $OUT/manifest.log 2>&1; echo "manifest rc $?"; tail -4 $OUT/manifest.log
cp trimsa/progressive/compiled.json $OUT/
S=.data/newsets/sets/msa-new-N450-h1.2
for dev in gpu cpu auto; do
  /usr/bin/time -f "wall %e s, peak %M KB" python3 -m trimsa run $S/input.fa.gz -o /tmp/n450_$dev.fa -v -q --device $dev 2> $OUT/n450_$dev.log
done
cmp /tmp/n450_gpu.fa /tmp/n450_cpu.fa && cmp /tmp/n450_gpu.fa /tmp/n450_auto.fa && echo "n450: gpu, cpu and auto alignments identical"
python3 -m trimsa eval --reference $S/true.fa.gz --estimate /tmp/n450_gpu.fa
S=.data/newsets/sets/msa-new-N300-h1.0
python3 -m trimsa run $S/input.fa.gz -o /tmp/n300_auto.fa -v -q 2> $OUT/n300_auto.log
python3 -m trimsa eval --reference $S/true.fa.gz --estimate /tmp/n300_auto.fa
grep -h "guide tree\|total\|wall" $OUT/n450_*.log $OUT/n300_auto.log
date -u
