"""One place that sets numba defaults for every trimsa kernel, and runs serial kernels on threads.

``TRIMSA_NUMBA_CACHE=0`` turns the on-disk compilation cache off (it is on by
default so that the command-line tool starts quickly after its first run).
``NUMBA_DISABLE_JIT=1`` runs every kernel as plain Python, which the tests use
to check the kernels' logic and coverage.
"""

from __future__ import annotations

import concurrent.futures as _cf
import json
import os
import subprocess
import sys
import threading

import numba
import numpy as np

_CACHE = os.environ.get("TRIMSA_NUMBA_CACHE", "1") not in ("0", "false", "no")


def jit(*args, **kwargs):
    """``numba.njit`` with trimsa's defaults (nogil, cached, no bounds checks)."""
    kwargs.setdefault("nogil", True)
    kwargs.setdefault("cache", _CACHE)
    kwargs.setdefault("error_model", "numpy")
    return numba.njit(*args, **kwargs)


def pjit(*args, **kwargs):
    """Like :func:`jit` with ``parallel=True`` (for ``prange`` loops)."""
    kwargs.setdefault("parallel", True)
    return jit(*args, **kwargs)


def set_threads(threads: int) -> int:
    """Use ``threads`` worker threads (0 = all cores); returns the number used."""
    from .errors import OptionError

    if isinstance(threads, bool) or not isinstance(threads, (int, np.integer)) or threads < 0:
        raise OptionError(f"threads must be an integer >= 0 (0 = all cores), got {threads!r}")
    limit = numba.config.NUMBA_NUM_THREADS
    n = limit if threads == 0 else min(threads, limit)
    numba.set_num_threads(n)
    return n


def in_threads(fn, items, threads: int) -> None:
    """Run ``fn(chunk)`` on ``threads`` interleaved chunks of ``items`` at once.

    For serial ``nogil`` kernels: interleaved chunks keep the threads' work
    even when the cost of the items grows along ``items``. ``fn`` is called
    once with an empty chunk first, so that the kernel compiles (or loads from
    the cache) here rather than in several threads at once.
    """
    items = np.asarray(items)
    threads = max(1, min(int(threads), len(items)))
    if threads == 1:
        fn(items)
        return
    fn(items[:0])
    chunks = [np.ascontiguousarray(items[t::threads]) for t in range(threads)]
    with _cf.ThreadPoolExecutor(threads) as pool:
        for f in [pool.submit(fn, c) for c in chunks]:
            f.result()


# --- Compiling ahead in helper processes -------------------------------------------------
#
# A run's jitted functions compile one after another the first time they are called, and
# numba compiles one function at a time in a process. On a machine whose on-disk cache
# does not hold them yet, :class:`Precompiler` compiles them at once in helper processes,
# each writing them into the shared cache, while the run goes on; the run then loads each
# function from the cache when it gets there (or compiles it itself if no helper has
# finished it yet: the result is the same either way). Which functions a run calls, with
# which argument types, is listed per kind of run in a manifest
# (``trimsa/progressive/compiled.json``, written by ``eval/compiled_manifest.py`` and
# checked by the tests against the functions the runs call).

def encode_type(t) -> str:
    """A numba argument type as text (arrays, NumPy scalars and None; anything else is a
    ValueError): ``array:float32:2:C:rw``, ``float32`` or ``none``."""
    from numba.core import types
    from numba.np.numpy_support import as_dtype

    if isinstance(t, types.Array):
        if not t.aligned:
            raise ValueError(f"unaligned array type {t} has no text form")
        return f"array:{as_dtype(t.dtype).name}:{t.ndim}:{t.layout}:{'rw' if t.mutable else 'ro'}"
    if isinstance(t, (types.Integer, types.Float, types.Boolean)):
        return as_dtype(t).name
    if isinstance(t, types.NoneType):
        return "none"
    raise ValueError(f"argument type {t} has no text form")


def decode_type(text: str):
    """The numba type of :func:`encode_type`'s text."""
    from numba.core import types
    from numba.np.numpy_support import from_dtype

    if text.startswith("array:"):
        _, dtype, ndim, layout, rw = text.split(":")
        return types.Array(from_dtype(np.dtype(dtype)), int(ndim), layout,
                           readonly=rw == "ro")
    if text == "none":
        return types.none
    return from_dtype(np.dtype(text))


def dispatcher(name: str):
    """The jitted function ``module.qualname``."""
    import importlib

    module, _, qualname = name.rpartition(".")
    return getattr(importlib.import_module(module), qualname)


