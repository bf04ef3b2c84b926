"""Time and memory of the NJ tree's midpoint rooting: dendropy's ``reroot_at_midpoint``
(used before) against ``trimsa.tree.cluster._midpoint_rooted`` (used now), on random
Euclidean distance matrices; each case in a fresh process so that ``ru_maxrss`` is its own.

    python eval/experiments/2026-11-29-nj-midpoint/nj_root.py
"""

import subprocess
import sys

CHILD = r"""
import resource, sys, time
import numpy as np
from trimsa.tree import _cpu, cluster
from trimsa.tree.guide import GuideTree
n, how = int(sys.argv[1]), sys.argv[2]
rng = np.random.default_rng(1)
X = rng.random((n, 5))
D = np.sqrt(((X[:, None] - X[None]) ** 2).sum(-1))
D = (D + D.T) / 2
names = [f"s{i}" for i in range(n)]
cluster.neighbor_joining(D[:5, :5], names[:5])   # compile
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t = time.perf_counter()
_cpu.nj_joins(np.ascontiguousarray(D.copy()))
joins = time.perf_counter() - t
t = time.perf_counter()
if how == "dendropy":
    tree = cluster.neighbor_joining(D, names, root=False).to_dendropy()
    tree.is_rooted = True
    tree.reroot_at_midpoint(update_bipartitions=False, suppress_unifurcations=True)
    GuideTree.from_dendropy(tree, names)
else:
    cluster.neighbor_joining(D, names)
total = time.perf_counter() - t
grow = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base) / 1024
print(f"| {n} | {how} | {joins:.2f} | {total:.2f} | {grow:.0f} |")
"""

print("| n | rooting | joins s | NJ tree s (joins, rooting, GuideTree) | peak RSS growth MiB |")
print("|---:|---|---:|---:|---:|")
for n, how in ((1500, "dendropy"), (1500, "two walks"), (4000, "two walks")):
    out = subprocess.run([sys.executable, "-c", CHILD, str(n), how], capture_output=True,
                         text=True, check=True)
    print(out.stdout.strip(), flush=True)
