"""The ``trimsa`` command line.

Each subcommand lives in ``trimsa/commands/<name>.py`` and exposes
``register(subparsers)``, which adds its parser and sets ``func`` to the
handler. :func:`build_parser` assembles them; :func:`main` runs one and turns
user errors (:class:`~trimsa.errors.TrimsaError`) into a single line on stderr
and exit status 2.
"""

from __future__ import annotations

import argparse
import importlib
import os
import signal
import sys
import threading

from . import __version__
from .errors import TrimsaError

#: Output options (``args`` attributes) that are checked before any work starts, and
#: the files a command reads, which no output may replace: attribute -> how the
#: message names it.
OUTPUT_OPTIONS = {"output": "the output (-o)", "tree_out": "the tree (--tree-out)"}
INPUT_OPTIONS = {"input": "the input", "guide_tree": "the guide tree (--guide-tree)",
                 "triplets": "the triplet list (--triplets)"}

#: Subcommand modules under ``trimsa.commands``, in the order ``--help`` lists them.
COMMANDS = (
    "triplets",
    "align3",
    "run",
    "eval",
    "simulate",
    "tree",
    "benchmark",
)


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser whose usage errors are one line on stderr (exit 2)."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="trimsa",
        description="Multiple sequence alignment built on exact triplet (3-way) alignments.",
    )
    parser.add_argument("--version", action="version", version=f"trimsa {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    for name in COMMANDS:
        importlib.import_module(f"trimsa.commands.{name}").register(sub)
    return parser


def _available_memory() -> str:
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return f"{int(line.split()[1]) * 1024 / 2**30:.1f} GiB available"
    except OSError:
        pass
    return "available memory unknown"


def _quiet_stdout() -> None:
    """After a broken pipe: point stdout at /dev/null so that the exit flush is silent."""
    try:
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


#: How often the main thread looks up from waiting for the command (seconds).
POLL = 0.1


class _Terminated(BaseException):
    """SIGTERM, raised in the main thread while it waits for the command."""


def _run_interruptibly(fn, args, command: str):
    """Run ``fn(args)`` in a worker thread while the main thread waits for Ctrl-C.

    The kernels (numba, CUDA) do not return to Python for seconds at a time,
    and a signal is only acted on between Python instructions of the main
    thread. Here the main thread does nothing else, so an interrupt is seen at
    once: temporary outputs are removed, compile helpers ended, and the process ends
    (status 130, or 143 for SIGTERM) without waiting for the kernels.
    """
    from ._numba import stop_helpers
    from .io import remove_pending

    box = {}

    def target():
        try:
            box["result"] = fn(args)
        except BaseException as exc:  # handed to the main thread as it is
            box["error"] = exc

    def terminate(signum, frame):
        raise _Terminated

    worker = threading.Thread(target=target, name=f"trimsa-{command}", daemon=True)
    previous = signal.signal(signal.SIGTERM, terminate)
    try:
        worker.start()
        while worker.is_alive():
            worker.join(POLL)
    except KeyboardInterrupt:
        remove_pending()
        stop_helpers()
        print(f"trimsa {command}: interrupted", file=sys.stderr, flush=True)
        os._exit(130)
    except _Terminated:
        remove_pending()
        stop_helpers()
        print(f"trimsa {command}: terminated", file=sys.stderr, flush=True)
        os._exit(128 + signal.SIGTERM)
    finally:
        signal.signal(signal.SIGTERM, previous)
    if "error" in box:
        raise box["error"]
    return box.get("result")


def _same_file(a: str, b: str) -> bool:
    """Whether paths ``a`` and ``b`` name one regular file, existing or to be created
    (devices, FIFOs and the terminal may well be both read and written)."""
    if os.path.exists(a) and os.path.exists(b):
        return os.path.isfile(a) and os.path.isfile(b) and os.path.samefile(a, b)
    return os.path.realpath(a) == os.path.realpath(b)


def _check_distinct(args) -> None:
    """An output that is the input, another output or a given guide tree is an error
    (before any work): the run would replace a file the user still needs."""
    from .errors import OutputError

    def files(options, existing):
        for name, label in options.items():
            value = getattr(args, name, None)
            if (isinstance(value, str) and value not in ("", "-")
                    and (not existing or os.path.isfile(value))):
                yield label, value

    # an input is a file that exists (tree's --triplets all|sampled is a choice, not one)
    seen = list(files(INPUT_OPTIONS, True))
    for label, path in files(OUTPUT_OPTIONS, False):
        for other, other_path in seen:
            if _same_file(path, other_path):
                raise OutputError(f"{path}: {label} would overwrite {other} "
                                  f"({other_path}); choose another path")
        seen.append((label, path))


def main(argv=None) -> int:
    from .io import check_output, remove_pending

    try:
        parser = build_parser()
        args = parser.parse_args(argv)
    except KeyboardInterrupt:
        print("trimsa: interrupted", file=sys.stderr)
        return 130
    prefix = f"trimsa {args.command}: error:"
    try:
        for name in OUTPUT_OPTIONS:
            value = getattr(args, name, None)
            if value is not None:
                check_output(value, "output")
        _check_distinct(args)
        if threading.current_thread() is threading.main_thread():
            result = _run_interruptibly(args.func, args, args.command)
        else:
            result = args.func(args)
    except TrimsaError as exc:
        remove_pending()
        if "broken pipe" in str(exc):
            _quiet_stdout()
        print(f"{prefix} {exc}", file=sys.stderr)
        return 2
    except MemoryError as exc:
        remove_pending()
        what = str(exc) or "an allocation was refused"
        print(f"{prefix} out of memory ({what}; {_available_memory()})", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        remove_pending()
        print(f"trimsa {args.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        remove_pending()
        _quiet_stdout()
        print(f"{prefix} standard output closed before the output was written (broken pipe)",
              file=sys.stderr)
        return 2
    except OSError as exc:
        remove_pending()
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"{prefix} {where}{exc.strerror or exc}", file=sys.stderr)
        return 2
    return int(result or 0)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
