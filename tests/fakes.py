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

    def score(self, seqs, trip, mode, scoring, out):
        dev = self.local.dev
        assert dev is not None, "scored outside a device context"
        if dev == self.fail_on:
            raise RuntimeError(f"device {dev} failed")
        name = {0: "global", 1: "semiglobal", 2: "local"}[mode]
        out[:] = score_triplets(seqs, trip, mode=name, scoring=scoring, device="cpu", threads=1)
        with self.lock:
            self.batches.append((dev, trip.copy(),
                                 plan.batch_bytes(seqs.lengths, trip, self.memory_model(seqs))))
            self.threads.add(threading.current_thread())
