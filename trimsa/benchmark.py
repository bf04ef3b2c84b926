"""Compare aligners over many data sets: ``trimsa benchmark``.

A *data set* is a folder holding a reference alignment (``true.fa``, plain or
gzip), optionally the unaligned input (``input.fa``) and stored estimates of
other aligners in ``peers/`` (``peers/<tool>.fa``; their wall times, when
known, in ``peers/scores.tsv`` with columns ``tool`` and ``wall_s``), which is
how TWILIGHT's outputs are kept. :func:`benchmark` aligns each set's input with
trimsa and, when asked and installed, with MAFFT, MUSCLE, Clustal Omega,
Kalign and FAMSA (the commands are :func:`peer_command`), scores every
estimate with :func:`trimsa.evaluate.compare_many` and returns the rows.
:func:`write_report` writes them as TSV and markdown, three figures
(matplotlib) and one self-contained HTML page.

Running ``python -m trimsa.benchmark _famsa IN OUT THREADS`` aligns with FAMSA
through pyfamsa (the way :func:`peer_command` runs it).
"""

from __future__ import annotations

import base64
import csv
import html
import importlib.util
import math
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from .errors import BackendUnavailableError, InputFormatError, OptionError, TrimsaError

#: Aligners ``benchmark`` can run (``trimsa`` in-process, the others as programs).
RUNNABLE = ("trimsa", "mafft", "mafft-linsi", "muscle", "clustalo", "kalign", "famsa")
#: Names of a set's reference and input files (``.fa`` or ``.fa.gz``).
REFERENCE, INPUT = "true", "input"


# -- the peers --------------------------------------------------------------------------

def peer_exe(tool: str) -> str | None:
    """Path of a peer's executable (Debian keeps ``mafft-linsi`` in /usr/lib/mafft/bin)."""
    return shutil.which(tool) or shutil.which(tool, path="/usr/lib/mafft/bin")


def peer_available(tool: str) -> bool:
    if tool == "famsa":
        return importlib.util.find_spec("pyfamsa") is not None
    return peer_exe(tool) is not None


def peer_command(tool: str, inp: str, out: str, threads: int, alphabet: str = "dna") -> tuple:
    """``(argv, stdout file or None)`` of a peer aligning ``inp`` into ``out``.

    MAFFT with ``--auto`` (``mafft``) or L-INS-i (``mafft-linsi``), MUSCLE 5,
    Clustal Omega, Kalign 3 and FAMSA (through pyfamsa), each on ``threads``
    threads with its defaults.
    """
    t = str(threads)
    protein = alphabet == "protein"
    if tool == "mafft":
        return ["mafft", "--auto", "--thread", t, "--quiet", "--preservecase", inp], out
    if tool == "mafft-linsi":
        return [peer_exe("mafft-linsi"), "--thread", t, "--quiet", "--preservecase", inp], out
    if tool == "clustalo":
        return ["clustalo", "-i", inp, "-o", out, "--outfmt=fa",
                f"--seqtype={'Protein' if protein else 'DNA'}", f"--threads={t}", "--force",
                "--wrap=100000"], None
    if tool == "muscle":
        return ["muscle", "-align", inp, "-output", out, "-threads", t], None
    if tool == "kalign":
        return ["kalign", "-i", inp, "-o", out, "--type", "protein" if protein else "dna",
                "-n", t], None
    if tool == "famsa":
        return [sys.executable, "-m", "trimsa.benchmark", "_famsa", inp, out, t], None
    raise OptionError(f"unknown aligner {tool!r}; choose from: {', '.join(RUNNABLE)}")


def run_famsa(inp: str, out: str, threads: int) -> None:
    """FAMSA through pyfamsa with its defaults."""
    import pyfamsa
    from Bio import SeqIO

    seqs = [pyfamsa.Sequence(r.id.encode(), str(r.seq).encode())
            for r in SeqIO.parse(inp, "fasta")]
    msa = pyfamsa.Aligner(threads=threads).align(seqs)
    with open(out, "w") as fh:
        for s in msa:
            fh.write(f">{s.id.decode()}\n{s.sequence.decode()}\n")


