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
import sys

from . import __version__
from .errors import TrimsaError

#: Subcommand modules under ``trimsa.commands``, in the order ``--help`` lists them.
COMMANDS = (
    "triplets",
    "align3",
    "run",
    "eval",
    "simulate",
    "tree",
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


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        result = args.func(args)
    except TrimsaError as exc:
        print(f"trimsa {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"trimsa {args.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    return int(result or 0)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
