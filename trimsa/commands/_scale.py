"""Command-line options for spreading triplet scoring over GPUs and Dask workers."""

from __future__ import annotations

import argparse
import contextlib

from ..errors import OptionError
from ..triplet.plan import SCHEMES


def add_scale_options(parser: argparse.ArgumentParser) -> None:
    """Add ``--gpus``, ``--scheduler`` and ``--partition`` (see docs/scaling.md)."""
    g = parser.add_argument_group("scale-out (docs/scaling.md)")
    g.add_argument("--gpus", default=None, metavar="LIST",
                   help="with --device gpu: the GPUs to use, e.g. 0,1 (default: every visible GPU)")
    add_scheduler_option(g, "score on Dask workers")
    g.add_argument("--partition", choices=SCHEMES, default="dynamic",
                   help="how triplets are split over GPUs or workers: dynamic (balanced by "
                        "DP cells; default), blocked or interleaved")


def add_scheduler_option(group, what: str) -> None:
    """Add ``--scheduler`` (``what``: the work it moves to the workers)."""
    group.add_argument("--scheduler", default=None, metavar="SPEC",
                       help=f"{what}: local:N starts N local worker processes (one per GPU on "
                            f"a machine with GPUs, unless --device cpu), tcp://HOST:PORT uses "
                            f"a running cluster (needs trimsa[dist])")


def scale_kwargs(args) -> dict:
    """``gpus``, ``scheduler`` and ``partition`` keyword arguments for ``score_triplets``."""
    gpus = None
    if args.gpus is not None:
        from ..triplet.devices import parse_gpus

        gpus = parse_gpus(args.gpus)
        if args.device == "cpu":
            raise OptionError("--gpus needs --device gpu or auto")
        if args.scheduler is not None:
            raise OptionError("--gpus cannot be combined with --scheduler "
                              "(each Dask worker uses its own GPU)")
    return {"gpus": gpus, "scheduler": args.scheduler, "partition": args.partition}


@contextlib.contextmanager
def scale_session(args):
    """Keyword arguments for ``score_triplets`` that stay valid for the whole command.

    Yields ``device``, ``gpus``, ``scheduler`` and ``partition``. With
    ``--scheduler`` the Dask client is opened once (a ``local:N`` cluster is
    started once) and closed on exit, and the device is left for each worker
    to resolve; otherwise the device is resolved here (``auto`` says which).
    """
    kw = scale_kwargs(args)
    if kw["scheduler"] is None:
        from ..triplet import resolve_device

        kw["device"] = resolve_device(args.device)
        if kw["gpus"] is not None and kw["device"] != "gpu":
            raise OptionError("--gpus needs a GPU, and none is visible (use --device gpu)")
        yield kw
        return
    from ..triplet.distributed import connect

    kw["device"] = args.device
    with connect(kw["scheduler"], device=args.device) as client:
        kw["scheduler"] = client
        yield kw
