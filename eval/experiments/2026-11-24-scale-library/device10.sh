E=eval/experiments/2026-11-24-scale-library/scale.py
T=.data/tune/sim2/tune
date -u
for s in msa-pow-N384-h0.3 msa-pow-N384-h0.7 msa-pow-N384-h1.2; do
  python3 $E $T/$s/input.fa $T/$s/true.fa --library auto 2>&1 | tail -1
  python3 $E $T/$s/input.fa $T/$s/true.fa --library all --bytes 3.2e10 --cells 1e12 2>&1 | tail -1
  python3 $E $T/$s/input.fa $T/$s/true.fa --library tree --per-merge 128 --bytes 3.2e10 --cells 1e12 2>&1 | tail -1
done
date -u
for s in msa-scale-N1000-h0.6 msa-scale-N3000-h0.5; do
  f=$(ls $T/$s/input.fa*); r=$(ls $T/$s/true.fa*)
  python3 $E $f $r --library auto 2>&1 | grep -E "library:|per-merge"
  python3 $E $f $r --library tree --per-merge 128 --bytes 3.2e10 --cells 1e12 2>&1 | grep -E "library:|per-merge"
done
date -u
python3 $E .data/n10k/input.fa.gz .data/n10k/true.fa.gz --per-merge 32 --bytes 3.2e10 --cells 1e12 2>&1 | grep -E "library:|merges:|per-merge"
date -u
