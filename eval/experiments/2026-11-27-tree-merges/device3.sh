#!/usr/bin/env bash
# The command line with the session's final code: 256 x 490 and 2,000 x 400, first runs
# (numba's and CuPy's caches emptied) and warm runs; `trimsa run F -o OUT -v`.
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null
export PYTHONPATH=/tmp/site:$PWD
nproc; nvidia-smi --query-gpu=name --format=csv,noheader; date -u
go() {   # tag input
    NUMBA_CACHE_DIR=/tmp/nc CUPY_CACHE_DIR=/tmp/cc /usr/bin/time -f "wall %e s" \
        python3 -c "import trimsa, sys; from trimsa.cli import main; sys.exit(main())" run $2 -o /tmp/o_$1.fa -v 2>&1 \
        | grep -v "read:\|write:" | sed 's/ (short and long gaps; trained emissions, MUSCLE5.s gap probabilities)//'
}
for f in .data/speed/n256-pow-N512-h0.9-first256.fa .data/speed/n2000.fa.gz; do
  b=$(basename $f)
  for r in 1 2; do rm -rf /tmp/nc /tmp/cc; echo "== $b first $r"; go ${b}_first$r $f; done
  for r in 1 2; do echo "== $b warm $r"; go ${b}_warm$r $f; done
  for g in /tmp/o_${b}_*.fa; do cmp -s $g /tmp/o_${b}_warm1.fa || echo "DIFFERS: $g"; done
done
date -u
