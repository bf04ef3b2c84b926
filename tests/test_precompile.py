"""Compiling a run's jitted functions ahead in helper processes (``trimsa._numba.Precompiler``)
and the file that lists them per kind of run (``trimsa/progressive/compiled.json``).

The file must name exactly the functions each kind of run calls from Python, with the
argument types it calls them with: otherwise helpers compile what the run does not use
and the run compiles the rest itself, slowly but correctly. ``eval/compiled_manifest.py``
rewrites it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from numba.core import types

from trimsa import _numba
from trimsa.io import as_sequence_set
from trimsa.progressive import Aligner
from trimsa.progressive.api import COMPILED
from trimsa.progressive.pair_hmm import pair_hmm

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "eval"))
import compiled_manifest  # noqa: E402


def test_types_round_trip():
    for t in (types.Array(types.float32, 2, "C"), types.Array(types.int8, 1, "A"),
              types.Array(types.uint64, 3, "F", readonly=True), types.int64, types.float32,
              types.boolean, types.uint8, types.none):
        text = _numba.encode_type(t)
        assert _numba.decode_type(text) == t, text
    with pytest.raises(ValueError):
        _numba.encode_type(types.UniTuple(types.int64, 2))


def _called(path, options, env):
    """The functions a run of ``path`` with ``options`` calls from Python, in a fresh process
    whose cache already holds them (the first run fills it)."""
    child = ("import json, sys, trimsa, trimsa._numba as tn\n"
             "from trimsa.progressive import api\n"
             "options = json.loads(sys.argv[2])\n"
             "if options.pop('gpu_library', False):\n"
             "    api.GPU_LIBRARY_CELLS = 0\n"
             "trimsa.align(sys.argv[1], **options)\n"
             "print(json.dumps(sorted([n, list(a)] for n, a in tn.called_functions())))\n")
    for _ in range(2):
        out = subprocess.run([sys.executable, "-c", child, path, json.dumps(options)],
                             cwd=ROOT, env=env, capture_output=True, text=True)
        assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.splitlines()[-1])


def _kinds(gpu: bool):
    return [(p, o) for p, o, needs_gpu in compiled_manifest.KINDS if needs_gpu == gpu]


def _check_kind(path, options, monkeypatch):
    if options.get("gpu_library"):
        from trimsa.progressive import api

        monkeypatch.setattr(api, "GPU_LIBRARY_CELLS", 0)
    aligner = Aligner(**{k: v for k, v in options.items() if k != "gpu_library"})
    seqs = as_sequence_set(str(ROOT / path))
    source = aligner.distance_source(seqs)
    hmm = pair_hmm(aligner.pair_hmm, seqs.alphabet.name, aligner._compact(seqs)[0])
    kind = aligner.compile_kind(seqs, source, aligner.exact(seqs), aligner.library_design(seqs),
                                hmm, aligner.scoring(seqs))
    listed = json.loads(COMPILED.read_text())[kind]
    env = compiled_manifest.one_gpu_env(dict(os.environ, TRIMSA_NUMBA_CACHE="1"))
    called = _called(path, options, env)
    assert called == sorted([n, a] for n, a, _, _, depth in listed if depth == 0), (
        f"{kind}: compiled.json is out of date; run eval/compiled_manifest.py")


@pytest.mark.slow
@pytest.mark.parametrize("path,options", _kinds(gpu=False))
def test_manifest_lists_what_runs_call(path, options, monkeypatch):
    _check_kind(path, options, monkeypatch)


@pytest.mark.gpu
@pytest.mark.parametrize("path,options", _kinds(gpu=True))
def test_manifest_lists_what_gpu_runs_call(path, options, monkeypatch):
    _check_kind(path, options, monkeypatch)


def test_manifest_entries_are_well_formed():
    listed = json.loads(COMPILED.read_text())
    assert listed
    for kind, entries in listed.items():
        assert any(e[4] == 0 for e in entries), kind
        for name, argtypes, seconds, start, depth in entries:
            assert callable(_numba.dispatcher(name)), name
            for t in argtypes:
                _numba.decode_type(t)
            assert seconds >= 0 and start >= 0 and depth >= 0


def test_schedule_counts_what_the_helpers_take_off_the_run():
    """The run reaches a function earlier by what the helpers compile for it before: a
    function that would be late on that timeline stays with the run."""
    ready = _numba.HELPER_READY
    a = ["a", [], 1.0, ready + 1.0, 0]
    b = ["b", [], 2.0, ready + 3.5, 0]   # the helper ends it at ready + 3, the run is there
    #                                      at ready + 3.5 - 1 (a was compiled for it)
    c = ["c", [], 0.5, ready + 10.0, 0]
    assert _numba.schedule([a, b, c], 1) == [[("a", []), ("c", [])]]
    # with a second helper b fits: each helper's own clock
    assert _numba.schedule([a, b, c], 2) == [[("a", []), ("c", [])], [("b", [])]]
    # needed before any helper is ready, or too long to end in time: the run's own
    assert _numba.schedule([["d", [], 0.1, ready / 2, 0], ["e", [], 9.0, ready + 5, 0]], 3) == []


def test_helpers_fill_the_cache(tmp_path):
    """Helpers compile what is missing from a cold cache (a fresh numba cache folder), and
    start for nothing that is already there or needed too soon."""
    code = r"""
