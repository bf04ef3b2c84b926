#!/usr/bin/env bash
# device2.sh's command-line timings again, with the code before (.data/base = 819e9ac)
# really run: `python3 -m trimsa` puts the working folder first on sys.path, so each
# version runs from its own folder (device2.sh's "base" runs, and the "before" runs of
# ../2026-11-27-gpu-band/device3.sh, ran the current code). Then bench_library.py.
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null
nproc; nvidia-smi --query-gpu=name --format=csv,noheader; date -u
TOP=$PWD
root() { if [ "$1" = base ]; then echo $TOP/.data/base; else echo $TOP; fi; }
go() {   # version tag input
    (cd $(root $1) && PYTHONPATH=/tmp/site NUMBA_CACHE_DIR=/tmp/nc_$1 CUPY_CACHE_DIR=/tmp/cc_$1 \
        /usr/bin/time -f "wall %e s" python3 -c "import trimsa, sys; print('trimsa from', trimsa.__file__, file=sys.stderr); from trimsa.cli import main; sys.exit(main())" \
        run $3 -o /tmp/o_$1_$2.fa -v 2>&1 \
        | grep -v "read:\|write:" | sed 's/ (short and long gaps; trained emissions, MUSCLE5.s gap probabilities)//')
}
F=$TOP/.data/speed/n256-pow-N512-h0.9-first256.fa
for r in 1 2; do
    for v in new base; do
        rm -rf /tmp/nc_$v /tmp/cc_$v
        echo "== $v first run $r"; go $v first$r $F
    done
done
for v in new base new base; do echo "== $v warm"; go $v warm $F; done
for f in /tmp/o_*.fa; do cmp -s $f /tmp/o_new_warm.fa || echo "DIFFERS: $f"; done
echo "compared $(ls /tmp/o_*.fa | wc -l) outputs"; rm -f /tmp/o_*.fa
G=$TOP/.data/speed/n2000.fa.gz
for v in new base new base; do echo "== 2000 x 400 $v warm"; go $v w2000 $G; done
cmp /tmp/o_new_w2000.fa /tmp/o_base_w2000.fa && echo "2000: same alignment"
date -u
export PYTHONPATH=/tmp/site:$PWD
python3 eval/bench_library.py $F --sizes 16,64,256 --out $OUT/bench_library_h100.md 2>&1 | tail -4
(export PYTHONPATH=/tmp/site:$PWD/.data/base; python3 .data/base/eval/bench_library.py $F --sizes 256) 2>&1 | tail -1
date -u