def natural_key(name: str) -> list:
    """Sort key that orders embedded numbers by value (L64 before L128)."""
    return [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", name)]


# -- data sets ---------------------------------------------------------------------------

def _fasta(folder: Path, stem: str) -> Path | None:
    for sfx in (".fa", ".fa.gz", ".fasta", ".fasta.gz"):
        p = folder / f"{stem}{sfx}"
        if p.is_file():
            return p
    return None


@dataclass
class DataSet:
    """One data set folder (see the module's description)."""

    name: str
    folder: Path
    reference: Path
    input: Path | None
    stored: dict = field(default_factory=dict)   # label -> path of peers/<label>.fa[.gz]
    stored_wall: dict = field(default_factory=dict)   # label -> seconds

    @classmethod
    def read(cls, folder: Path) -> "DataSet":
        ref = _fasta(folder, REFERENCE)
        if ref is None:
            raise InputFormatError(f"{folder}: no reference alignment ({REFERENCE}.fa or "
                                   f"{REFERENCE}.fa.gz)")
        stored, wall = {}, {}
        peers = folder / "peers"
        if peers.is_dir():
            for p in sorted(peers.iterdir()):
                m = re.fullmatch(r"(.+?)\.(fa|fasta)(\.gz)?", p.name)
                if m and p.is_file():
                    stored[m.group(1)] = p
            times = peers / "scores.tsv"
            if times.is_file():
                with open(times, newline="") as fh:
                    for row in csv.DictReader(fh, delimiter="\t"):
                        try:
                            wall[row["tool"]] = float(row["wall_s"])
                        except (KeyError, TypeError, ValueError):
                            continue
        return cls(folder.name, folder, ref, _fasta(folder, INPUT), stored, wall)


def find_sets(dirs) -> list:
    """The data sets of ``dirs``: each is a data set or a folder of them (one level)."""
    out = []
    for d in dirs:
        d = Path(d)
        if not d.is_dir():
            raise InputFormatError(f"{d}: not a folder")
        if _fasta(d, REFERENCE) is not None:
            out.append(DataSet.read(d))
            continue
        subs = [s for s in sorted(d.iterdir(), key=lambda p: natural_key(p.name))
                if s.is_dir() and _fasta(s, REFERENCE) is not None]
        if not subs:
            raise InputFormatError(f"{d}: holds no data set (a folder with {REFERENCE}.fa)")
        out.extend(DataSet.read(s) for s in subs)
    names = [s.name for s in out]
    if len(set(names)) < len(names):
        twice = next(n for n in names if names.count(n) > 1)
        raise InputFormatError(f"two data sets are called {twice!r}; give folders whose data "
                               "sets have different names")
    return out


# -- running and scoring -----------------------------------------------------------------

@dataclass
class Row:
    """One estimate of one data set."""

    dataset: str
    tool: str
    source: str   # "run" or "stored"
    spfn: float = math.nan
    spfp: float = math.nan
    tc: float = math.nan
    wall_s: float = math.nan
    error: str = ""


def _align_trimsa(inp: Path, out: Path, threads: int, device: str) -> None:
    from .progressive.api import Aligner

    Aligner(threads=threads, device=device).align(str(inp)).write(str(out))


def _align_peer(tool: str, inp: Path, out: Path, threads: int, alphabet: str,
                timeout: float) -> None:
    import gzip

    plain = inp
    if inp.suffix == ".gz":   # the peers read plain FASTA
        plain = out.with_name(out.name + ".input.fa")
        with gzip.open(inp, "rb") as fi, open(plain, "wb") as fo:
            shutil.copyfileobj(fi, fo)
    argv, stdout = peer_command(tool, str(plain), str(out), threads, alphabet)
    try:
        if stdout is None:
            p = subprocess.run(argv, capture_output=True, timeout=timeout)
        else:
            with open(stdout, "wb") as fh:
                p = subprocess.run(argv, stdout=fh, stderr=subprocess.PIPE, timeout=timeout)
    finally:
        if plain != inp:
            plain.unlink(missing_ok=True)
    if p.returncode != 0:
        msg = (p.stderr or b"").decode(errors="replace").strip().splitlines()
        raise TrimsaError(f"{tool} exited with status {p.returncode}"
                          + (f": {msg[-1][:200]}" if msg else ""))


def benchmark(dirs, out_dir, *, run=("trimsa",), threads: int = 0, device: str = "auto",
              timeout: float = 3600.0, progress=None) -> list:
    """Run, collect and score every estimate of the data sets in ``dirs``.

    ``run`` names the aligners to run on each set's input (:data:`RUNNABLE`;
    those not installed are an error); their alignments go to
    ``out_dir/alignments/<set>/<tool>.fa``. Stored estimates (``peers/``) are
    scored as they are. ``progress(done, total)`` is called after each set.
    Returns the :class:`Row` of every (set, estimate); an aligner that fails
    on a set gives a row with its ``error`` and no scores.
    """
    from .evaluate import alignment_matrix, compare_many, read_alignment

    run = tuple(dict.fromkeys(run))
    for tool in run:
        if tool not in RUNNABLE:
            raise OptionError(f"unknown aligner {tool!r}; choose from: {', '.join(RUNNABLE)}")
        if tool != "trimsa" and not peer_available(tool):
            raise BackendUnavailableError(f"{tool} is not installed (it is run with: "
                                          f"{' '.join(peer_command(tool, 'IN', 'OUT', 1)[0][:3])}"
                                          " ...)")
    sets = find_sets(dirs)
    nthreads = threads or (os.cpu_count() or 1)
    rows = []
    for done, ds in enumerate(sets, start=1):
        ests, labels, wall, srcs = [], [], {}, {}
        if run and ds.input is None:
            raise InputFormatError(f"{ds.folder}: no {INPUT}.fa to align")
        folder = Path(out_dir) / "alignments" / ds.name
        try:   # a reference that cannot be read fails every estimate: align nothing
            alignment_matrix(read_alignment(ds.reference), str(ds.reference))
        except TrimsaError as exc:
            rows.extend(Row(ds.name, t, "run", error=str(exc).splitlines()[0]) for t in run)
            rows.extend(Row(ds.name, t, "stored", error=str(exc).splitlines()[0])
                        for t in ds.stored if t not in run)
            if progress is not None:
                progress(done, len(sets))
            continue
        for tool in run:
            folder.mkdir(parents=True, exist_ok=True)
            out = folder / f"{tool}.fa"
            t0 = time.perf_counter()
            try:
                if tool == "trimsa":
                    _align_trimsa(ds.input, out, threads, device)
                else:
                    alphabet = _alphabet_of(ds.input)
                    _align_peer(tool, ds.input, out, nthreads, alphabet, timeout)
            except (TrimsaError, OSError, subprocess.SubprocessError) as exc:
                rows.append(Row(ds.name, tool, "run", error=str(exc).splitlines()[0]))
                continue
            wall[tool] = time.perf_counter() - t0
            ests.append(out)
            labels.append(tool)
            srcs[tool] = "run"
        for label, path in ds.stored.items():
            if label in srcs:
                continue
            ests.append(path)
            labels.append(label)
            srcs[label] = "stored"
            if label in ds.stored_wall:
                wall[label] = ds.stored_wall[label]
        for label, path in zip(labels, ests):
            try:
                table = compare_many(ds.reference, [path], labels=[label])
            except TrimsaError as exc:
                rows.append(Row(ds.name, label, srcs[label], error=str(exc)))
                continue
            s = table.rows[0][1]
            rows.append(Row(ds.name, label, srcs[label], s.spfn, s.spfp, s.tc,
                            wall.get(label, math.nan)))
        if progress is not None:
            progress(done, len(sets))
    return rows


def _alphabet_of(path: Path) -> str:
    from .io import read_sequences

    return "protein" if read_sequences(str(path)).alphabet.name == "protein" else "dna"


# -- the report --------------------------------------------------------------------------

def _mean(xs) -> float:
    xs = [x for x in xs if not math.isnan(x)]
    return sum(xs) / len(xs) if xs else math.nan


def summary(rows) -> list:
    """Per tool: ``(tool, sets scored, mean SPFN, mean SPFP, mean TC, mean wall seconds)``."""
    tools = list(dict.fromkeys(r.tool for r in rows))
    out = []
    for t in tools:
        ok = [r for r in rows if r.tool == t and not r.error]
        out.append((t, len(ok), _mean([r.spfn for r in ok]), _mean([r.spfp for r in ok]),
                    _mean([r.tc for r in ok]), _mean([r.wall_s for r in ok])))
    return out


def wins(rows, versus: str) -> list:
    """Per tool other than ``versus``: ``(tool, sets, SPFN better/tied/worse, SPFP ...)``
    counted over the sets both scored (lower is better)."""
    ref = {r.dataset: r for r in rows if r.tool == versus and not r.error}
    out = []
    for t in dict.fromkeys(r.tool for r in rows):
        if t == versus:
            continue
        counts = {"spfn": [0, 0, 0], "spfp": [0, 0, 0]}
        n = 0
        for r in rows:
            if r.tool != t or r.error or r.dataset not in ref:
                continue
            n += 1
            for k in counts:
                a, b = getattr(r, k), getattr(ref[r.dataset], k)
                counts[k][0 if a < b else 1 if a == b else 2] += 1
        out.append((t, n, *counts["spfn"], *counts["spfp"]))
    return out


def _f(x, digits=4) -> str:
    return "nan" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{digits}f}"