import json, sys
from trimsa import _numba
entries = json.loads(sys.argv[1])
pre = _numba.Precompiler(entries, 2)
started = pre.functions
assert pre.join(120)
again = _numba.Precompiler(entries, 2).functions
print(json.dumps([started, again, [_numba.cached(n, tuple(a)) for n, a, *_ in entries]]))
"""
    sym = ["trimsa.tree._cpu.symmetrize", ["array:float64:2:C:rw"], 0.1, 5.0, 0]
    upd = ["trimsa.progressive._cpu.update_positions", ["array:int64:1:C:rw"] * 4, 0.1, 5.0, 0]
    soon = ["trimsa.progressive._cpu.path_maps",
            ["array:int8:1:C:rw", "array:int64:1:C:rw", "array:int64:1:C:rw"], 0.1,
            _numba.HELPER_READY / 2, 0]
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path), TRIMSA_NUMBA_CACHE="1")
    out = subprocess.run([sys.executable, "-c", code, json.dumps([sym, upd, soon])], cwd=ROOT,
                         env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    started, again, cached = json.loads(out.stdout.splitlines()[-1])
    assert (started, again, cached) == (2, 0, [True, True, False])


_WAIT_CODE = r"""
import json, sys, time
from numba.core import event
from trimsa import _numba

here = []
class Compiles(event.Listener):
    def on_start(self, ev):
        here.append(_numba.name_of(ev.data["dispatcher"]))
    def on_end(self, ev):
        pass
event.register("numba:compile", Compiles())
entry = json.loads(sys.argv[1])
key = (entry[0], tuple(entry[1]))
pre = _numba.Precompiler([entry], 1)
deadline = time.time() + 120
while key not in _numba._BUSY:   # the helper has started this very function
    assert time.time() < deadline and pre.helpers[0].poll() is None, "the helper never started"
    time.sleep(0.005)
if sys.argv[2] == "kill":
    pre.helpers[0].kill()
if sys.argv[2] == "short":   # a helper slower than the run will wait for
    _numba.HELPER_WAIT = 0.001
