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

    from ..benchmark import benchmark, write_report
    from ..errors import OptionError

    args.threads = check_threads(args.threads)
    if args.timeout <= 0:
        raise OptionError(f"--timeout must be positive, got {args.timeout}")
    run = () if args.run.strip().lower() == "none" else tuple(
        t.strip() for t in args.run.split(",") if t.strip())
    out = Path(args.out_dir)
    if out.exists() and not out.is_dir():
        raise OptionError(f"{out}: exists and is not a folder")
    rows = benchmark(args.dirs, out, run=run, threads=args.threads, device=args.device,
                     timeout=args.timeout, progress=Progress(not args.quiet, "data sets"))
    failed = [r for r in rows if r.error]
    for r in failed:
        note(f"{r.dataset}: {r.tool}: {r.error}")
    paths = write_report(rows, out, versus=args.versus)
    note(f"{len(rows)} estimates of {len({r.dataset for r in rows})} data sets scored; "
         f"report: {paths[-1]}")
    return 0