def _tables(rows, versus) -> dict:
    """Header and cells of the report's three tables."""
    per_set = (["data set", "tool", "source", "SPFN", "SPFP", "TC", "wall s", "error"],
               [[r.dataset, r.tool, r.source, _f(r.spfn), _f(r.spfp), _f(r.tc),
                 _f(r.wall_s, 2), r.error] for r in rows])
    means = (["tool", "sets", "mean SPFN", "mean SPFP", "mean TC", "mean wall s"],
             [[t, str(n), _f(a), _f(b), _f(c), _f(w, 2)] for t, n, a, b, c, w in summary(rows)])
    out = {"means": means, "per set": per_set}
    if versus is not None:
        out[f"against {versus}"] = (
            ["tool", "sets", "SPFN lower", "SPFN tied", "SPFN higher", "SPFP lower",
             "SPFP tied", "SPFP higher"],
            [[str(x) for x in w] for w in wins(rows, versus)])
    return out


def _markdown(head, cells) -> str:
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(c.replace("|", "\\|") for c in r) + " |" for r in cells]
    return "\n".join(lines) + "\n"


def _save(fig, path: Path, paths: list) -> None:
    import matplotlib.pyplot as plt

    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    paths.append(path)


def _figures(rows, out: Path, versus) -> list:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    paths = []
    summ = summary(rows)
    fig, ax = plt.subplots(figsize=(5.5, 4.5))
    for t, n, a, b, _c, _w in summ:
        if n:
            ax.scatter(a, b, s=40)
            ax.annotate(t, (a, b), textcoords="offset points", xytext=(4, 4), fontsize=8)
    ax.set_xlabel("mean SPFN (lower is better)")
    ax.set_ylabel("mean SPFP (lower is better)")
    ax.set_title("Mean error rates per tool")
    ax.grid(alpha=0.3)
    _save(fig, out / "spfn_spfp.png", paths)

    sets = list(dict.fromkeys(r.dataset for r in rows))
    tools = [t for t, n, *_ in summ if n]
    fig, ax = plt.subplots(figsize=(max(6.0, 0.5 * len(sets) * max(1, len(tools)) ** 0.5 + 3),
                                    4.5))
    width = 0.8 / max(1, len(tools))
    by = {(r.dataset, r.tool): r.spfn for r in rows if not r.error}
    for q, t in enumerate(tools):
        xs = [i + q * width for i in range(len(sets))]
        ax.bar(xs, [by.get((s, t), math.nan) for s in sets], width, label=t)
    ax.set_xticks([i + 0.4 - width / 2 for i in range(len(sets))])
    ax.set_xticklabels(sets, rotation=45, ha="right", fontsize=7)
    ax.set_ylabel("SPFN")
    ax.set_title("SPFN per data set")
    ax.legend(fontsize=7)
    _save(fig, out / "per_set_spfn.png", paths)

    if versus is not None:
        w = wins(rows, versus)
        if w:
            fig, ax = plt.subplots(figsize=(6, 0.5 * len(w) + 1.5))
            names = [x[0] for x in w]
            lower = [x[2] for x in w]
            tied = [x[3] for x in w]
            higher = [x[4] for x in w]
            ax.barh(names, lower, color="#3a7", label="SPFN lower")
            ax.barh(names, tied, left=lower, color="#bbb", label="tied")
            ax.barh(names, higher, left=[a + b for a, b in zip(lower, tied)], color="#c44",
                    label="SPFN higher")
            ax.set_xlabel(f"data sets, against {versus}")
            ax.legend(fontsize=7)
            _save(fig, out / f"against_{versus}.png", paths)
    return paths


