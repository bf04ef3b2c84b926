"""Peer alignments of the drawn real triplets (see draw.py), stored in each case's peers/.

Usage (from the repository root)::

    python eval/experiments/2026-11-24-affine-triplets/peers.py [--splits tune validate]
        [--tools mafft-linsi muscle] [--no-project] [--force] [--timeout 600]

For every case folder ``<cache>/real/<split>/<case>/`` it writes into ``peers/``:

run on the triplet alone (one process at a time, single-threaded, wall time measured)
    ``mafft-linsi.fa``  ``mafft --localpair --maxiterate 1000 --thread 1 --quiet input.fa``
    ``muscle.fa``       ``muscle -align input.fa -output muscle.fa -threads 1`` (MUSCLE 5.2)

projected from the stored alignment of the WHOLE family (no run; cheap)
    ``twilight-projected.fa``     ``<data>/real/<split>/<family>/peers/twilight.fa``
    ``mafft-linsi-projected.fa``  ``.../peers/mafft-linsi.fa``
    ``muscle-projected.fa``       ``.../peers/muscle.fa``

  each restricted to the case's three records, the columns where none of them has a
  residue removed. These are the family aligners' answers for the three records, made
  with the information of every other sequence of the family: not what the tool would
  do given the triplet alone. TWILIGHT cannot run here, so ``twilight-projected`` is the
  only TWILIGHT figure on real triplets. The stored family alignments of MAFFT L-INS-i
  and MUSCLE are missing for families with N > 256 (the data's peers skipped them), so
  those cases have no ``mafft-linsi-projected`` / ``muscle-projected``.

Each run appends ``tool, wall_s, rc, status, command`` to ``peers/runs.tsv``; outputs are
written through a temporary file, and a case whose output exists is skipped (resumable;
``--force`` runs again). An output whose names or residues differ from ``input.fa`` is
kept under ``<tool>.fa.bad`` and reported, never scored.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

from draw import CACHE, DATA, restrict, ungap, write_fasta  # noqa: E402

from trimsa.evaluate import read_alignment  # noqa: E402

RUN_TOOLS = {
    "mafft-linsi": lambda inp, out: (
        ["mafft", "--localpair", "--maxiterate", "1000", "--thread", "1", "--quiet", str(inp)],
        "stdout"),
    "muscle": lambda inp, out: (
        ["muscle", "-align", str(inp), "-output", str(out), "-threads", "1"], "file"),
}
PROJECTED = {"twilight-projected": "twilight.fa",
             "mafft-linsi-projected": "mafft-linsi.fa",
             "muscle-projected": "muscle.fa"}


def same_residues(inp_rows, out_rows) -> str | None:
    """``None`` when ``out_rows`` holds the names and residues of ``inp_rows``, else why not."""
    want = {n: ungap(s).upper() for n, s in inp_rows}
    got = {n: ungap(s).upper() for n, s in out_rows}
    if set(want) != set(got):
        return f"names differ: {sorted(set(want) ^ set(got))}"
    for n in want:
        if want[n] != got[n]:
            return f"residues of {n} differ"
    return None


def run_tool(tool: str, case: Path, timeout: float) -> tuple:
    """Run ``tool`` on ``case/input.fa``; returns (wall_s, rc, status, command)."""
    peers = case / "peers"
    target = peers / f"{tool}.fa"
    fd, tmp = tempfile.mkstemp(prefix=f".{tool}.", suffix=".tmp", dir=peers)
    os.close(fd)
    cmd, mode = RUN_TOOLS[tool](case / "input.fa", tmp)
    t0 = time.perf_counter()
    try:
        with open(tmp, "w") as out:
            proc = subprocess.run(cmd, stdout=out if mode == "stdout" else subprocess.DEVNULL,
                                  stderr=subprocess.PIPE, timeout=timeout, text=True)
        wall = time.perf_counter() - t0
        rc = proc.returncode
        status = "ok" if rc == 0 else f"rc={rc}: " + " ".join(proc.stderr.strip().splitlines()[-1:])
    except subprocess.TimeoutExpired:
        wall, rc, status = time.perf_counter() - t0, -1, "timeout"
    if status == "ok":
        try:
            why = same_residues(read_alignment(case / "input.fa"), read_alignment(tmp))
        except Exception as exc:  # unreadable output
            why = f"unreadable ({exc})"
        if why is None:
            os.replace(tmp, target)
        else:
            status = f"bad output: {why}"
            os.replace(tmp, peers / f"{tool}.fa.bad")
    if os.path.exists(tmp):
        os.unlink(tmp)
    return wall, rc, status, " ".join(target.name if c == tmp else c for c in cmd)


def project(family_aln: Path, case: Path, out: Path) -> str:
    names = [n for n, _s in read_alignment(case / "input.fa")]
    rows = restrict(read_alignment(family_aln), names)
    why = same_residues(read_alignment(case / "input.fa"), rows)
    if why is not None:
        return f"bad projection: {why}"
    write_fasta(out, rows)
    return "ok"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--splits", nargs="+", default=["tune", "validate"])
    ap.add_argument("--tools", nargs="*", default=list(RUN_TOOLS), choices=list(RUN_TOOLS))
    ap.add_argument("--no-project", action="store_true")
    ap.add_argument("--force", action="store_true")
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--cache", type=Path, default=CACHE)
    args = ap.parse_args(argv)
    for tool in args.tools:
        if shutil.which(RUN_TOOLS[tool]("x", "y")[0][0]) is None:
            ap.error(f"{tool}: executable not found")

    for split in args.splits:
        base = args.cache / "real" / split
        cases = sorted(p for p in base.iterdir() if p.is_dir())
        totals = {t: [0, 0.0] for t in args.tools}
        skipped = {t: 0 for t in args.tools}
        problems = []
        missing_proj = {}
        t_split = time.perf_counter()
        for case in cases:
            peers = case / "peers"
            peers.mkdir(exist_ok=True)
            family = case.name.rsplit("-t", 1)[0]
            for tool in args.tools:
                if (peers / f"{tool}.fa").exists() and not args.force:
                    skipped[tool] += 1
                    continue
                wall, rc, status, cmd = run_tool(tool, case, args.timeout)
                new = not (peers / "runs.tsv").exists()
                with open(peers / "runs.tsv", "a") as fh:
                    if new:
                        fh.write("tool\twall_s\trc\tstatus\tcommand\n")
                    fh.write(f"{tool}\t{wall:.3f}\t{rc}\t{status}\t{cmd}\n")
                totals[tool][0] += 1
                totals[tool][1] += wall
                if status != "ok":
                    problems.append(f"{case.name}: {tool}: {status}")
            if not args.no_project:
                for name, src in PROJECTED.items():
                    fam_aln = args.data / "real" / split / family / "peers" / src
                    if not fam_aln.exists():
                        missing_proj.setdefault(name, set()).add(family)
                        continue
                    if (peers / f"{name}.fa").exists() and not args.force:
                        continue
                    status = project(fam_aln, case, peers / f"{name}.fa")
                    if status != "ok":
                        problems.append(f"{case.name}: {name}: {status}")
        print(f"real/{split}: {len(cases)} cases, {time.perf_counter() - t_split:.1f} s")
        for tool, (n, wall) in totals.items():
            print(f"  {tool}: ran {n} (total wall {wall:.1f} s), skipped {skipped[tool]} (existing)")
        for name, fams in sorted(missing_proj.items()):
            print(f"  {name}: no family alignment for {sorted(fams)}")
        for line in problems:
            print("  problem:", line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