def cached(name: str, argtypes: tuple) -> bool:
    """Whether numba's on-disk cache holds ``name`` compiled for ``argtypes`` (text)
    for this machine and the current source."""
    disp = dispatcher(name)
    cache = getattr(disp, "_cache", None)
    if not hasattr(cache, "_index_key"):
        return True   # no on-disk cache to fill
    sig = tuple(decode_type(t) for t in argtypes)
    return cache._index_key(sig, disp.targetctx.codegen()) in cache._cache_file._load_index()


def name_of(disp) -> str:
    """``module.name`` under which :func:`dispatcher` finds the jitted function ``disp``
    (the name it is bound to in its module, which may differ from its Python function's)."""
    module = sys.modules.get(disp.py_func.__module__)
    for attr, value in vars(module).items() if module is not None else ():
        if value is disp:
            return f"{module.__name__}.{attr}"
    return f"{disp.py_func.__module__}.{disp.py_func.__qualname__}"


def called_functions(package: str = "trimsa") -> set:
    """``(name, argtypes)`` (text) of every function of ``package`` jitted in this process so
    far, that is, called from Python (a function loaded from the on-disk cache brings
    the functions it calls with it; compiled here, it compiles them too)."""
    from numba.core.registry import CPUDispatcher

    out = set()
    for mod_name, mod in list(sys.modules.items()):
        if mod is None or not (mod_name == package or mod_name.startswith(package + ".")):
            continue
        for attr, value in list(vars(mod).items()):
            if isinstance(value, CPUDispatcher) and value.__module__ == mod_name:
                name = f"{mod_name}.{attr}"
                for sig in value.signatures:
                    out.add((name, tuple(encode_type(t) for t in sig)))
    return out


#: Seconds from the start of an alignment before a helper process can have compiled
#: anything (its start and imports).
HELPER_READY = 1.5
#: Most seconds a run waits for a helper to end the function the run has called.
HELPER_WAIT = 120.0
#: The helper processes of every :class:`Precompiler` of this process not yet stopped.
_HELPERS: set = set()


def stop_helpers() -> None:
    """End every helper process still at work (for an exit that skips the ``with`` blocks
    of their :class:`Precompiler`, as the command line's on Ctrl-C)."""
    for p in list(_HELPERS):
        if p.poll() is None:
            p.kill()
        _HELPERS.discard(p)


def schedule(entries, processes: int) -> list:
    """The helpers' shares of ``entries`` (:class:`Precompiler`'s): non-empty lists of
    ``(name, argtypes)``, each in the order to compile.

    In the order the run needs them, each function goes to the helper free first if it
    can finish it before the run reaches it; otherwise the run compiles it itself. The
    entries' starts were measured on a run that compiled everything itself, so the run
    reaches each function earlier by the compile seconds of those handed out before it.
    """
    free = [HELPER_READY] * processes
    shares = [[] for _ in range(processes)]
    saved = 0.0
    for e in sorted(entries, key=lambda e: e[3]):
        h = free.index(min(free))
        if free[h] + e[2] <= e[3] - saved:
            shares[h].append(tuple(e[:2]))
            free[h] += e[2]
            saved += e[2]
    return [s for s in shares if s]


class Precompiler:
    """Helper processes that compile a run's jitted functions into numba's on-disk cache
    while the run goes on.

    ``entries``: ``(name, argtypes, seconds, start, ...)``, each function's compile
    seconds and when the run first needs it (seconds from its start, as measured on a
    cold cache). In the order the run needs them, each function not yet in the cache
    goes to the helper (of at most ``processes``) free first, if that helper can finish
    it before the run needs it (from :data:`HELPER_READY` on); the run compiles the others
    itself. Each helper reports when it starts and ends each function; where the run
    calls a function that a helper is compiling at that moment, it waits for the helper
    and loads the result from the cache rather than compile the same function itself
    (:func:`_load_or_wait`). :meth:`stop` ends the helpers that are still at work (a
    helper stopped halfway leaves the cache as it was: numba replaces its files whole);
    a helper also ends by itself when the run's process does, however it ends. Nothing
    starts with ``processes < 1``, the cache off or numba's JIT disabled.
    """

    def __init__(self, entries, processes: int):
        self.helpers = []
        self.readers = []
        self.functions = 0
        if processes < 1 or not _CACHE or numba.config.DISABLE_JIT:
            return
        try:
            todo = [e for e in entries if not cached(e[0], tuple(e[1]))]
        except Exception:   # a stale manifest or another numba: compile as needed
            return
        shares = schedule(todo, processes)
        if not shares or not sys.executable:
            return
        env = dict(os.environ)
        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [root, env.get("PYTHONPATH")]))
        env["NUMBA_NUM_THREADS"] = "1"
        for share in shares:
            try:
                p = subprocess.Popen(
                    [sys.executable, "-m", "trimsa._numba", json.dumps(share)], env=env,
                    stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                    stderr=subprocess.DEVNULL)
            except OSError:   # no processes to spare: the run compiles as needed
                break
            self.helpers.append(p)
            _HELPERS.add(p)
            self.functions += len(share)
            keys = [(name, tuple(argtypes)) for name, argtypes in share]
            for name, _ in share:
                _watch_loads(dispatcher(name))
            t = threading.Thread(target=_follow, args=(p, keys), daemon=True)
            t.start()
            self.readers.append(t)

    def join(self, timeout: float | None = None) -> bool:
        """Wait for the helpers to finish; whether they all did within ``timeout``."""
        try:
            for p in self.helpers:
                p.wait(timeout)
        except subprocess.TimeoutExpired:
            return False
        return True

    def stop(self) -> None:
        """End the helpers still at work."""
        for p in self.helpers:
            if p.poll() is None:
                p.kill()
            p.wait()
            p.stdin.close()
            _HELPERS.discard(p)
        for t in self.readers:   # each ends at its helper's end of output
            t.join()
        for p in self.helpers:
            p.stdout.close()
        self.helpers = []
        self.readers = []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


