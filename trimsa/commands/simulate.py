"""``trimsa simulate``: a simulated data set (AliSim through piqtree)."""

from __future__ import annotations

from .. import simulate as _sim
from ._common import note


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "simulate",
        help="simulate a data set with AliSim (needs piqtree: Python >= 3.12)",
        description="Simulate sequences along a given or random birth-death tree with AliSim "
                    "(through piqtree; pip install 'trimsa[sim]', Python >= 3.12) and write "
                    "true.fa, input.fa, tree.nwk and meta.json into OUTDIR.",
    )
    p.add_argument("outdir", metavar="OUTDIR", help="folder to write (created if missing)")
    t = p.add_argument_group("tree (one of --tree, --taxa)")
    t.add_argument("--tree", default=None, help="Newick file (or string) with branch lengths")
    t.add_argument("--taxa", type=int, default=None,
                   help="number of taxa of a random birth-death tree (birth 1, death 0.5)")
    t.add_argument("--height", type=float, default=1.0,
                   help="root-to-tip height of the random tree (default 1.0)")
    t.add_argument("--tree-seed", type=int, default=None,
                   help="seed of the random tree (default: derived from --seed)")
    m = p.add_argument_group("sequence evolution")
    m.add_argument("--model", default=_sim.DEFAULT_MODEL,
                   help=f"IQ-TREE model string (default {_sim.DEFAULT_MODEL})")
    m.add_argument("--length", type=int, default=_sim.DEFAULT_LENGTH,
                   help=f"root sequence length (default {_sim.DEFAULT_LENGTH})")
    m.add_argument("--ins-rate", type=float, default=_sim.DEFAULT_INDEL_RATE,
                   help=f"insertion rate relative to substitutions (default {_sim.DEFAULT_INDEL_RATE})")
    m.add_argument("--del-rate", type=float, default=_sim.DEFAULT_INDEL_RATE,
                   help=f"deletion rate relative to substitutions (default {_sim.DEFAULT_INDEL_RATE})")
    m.add_argument("--ins-size", default=_sim.DEFAULT_INDEL_SIZE,
                   help=f"insertion size distribution, AliSim notation (default {_sim.DEFAULT_INDEL_SIZE})")
    m.add_argument("--del-size", default=_sim.DEFAULT_INDEL_SIZE,
                   help=f"deletion size distribution (default {_sim.DEFAULT_INDEL_SIZE})")
    m.add_argument("--seed", type=int, default=None,
                   help="AliSim seed (default: random, recorded in meta.json)")
    p.add_argument("--gzip", action="store_true", help="write true.fa.gz and input.fa.gz")
    p.add_argument("--force", action="store_true", help="overwrite existing files in OUTDIR")
    p.set_defaults(func=run)


def run(args) -> int:
    if args.tree is not None and args.taxa is not None:
        from ..errors import OptionError

        raise OptionError("give either --tree or --taxa, not both")
    _sim.check_outdir(args.outdir, args.force)
    sim = _sim.simulate(args.tree, taxa=args.taxa, height=args.height, model=args.model,
                        length=args.length, ins_rate=args.ins_rate, del_rate=args.del_rate,
                        ins_size=args.ins_size, del_size=args.del_size, seed=args.seed,
                        tree_seed=args.tree_seed, name=_name(args.outdir))
    paths = sim.write(args.outdir, gzip_fasta=args.gzip, force=args.force)
    m = sim.meta
    note(f"simulated {m['taxa']} sequences, {m['true_aln_columns']} true columns "
         f"(seed {m['seed']}) -> {paths['true'].parent}")
    return 0


def _name(outdir) -> str:
    from pathlib import Path

    return Path(outdir).resolve().name
