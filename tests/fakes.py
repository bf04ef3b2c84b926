"""Test doubles shared by several test modules."""

import threading

from trimsa.triplet import plan, score_triplets


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
