"""numba's compilation times of one `trimsa run` (nested as compiled; those above 0.25 s).

    NUMBA_CACHE_DIR=<empty dir> python compile_times.py INPUT.fa [cpu|gpu]
"""
import sys, time
from numba.core import event
stack = []
class Timing(event.Listener):
    def on_start(self, ev):
        d = ev.data["dispatcher"].py_func
        stack.append((d.__module__ + "." + d.__qualname__, time.perf_counter()))
    def on_end(self, ev):
        name, t0 = stack.pop()
        t = time.perf_counter() - t0
        if t > 0.25:
            print(f"{'  ' * len(stack)}{t:6.2f} {name}", file=sys.stderr)
event.register("numba:compile", Timing())
from trimsa.cli import main
dev = sys.argv[2] if len(sys.argv) > 2 else "cpu"
t = time.perf_counter()
main(["run", sys.argv[1], "-o", "/tmp/compile_times.aln", "-v", "--device", dev])
print(f"wall in process {time.perf_counter() - t:.2f} s", file=sys.stderr)