t = time.perf_counter()
_numba.dispatcher(entry[0]).compile(tuple(_numba.decode_type(x) for x in entry[1]))
waited = time.perf_counter() - t
pre.stop()
print(json.dumps([here, _numba.cached(*key), waited]))
"""
#: A function that takes about a second to compile, so that the run calls it while its
#: helper is still at work.
_SLOW = ["trimsa.progressive._cpu.profile_dp",
         ["array:float32:2:C:rw", "array:float32:2:C:rw", "array:float32:2:C:rw",
          "array:float32:1:C:rw", "array:float32:1:C:rw", "array:float32:1:C:rw",
          "array:float32:1:C:rw", "float32", "float32", "array:int8:1:C:rw"], 1.0, 30.0, 0]


@pytest.mark.slow
@pytest.mark.parametrize("how", ["wait", "kill", "short"])
def test_a_function_a_helper_is_compiling_is_loaded_not_compiled_again(tmp_path, how):
    """The run calls a function while its helper compiles it: it waits and loads the
    helper's result (no compilation of its own); if the helper dies meanwhile, or takes
    longer than ``HELPER_WAIT``, the run compiles the function itself instead of waiting
    for ever."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path), TRIMSA_NUMBA_CACHE="1")
    out = subprocess.run([sys.executable, "-c", _WAIT_CODE, json.dumps(_SLOW), how], cwd=ROOT,
                         env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    here, cached, waited = json.loads(out.stdout.splitlines()[-1])
    if how == "wait":
        assert here == [] and cached
    else:
        assert _SLOW[0] in here


def test_nothing_starts_without_a_cache_or_processes():
    entries = [["trimsa.tree._cpu.symmetrize", ["array:float64:2:C:rw"], 0.1, 5.0, 0]]
    assert _numba.Precompiler(entries, 0).helpers == []
    assert _numba.Precompiler([], 4).helpers == []


@pytest.mark.slow
def test_run_gives_the_same_alignment_with_helpers(tmp_path):
    """A first run on a cold cache (helpers compiling beside it) aligns exactly as a warm
    run does."""
    data = ROOT / "tests" / "data" / "six.fa"
    outs = []
    for cache in (tmp_path / "cold", None):
        env = compiled_manifest.one_gpu_env(dict(os.environ, TRIMSA_NUMBA_CACHE="1"))
        if cache is not None:
            env["NUMBA_CACHE_DIR"] = str(cache)
        out = tmp_path / f"out{len(outs)}.fa"
        r = subprocess.run([sys.executable, "-m", "trimsa", "run", str(data), "-o", str(out),
                            "-v", "--threads", "2"], cwd=ROOT, env=env, capture_output=True,
                           text=True)
        assert r.returncode == 0, r.stderr
        outs.append(out.read_bytes())
    assert outs[0] == outs[1] and outs[0].startswith(b">")


def _helpers_of(mark: str) -> list:
    """Live processes whose environment holds ``mark`` (Linux ``/proc``), the run excluded
    by the caller."""
    pids = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                env = Path(f"/proc/{d}/environ").read_bytes()
                cmd = Path(f"/proc/{d}/cmdline").read_bytes()
            except OSError:
                continue
            if mark.encode() in env and b"trimsa._numba" in cmd:
                pids.append(int(d))
    return pids


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="needs Linux /proc")
@pytest.mark.parametrize("sig,code", [("SIGINT", 130), ("SIGTERM", 143), ("SIGKILL", -9)])
def test_a_signal_ends_the_helpers_too(tmp_path, sig, code):
    """Ctrl-C, SIGTERM or SIGKILL during a first run ends its compile helpers with it."""
    import signal
    import time
    import uuid

    mark = f"trimsa-test-{uuid.uuid4()}"
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"), TRIMSA_NUMBA_CACHE="1",
               TRIMSA_TEST_MARK=mark)
    proc = subprocess.Popen([sys.executable, "-m", "trimsa", "run", "examples/data/input.fa",
                             "-o", str(tmp_path / "out.fa"), "--threads", "2"], cwd=ROOT,
                            env=env, stderr=subprocess.PIPE,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        deadline = time.time() + 60
        while not _helpers_of(mark):
            assert proc.poll() is None and time.time() < deadline, "no helper started"
            time.sleep(0.05)
        proc.send_signal(getattr(signal, sig))
        proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == code
    deadline = time.time() + 5
    while _helpers_of(mark) and time.time() < deadline:
        time.sleep(0.05)
    assert _helpers_of(mark) == []
    assert not (tmp_path / "out.fa").exists()
