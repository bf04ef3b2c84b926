#!/usr/bin/env bash
# The per-cluster witness sums against the code before them (HEAD's trimsa in .data/base2),
# on the H100 machine: the tune sets of .data/eq (sim2/tune msa <= 384 and trip sets,
# real/tune) through bench_run.py, each version from its own folder; Library.scores time on
# n256 (timing.py, 16 threads, alternated); the command line on n256, alternated, warm.
set -u
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null
export PYTHONPATH=/tmp/site
E=eval/experiments/2026-11-27-separable-merges
R=$PWD
F=$R/.data/speed/n256-pow-N512-h0.9-first256.fa
nproc; date -u; nvidia-smi --query-gpu=name --format=csv,noheader
for v in after before; do
  d=$R; [ $v = before ] && d=$R/.data/base2
  echo "== bench_run tune, $v"; date -u
  (cd $d && python3 eval/bench_run.py --split tune --data $R/.data/eq --variants trimsa --out /tmp/bench_$v 2>&1 | tail -3)
  cp /tmp/bench_$v.tsv $OUT/ 2>/dev/null
done
date -u
python3 $E/compare_tsv.py /tmp/bench_before.tsv /tmp/bench_after.tsv
echo "== timing.py n256, 16 threads"; date -u
(cd $R && PYTHONPATH=/tmp/site:$R python3 $E/timing.py $F 16 2)
go() {  # version, tag
  d=$R; [ $1 = before ] && d=$R/.data/base2
  (cd $d && python3 -c "import sys, trimsa; print('trimsa from', trimsa.__file__)" &&
   /usr/bin/time -f "elapsed %e s" python3 -c "import sys; from trimsa.cli import main; sys.exit(main())" run $F -o /tmp/o_$1.fa -v 2>&1 | grep -E "library|merges|total|elapsed")
}
for r in 1 2; do for v in before after; do echo "== CLI n256 $v $r"; go $v; done; done
cmp /tmp/o_before.fa /tmp/o_after.fa && echo "same alignment" || echo "alignments differ"
date -u