def _compile(job: list, out=None) -> None:
    """Compile each ``(name, argtypes)`` of ``job`` (a helper process of :class:`Precompiler`),
    writing ``start i`` and ``done i`` lines to ``out`` around the ``i``-th."""
    for i, (name, argtypes) in enumerate(job):
        if out is not None:
            out.write(f"start {i}\n")
            out.flush()
        dispatcher(name).compile(tuple(decode_type(t) for t in argtypes))
        if out is not None:
            out.write(f"done {i}\n")
            out.flush()


#: ``(name, argtypes)`` (text) -> the number of helpers compiling it now, guarded by
#: :data:`_BUSY_CHANGED`.
_BUSY: dict = {}
_BUSY_CHANGED = threading.Condition()
#: The dispatchers whose cache loads :func:`_watch_loads` has wrapped.
_WATCHED: set = set()


def _follow(p, keys) -> None:
    """Track which of ``keys`` (its job) the helper ``p`` is compiling, from its lines."""
    busy = None

    def release():
        if busy is not None:
            _BUSY[busy] -= 1
            if not _BUSY[busy]:
                del _BUSY[busy]

    try:
        for line in p.stdout:
            word, _, i = line.decode("ascii", "replace").partition(" ")
            with _BUSY_CHANGED:
                release()
                busy = None
                if word == "start":
                    busy = keys[int(i)]
                    _BUSY[busy] = _BUSY.get(busy, 0) + 1
                _BUSY_CHANGED.notify_all()
    except (OSError, ValueError, IndexError):
        pass
    finally:
        with _BUSY_CHANGED:
            release()
            _BUSY_CHANGED.notify_all()


def _watch_loads(disp) -> None:
    """Route ``disp``'s loads from numba's cache through :func:`_load_or_wait` (once)."""
    cache = getattr(disp, "_cache", None)
    with _BUSY_CHANGED:
        if not hasattr(cache, "_index_key") or id(disp) in _WATCHED:
            return
        _WATCHED.add(id(disp))
    name = name_of(disp)
    load = cache.load_overload
    cache.load_overload = lambda sig, ctx: _load_or_wait(load, name, sig, ctx)


def _load_or_wait(load, name, sig, ctx):
    """numba's cache load of ``name`` for ``sig``; on a miss while a helper is compiling
    that very function, wait for the helper to end it and load again (numba's compiler
    lock is held meanwhile, as it would be for compiling here)."""
    got = load(sig, ctx)
    if got is not None:
        return got
    try:
        key = (name, tuple(encode_type(t) for t in sig))
    except Exception:   # a signature the manifest cannot name: no helper has it
        return None
    with _BUSY_CHANGED:
        if key not in _BUSY:
            return None
        # a helper that never ends its function (stuck, starved) costs at most this wait;
        # then the run compiles the function itself
        _BUSY_CHANGED.wait_for(lambda: key not in _BUSY, HELPER_WAIT)
    return load(sig, ctx)


def _helper_main(job: str) -> None:
    """A helper process: compile ``job``, and end at once when the run's process ends
    however it ends (its end of the standard-input pipe closes)."""
    def watch():
        sys.stdin.buffer.read()
        os._exit(0)

    threading.Thread(target=watch, daemon=True).start()
    _compile(json.loads(job), sys.stdout)


if __name__ == "__main__":
    _helper_main(sys.argv[1])
