"""Where a first run's time goes: numba's compile times (nested, >= 0.1 s), each CUDA
module's compile (trimsa.kernels.module), and the stage lines of `trimsa run -v`.

    NUMBA_CACHE_DIR=<empty dir> CUPY_CACHE_DIR=<empty dir> python profile_cold.py INPUT.fa [cpu|gpu]
"""
import sys, time
t_start = time.perf_counter()
from numba.core import event
stack = []
class Timing(event.Listener):
    def on_start(self, ev):
        d = ev.data["dispatcher"].py_func
        stack.append((d.__module__ + "." + d.__qualname__, time.perf_counter()))
    def on_end(self, ev):
        name, t0 = stack.pop()
        t = time.perf_counter() - t0
        if t >= 0.1:
            print(f"{'  ' * len(stack)}{t:6.2f} {name}  (at {t0 - t_start:.2f})", file=sys.stderr)
event.register("numba:compile", Timing())
import trimsa.kernels as K
_module = K.module.__wrapped__
def timed(*a, **k):
    t0 = time.perf_counter()
    m = _module(*a, **k)
    print(f"  cuda module {a[0]}: {time.perf_counter() - t0:.2f} s (at {t0 - t_start:.2f})", file=sys.stderr)
    return m
K.module = __import__("functools").lru_cache(maxsize=None)(timed)
from trimsa.cli import main
print(f"imports {time.perf_counter() - t_start:.2f} s", file=sys.stderr)
dev = sys.argv[2] if len(sys.argv) > 2 else "cpu"
main(["run", sys.argv[1], "-o", "/tmp/profile_cold.aln", "-v", "--device", dev])
print(f"wall in process {time.perf_counter() - t_start:.2f} s", file=sys.stderr)
