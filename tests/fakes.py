"""Test doubles and random inputs shared by several test modules (and the kernel benchmark)."""

from __future__ import annotations

import threading

import numpy as np

from trimsa.io import SequenceSet
from trimsa.triplet import plan, score_triplets


def random_set(rng, lengths, alphabet, k: int | None = None) -> SequenceSet:
    """A :class:`SequenceSet` of uniform random codes ``0..k-1`` with the given lengths.

    ``k`` defaults to the four bases for DNA and the twenty amino acids otherwise.
    """
    k = k or (4 if alphabet.name == "dna" else 20)
    lengths = np.asarray(lengths, dtype=np.int64)
    offsets = np.zeros(lengths.size + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    codes = rng.integers(0, k, size=int(offsets[-1]), dtype=np.uint8)
    names = tuple(f"s{i}" for i in range(lengths.size))
    return SequenceSet(names, names, tuple("" for _ in names), alphabet, codes, offsets)


class FakeDevices:
    """``n`` fake devices that score on the CPU engine and record what they did.

    ``context(i)`` sets a thread-local current device, as ``cupy.cuda.Device``
    does; ``score`` checks it is called inside one and that each batch fits
    the device's memory under the backend's model.
    """

    def __init__(self, n, free=10**9, fail_on=None):
        self.n = n
        self.free = free
        self.fail_on = fail_on
        self.local = threading.local()
        self.batches = []  # (device, trip, bytes)
        self.threads = set()
        self.lock = threading.Lock()

    def count(self):
        return self.n

    def context(self, device, slot=0):
        fake = self

        class Ctx:
            def __enter__(self):
                fake.local.dev = device

            def __exit__(self, *exc):
                fake.local.dev = None

        return Ctx()

    def free_bytes(self, device):
        assert getattr(self.local, "dev", None) == device
        return self.free

    def memory_model(self, seqs):
        # the CPU kernel's model: its DP planes make small budgets bite
        return plan.memory_model("cpu", sequence_bytes=seqs.codes.nbytes + seqs.offsets.nbytes)

    def score(self, seqs, trip, mode, scoring, out, *, pruning="auto", work=None):
        dev = self.local.dev
        assert dev is not None, "scored outside a device context"
        if dev == self.fail_on:
            raise RuntimeError(f"device {dev} failed")
        name = {0: "global", 1: "semiglobal", 2: "local"}[mode]
        out[:] = score_triplets(seqs, trip, mode=name, scoring=scoring, device="cpu", threads=1,
                                pruning=pruning, work=work)
        with self.lock:
            self.batches.append((dev, trip.copy(),
                                 plan.batch_bytes(seqs.lengths, trip, self.memory_model(seqs))))
            self.threads.add(threading.current_thread())


class EmulatedKernels:
    """The CUDA kernels of one ``trimsa/kernels`` file compiled as C++ for the CPU (one
    thread after another), behind the few CuPy calls their launchers make.

    The kernels' ``__global__`` functions are wrapped by C functions that loop over the
    threads; :attr:`cupy` stands in for the module (arrays are NumPy arrays, ``empty``
    fills them with a poison pattern so that reads of unwritten memory show). Used by
    tests that check a kernel's logic without a GPU; needs a C++ compiler (``shutil.which``
    is checked by the caller).
    """

    def __init__(self, kernel: str, workdir, compiler: str = "g++"):
        import ctypes
        import re
        import subprocess
        import types

        from trimsa import kernels

        src = kernels.source(kernel)
        wrappers = []
        self.names = []
        for m in re.finditer(r'extern "C" __global__ void (\w+)\((.*?)\)\s*\{', src, re.S):
            name, params = m.group(1), re.sub(r"//[^\n]*", "", m.group(2))
            ps = [p.strip() for p in params.split(",")]
            args = [re.split(r"[\s*]+", p)[-1] for p in ps]
            wrappers.append(
                f'extern "C" void emu_{name}(int nthreads, {", ".join(ps)}) {{ '
                f"blockDim.x = 1; threadIdx.x = 0; for (int q = 0; q < nthreads; ++q) "
                f"{{ blockIdx.x = q; {name}({', '.join(args)}); }} }}")
            self.names.append(name)
        code = ("#include <cstddef>\n#include <cmath>\nstruct dim { int x; };\n"
                "static thread_local dim blockIdx, threadIdx, blockDim;\n#define __global__\n"
                "#define __device__\n#define __forceinline__ inline\n#define __restrict__\n"
                + src + "\n" + "\n".join(wrappers) + "\n")
        cpp = workdir / f"{kernel}.cpp"
        so = workdir / f"{kernel}.so"
        cpp.write_text(code)
        # as the GPU build: no contraction of multiplies and adds into fused ones
        subprocess.run([compiler, "-O1", "-ffp-contract=off", "-fPIC", "-shared", "-o",
                        str(so), str(cpp)], check=True, capture_output=True)
        self.lib = ctypes.CDLL(str(so))
        self.free = 8 << 30
        self.devices = 1   # how many GPUs the stand-in shows
        self.cupy = self._module(types)

    def function(self, name: str, threads_arg: int):
        """A callable with CuPy's launch signature ``f(grid, block, args)``; the number of
        threads is the kernel argument at ``threads_arg``."""
        import ctypes

        fn = getattr(self.lib, f"emu_{name}")

        def conv(v):
            if isinstance(v, np.ndarray):
                return ctypes.c_void_p(v.ctypes.data)
            if isinstance(v, np.int32):
                return ctypes.c_int(int(v))
            if isinstance(v, np.int64):
                return ctypes.c_longlong(int(v))
            if isinstance(v, np.float32):
                return ctypes.c_float(float(v))
            if isinstance(v, (np.float64, float)):
                return ctypes.c_double(float(v))
            raise TypeError(f"no C type for a kernel argument of type {type(v).__name__}")

        def launch(grid, block, args):
            fn(ctypes.c_int(int(args[threads_arg])), *[conv(a) for a in args])

        return launch

    def _module(self, types):
        class Array(np.ndarray):
            def get(self):
                return np.array(self)

        def empty(shape, dtype):
            a = np.empty(shape, dtype)
            a.view(np.uint8).reshape(-1)[:] = 0xA5
            return a.view(Array)

        owner = self
        cupy = types.ModuleType("cupy")
        cupy.asarray = lambda x: np.ascontiguousarray(x).view(Array)
        cupy.empty = empty
        for n in ("int8", "uint8", "int32", "int64", "float32", "float64"):
            setattr(cupy, n, getattr(np, n))
        cupy.get_default_memory_pool = lambda: types.SimpleNamespace(free_bytes=lambda: 0)
        class Device:
            def __init__(self, i=None):
                self.id = 0 if i is None else int(i)

            def __enter__(self):
                return self

            def __exit__(self, *exc):
                return False

        cupy.cuda = types.SimpleNamespace(
            runtime=types.SimpleNamespace(memGetInfo=lambda: (owner.free, owner.free),
                                          getDeviceCount=lambda: owner.devices),
            Device=Device)
        return cupy


def assert_same_library(a, b) -> None:
    """Two consistency libraries (:class:`trimsa.progressive.consistency.Library`) are the
    same, array for array (dtype and values), and count the same posterior pairs."""
    for name in ("offsets", "nbr_ptr", "nbr", "nbr_map", "nbr_ident", "nbr_trust", "maps",
                 "probs", "witnesses"):
        x, y = getattr(a, name), getattr(b, name)
        assert x.dtype == y.dtype and np.array_equal(x, y), name
    assert a.n_posterior == b.n_posterior
