"""Where a warm `trimsa run` from the command line spends its time beyond the stages'
own work: the CLI twice in one process (the second finds numba's functions loaded, the
CUDA context made and the memory pool filled), the first under cProfile.

    python eval/experiments/2026-11-27-library-profile/cli_profile.py FASTA
"""
import cProfile
import io
import pstats
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
t0 = time.perf_counter()
from trimsa.cli import main  # noqa: E402

print(f"import trimsa.cli: {time.perf_counter() - t0:.3f} s", flush=True)
pr = cProfile.Profile()
for rep in range(2):
    t = time.perf_counter()
    if rep == 0:
        pr.enable()
    main(["run", sys.argv[1], "-o", f"/tmp/cli{rep}.fa", "-v"])
    if rep == 0:
        pr.disable()
    print(f"run {rep}: {time.perf_counter() - t:.3f} s", flush=True)
s = io.StringIO()
pstats.Stats(pr, stream=s).sort_stats("cumulative").print_stats(45)
print(s.getvalue()[-9000:])
