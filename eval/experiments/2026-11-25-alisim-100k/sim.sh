#!/usr/bin/env bash
# One call on the lent machine: trimsa simulate at 10^4 (calibration) and 10^5 taxa with
# the settings of the n10k set but a quarter of its indel rate and height 0.5; the sets stay
# in .data/ on the machine, the 10^5 set's files come back through $OUT (true.fa.gz in parts).
set -u
M='GTR{1.3/2.7/0.7/1.3/3.2/1.0}+F{0.29/0.21/0.22/0.28}+G4{0.55}'
S="--model $M --length 400 --height 0.5 --ins-rate 0.01 --del-rate 0.01 --ins-size POW{1.55/40} --del-size POW{1.55/40} --gzip --force"
nproc; date -u
echo "== 10^4 taxa"
/usr/bin/time -f "elapsed %e s, peak RSS %M kB" python -m trimsa simulate .data/s10k --taxa 10000 --seed 20001 $S
python - <<'PY'
import json; m=json.load(open(".data/s10k/meta.json")); print({k: m[k] for k in ("true_aln_columns","seq_len_mean","gap_fraction")})
PY
date -u
echo "== 10^5 taxa"
timeout ${SIM_LIMIT:-430} /usr/bin/time -f "elapsed %e s, peak RSS %M kB" python -m trimsa simulate .data/n100k --taxa 100000 --seed 100001 $S
echo "simulate exit $?"
date -u
ls -l .data/n100k || exit 0
cp .data/n100k/meta.json .data/n100k/input.fa.gz $OUT/
gzip -c .data/n100k/tree.nwk > $OUT/tree.nwk.gz
split -b 15M -d .data/n100k/true.fa.gz $OUT/true.fa.gz.part
ls -l $OUT
