import time, sys, numpy as np
sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[3]))
from trimsa.progressive import engine, Aligner
rec = {}
orig_merge = engine.Walk.merge
tree_box = {}
def merge(self, v):
    tree_box['t'] = self.tree
    t = time.perf_counter(); orig_merge(self, v); rec[v] = time.perf_counter()-t
engine.Walk.merge = merge
t = time.perf_counter()
res = Aligner(threads=int(sys.argv[2]), consistency=0).align(sys.argv[1])
print("total", round(time.perf_counter()-t, 1), [s.line() for s in res.stages if s.name == "merges"][0][-10:], [s.line() for s in res.stages if s.name == "guide tree"][0][-10:])
tree = tree_box['t']; n = tree.n
finish = {}
depth = {}
for v in tree.postorder():
    a, b = tree.children[v - n]
    finish[v] = rec[v] + max(finish.get(a, 0.0), finish.get(b, 0.0))
    depth[v] = 1 + max(depth.get(a, 0), depth.get(b, 0))
root = tree.postorder()[-1]
tot = sum(rec.values())
print(f"serial merge time {tot:.1f} s; critical path {finish[root]:.1f} s ({finish[root]/tot:.0%}); tree depth {depth[root]} merges")
print("so the merges cannot run faster than", round(tot / finish[root], 1), "x on any number of threads")