def write_report(rows, out_dir, *, versus: str | None = None, title: str = "trimsa benchmark",
                 figures: bool = True) -> list:
    """Write ``results.tsv`` (every row), ``means.tsv`` (per tool), ``report.md``, the
    figures and ``report.html`` into ``out_dir``.

    ``versus``: the tool the win/loss table counts against (default: ``twilight``
    when present, else none). Returns the paths written.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    tools = list(dict.fromkeys(r.tool for r in rows))
    if versus is None and "twilight" in tools:
        versus = "twilight"
    if versus is not None and versus not in tools:
        raise OptionError(f"--versus {versus!r} is not among the tools: {', '.join(tools)}")
    from .io import atomic_output

    written = []
    with atomic_output(out / "results.tsv") as fh:
        fh.write("dataset\ttool\tsource\tspfn\tspfp\ttc\twall_s\terror\n")
        for r in rows:
            fh.write("\t".join([r.dataset, r.tool, r.source, repr(r.spfn), repr(r.spfp),
                                repr(r.tc), repr(r.wall_s), r.error]) + "\n")
    written.append(out / "results.tsv")
    with atomic_output(out / "means.tsv") as fh:
        fh.write("tool\tsets\tspfn\tspfp\ttc\twall_s\n")
        for t, n, a, b, c, w in summary(rows):
            fh.write("\t".join([t, str(n), repr(a), repr(b), repr(c), repr(w)]) + "\n")
    written.append(out / "means.tsv")
    tables = _tables(rows, versus)
    with atomic_output(out / "report.md") as fh:
        fh.write(f"# {title}\n\n")
        for name, (head, cells) in tables.items():
            fh.write(f"## {name}\n\n" + _markdown(head, cells) + "\n")
    written.append(out / "report.md")
    pngs = _figures(rows, out, versus) if figures and rows else []
    written += pngs
    parts = [f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{html.escape(title)}"
             "</title><style>body{font-family:sans-serif;margin:2em}table{border-collapse:"
             "collapse;margin-bottom:2em}td,th{border:1px solid #ccc;padding:3px 8px;"
             "text-align:right}td:first-child,th:first-child{text-align:left}</style></head>"
             f"<body><h1>{html.escape(title)}</h1>"]
    for name, (head, cells) in tables.items():
        parts.append(f"<h2>{html.escape(name)}</h2><table><tr>"
                     + "".join(f"<th>{html.escape(h)}</th>" for h in head) + "</tr>")
        parts += ["<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in r) + "</tr>"
                  for r in cells]
        parts.append("</table>")
    for p in pngs:
        data = base64.b64encode(p.read_bytes()).decode()
        parts.append(f"<h2>{html.escape(p.stem)}</h2><img alt='{html.escape(p.stem)}' "
                     f"src='data:image/png;base64,{data}'>")
    parts.append("</body></html>\n")
    with atomic_output(out / "report.html") as fh:
        fh.write("".join(parts))
    written.append(out / "report.html")
    return written


if __name__ == "__main__":  # pragma: no cover - the FAMSA runner of peer_command
    if len(sys.argv) == 5 and sys.argv[1] == "_famsa":
        run_famsa(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    else:
        sys.exit("usage: python -m trimsa.benchmark _famsa IN OUT THREADS")
