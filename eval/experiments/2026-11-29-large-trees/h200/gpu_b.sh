python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site:$PWD
date -u
timeout 400 python3 -m pytest -q -m gpu -n 8 -p no:cacheprovider tests > $OUT/gpu_suite.log 2>&1; echo "suite rc $?"; tail -12 $OUT/gpu_suite.log
date -u
timeout 180 python3 eval/experiments/2026-11-29-nj-compact/ab.py --sizes 2000,4000,8000 --rounds 1 --threads 16 2>&1 | tee $OUT/ab_h200.log
date -u
