"""A phylogenetics workflow: align, build a tree, score against the simulation's truth.

Run from the repository root::

    python examples/phylo_workflow.py [DATASET_FOLDER] [OUTDIR]

DATASET_FOLDER holds AliSim output as in ../shared/data/sim/msa-*: ``input.fa``
(unaligned), ``true.fa`` (true alignment) and ``tree.nwk`` (true tree); the
default is the small set copied into tests/data. The script

1. aligns ``input.fa`` with :class:`trimsa.progressive.Aligner`;
2. writes the alignment as relaxed PHYLIP for IQ-TREE
   (``iqtree2 -s OUTDIR/aln.phy -m GTR+G``) and the guide tree as Newick;
3. builds a quick neighbour-joining tree from the alignment's p-distances
   with dendropy and compares it with the true tree (Robinson-Foulds);
4. scores the alignment against ``true.fa`` (SPFN/SPFP/TC, FastSP's
   definitions) with :func:`trimsa.evaluate.compare`.
"""

from __future__ import annotations

import io
import sys
from pathlib import Path

import dendropy
from dendropy.calculate import treecompare

from trimsa.evaluate import compare
from trimsa.progressive import Aligner


def find(folder: Path, name: str) -> Path:
    p = folder / name
    return p if p.exists() else folder / (name + ".gz")


def nj_tree(result, taxa):
    """Neighbour joining on p-distances (columns where both rows have residues)."""
    names = list(result.names)
    rows = list(result.rows)
    lines = ["," + ",".join(names)]
    for a, ra in zip(names, rows):
        cells = []
        for rb in rows:
            both = [(x, y) for x, y in zip(ra, rb) if x != "-" and y != "-"]
            diff = sum(x.upper() != y.upper() for x, y in both)
            cells.append(f"{diff / max(len(both), 1):.6f}")
        lines.append(a + "," + ",".join(cells))
    pdm = dendropy.PhylogeneticDistanceMatrix.from_csv(
        io.StringIO("\n".join(lines) + "\n"), taxon_namespace=taxa)
    return pdm.nj_tree()


def main(folder: Path, outdir: Path) -> None:
    outdir.mkdir(parents=True, exist_ok=True)
    aligner = Aligner(threads=2)
    result = aligner.align(find(folder, "input.fa"))
    print(f"{aligner!r}: {len(result.names)} sequences, {len(result)} columns; "
          + ", ".join(f"{k} {v:.2f}s" for k, v in result.timings.items()))

    result.write(outdir / "aln.phy", "phylip")  # relaxed PHYLIP: full names, IQ-TREE reads it
    result.write(outdir / "aln.fa", "fasta")
    (outdir / "guide.nwk").write_text(result.newick() + "\n")
    print(f"wrote {outdir / 'aln.phy'} (for: iqtree2 -s {outdir / 'aln.phy'} -m GTR+G) "
          f"and {outdir / 'guide.nwk'}")

    taxa = dendropy.TaxonNamespace()
    true_tree = dendropy.Tree.get(path=str(folder / "tree.nwk"), schema="newick",
                                  preserve_underscores=True, taxon_namespace=taxa)
    estimate = nj_tree(result, taxa)
    true_tree.encode_bipartitions()
    estimate.encode_bipartitions()
    rf = treecompare.symmetric_difference(true_tree, estimate)
    print(f"NJ tree from the alignment vs true tree: Robinson-Foulds distance {rf}")

    s = compare(find(folder, "true.fa"), outdir / "aln.fa")
    print(f"alignment vs AliSim truth: SPFN {s.spfn:.4f}  SPFP {s.spfp:.4f}  TC {s.tc:.4f}")


if __name__ == "__main__":
    here = Path(__file__).resolve().parent.parent
    folder = Path(sys.argv[1]) if len(sys.argv) > 1 and sys.argv[1] else None
    out = Path(sys.argv[2]) if len(sys.argv) > 2 else Path("phylo_workflow_out")
    if folder is None:
        # the 16-taxon set shipped with the tests
        import shutil
        import tempfile

        tmp = Path(tempfile.mkdtemp())
        for src, dst in (("msa16_input.fa", "input.fa"), ("msa16_true.fa", "true.fa"),
                         ("msa16_tree.nwk", "tree.nwk")):
            shutil.copy(here / "tests" / "data" / src, tmp / dst)
        folder = tmp
    main(folder, out)
