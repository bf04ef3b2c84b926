"""Grid over gap costs on the msa-* sets (N <= 256); prints mean SPFN/SPFP per setting."""
import sys, itertools, json
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parent))
from dev_prog import run
SETS = [f'msa-N{n}-h{h}' for n in (16, 64, 256) for h in ('0.2', '0.5', '1.0')]
grid = json.loads(sys.argv[1])
keys = list(grid)
for vals in itertools.product(*[grid[k] for k in keys]):
    kw = dict(zip(keys, vals))
    res = [run(s, **kw) for s in SETS]
    fn = sum(r[0] for r in res) / len(res); fp = sum(r[1] for r in res) / len(res)
    per = ' '.join(f'{r[0]:.3f}/{r[1]:.3f}' for r in res)
    print(json.dumps(kw), f'{fn:.4f} {fp:.4f}', per, flush=True)
