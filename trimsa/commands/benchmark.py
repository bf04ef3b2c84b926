"""``trimsa benchmark``: trimsa and other aligners over many data sets, with a report."""

from __future__ import annotations

from ._common import Progress, add_device_options, check_threads, note


def register(subparsers) -> None:
    from ..benchmark import RUNNABLE

    p = subparsers.add_parser(
        "benchmark",
        help="compare aligners over many data sets (tables, plots, HTML)",
        description="Score aligners over data-set folders, each holding a reference alignment "
                    "(true.fa, plain or gzip), optionally its input (input.fa) and stored "
                    "estimates of other tools (peers/TOOL.fa, e.g. TWILIGHT's; wall times in "
                    "peers/scores.tsv). Runs the aligners of --run on each input, scores "
                    "every estimate with FastSP's definitions and writes results.tsv, "
                    "report.md, figures (PNG) and report.html into REPORT_DIR.")
    p.add_argument("dirs", nargs="+", metavar="DIR",
                   help="a data-set folder, or a folder of them")
    p.add_argument("-o", "--out-dir", required=True, metavar="REPORT_DIR",
                   help="folder for the report and the alignments made (created if missing)")
    p.add_argument("--run", default="trimsa", metavar="TOOLS",
                   help="comma-separated aligners to run on each input, from: "
                        + ", ".join(RUNNABLE) + " (default trimsa; 'none' runs nothing and "
                        "scores the stored estimates only)")
    p.add_argument("--versus", default=None, metavar="TOOL",
                   help="count wins and losses against this tool (default: twilight when "
                        "present)")
    p.add_argument("--timeout", type=float, default=3600.0,
                   help="seconds one external aligner may take on one set (default 3600)")
    add_device_options(p)
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=handler)


def handler(args) -> int:
    from pathlib import Path

    import math

    from ..benchmark import benchmark, find_sets, write_report
    from ..errors import InputFormatError, OptionError

    args.threads = check_threads(args.threads)
    if not (math.isfinite(args.timeout) and args.timeout > 0):
        raise OptionError(f"--timeout must be a positive number of seconds, got {args.timeout}")
    run = () if args.run.strip().lower() == "none" else tuple(
        t.strip() for t in args.run.split(",") if t.strip())
    if not args.out_dir:
        raise OptionError("empty report folder path (-o)")
    out = Path(args.out_dir)
    if out.exists() and not out.is_dir():
        raise OptionError(f"{out}: exists and is not a folder")
    if args.versus is not None:   # before hours of alignments, not after them
        tools = set(run).union(*(ds.stored for ds in find_sets(args.dirs)))
        if args.versus not in tools:
            raise OptionError(f"--versus {args.versus!r} is not among the tools: "
                              f"{', '.join(sorted(tools)) or 'none'}")
    rows = benchmark(args.dirs, out, run=run, threads=args.threads, device=args.device,
                     timeout=args.timeout, progress=Progress(not args.quiet, "data sets"))
    if rows and all(r.error for r in rows):
        first = rows[0]
        raise InputFormatError(f"none of the {len(rows)} estimates could be scored "
                               f"({first.dataset}: {first.tool}: {first.error})")
    failed = [r for r in rows if r.error]
    for r in failed:
        note(f"{r.dataset}: {r.tool}: {r.error}")
    paths = write_report(rows, out, versus=args.versus)
    note(f"{len(rows)} estimates of {len({r.dataset for r in rows})} data sets scored; "
         f"report: {paths[-1]}")
    return 0
