"""Scoring on several devices of one machine, with a fake per-device backend."""

import sys
import threading
import time

import numpy as np
import pytest

from trimsa.errors import BackendUnavailableError, OptionError
from trimsa.io import as_sequence_set
from trimsa.scoring import Scoring
from trimsa.triplet import plan, score_triplets
from trimsa.triplet.devices import CupyBackend, parse_gpus, score_on_devices, select_devices

from .fakes import FakeDevices


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(11)
    seqs = as_sequence_set(["".join(rng.choice(list("ACGT"), int(n)))
                            for n in rng.integers(3, 30, 14)])
    trip = rng.integers(0, 14, (120, 3)).astype(np.int32)
    ref = score_triplets(seqs, trip, mode="semiglobal", device="cpu", threads=1)
    return seqs, trip, ref


@pytest.mark.parametrize("scheme", plan.SCHEMES)
@pytest.mark.parametrize("ndev", [1, 2, 4])
def test_several_devices_equal_one(data, scheme, ndev):
    seqs, trip, ref = data
    fake = FakeDevices(4, free=70_000)
    got = score_on_devices(seqs, trip, 1, Scoring.dna(), gpus=list(range(ndev)),
                           partition=scheme, backend=fake)
    np.testing.assert_array_equal(got, ref)
    seen = {}
    for dev, t, nbytes in fake.batches:
        assert nbytes <= 0.6 * 70_000
        seen.setdefault(dev, []).append(t)
    # every triplet scored exactly once
    done = np.concatenate([t for _d, t, _b in fake.batches])
    assert sorted(map(tuple, done.tolist())) == sorted(map(tuple, trip.tolist()))
    if scheme != "dynamic" or ndev == 1:
        # static schemes: each device scores the part the partition names, in order
        parts = plan.partition(plan.triplet_costs(seqs.lengths, trip), ndev, scheme)
        assert sorted(seen) == [d for d in range(ndev) if parts[d].size]
        for d, chunks in seen.items():
            np.testing.assert_array_equal(np.concatenate(chunks), trip[parts[d]])
    if ndev > 1:
        assert len(fake.batches) > ndev  # the budget forced several batches per device


class SlowDevice(FakeDevices):
    """Device 1 sleeps before every batch: it stands for a slower or busier GPU."""

    def score(self, seqs, trip, mode, scoring, out):
        if self.local.dev == 1:
            time.sleep(0.05)
        super().score(seqs, trip, mode, scoring, out)


def test_dynamic_chunks_go_to_the_device_that_is_free(data):
    seqs, trip, ref = data
    fake = SlowDevice(2)
    got = score_on_devices(seqs, trip, 1, Scoring.dna(), backend=fake, min_chunk=1,
                           chunks_per_device=8)
    np.testing.assert_array_equal(got, ref)
    per_dev = [sum(len(t) for d, t, _b in fake.batches if d == dev) for dev in (0, 1)]
    assert len(fake.batches) >= 16  # at least 8 chunks per device
    assert per_dev[0] > per_dev[1]  # the fast device took more of the work


def test_chosen_devices_only(data):
    seqs, trip, ref = data
    fake = FakeDevices(4)
    got = score_on_devices(seqs, trip, 1, Scoring.dna(), gpus=[3, 1], partition="interleaved",
                           backend=fake)
    np.testing.assert_array_equal(got, ref)
    assert {d for d, _t, _b in fake.batches} == {1, 3}
    assert len(fake.threads) == 2  # one host thread per device


@pytest.mark.parametrize("ndev,scheme", [(1, "dynamic"), (2, "dynamic"), (2, "blocked"),
                                         (3, "interleaved")])
def test_several_streams_per_device(data, ndev, scheme):
    seqs, trip, ref = data
    fake = FakeDevices(ndev)
    fake.streams = 2  # two host threads per device, as CupyBackend runs by default
    got = score_on_devices(seqs, trip, 1, Scoring.dna(), partition=scheme, backend=fake,
                           min_chunk=1)
    np.testing.assert_array_equal(got, ref)
    done = np.concatenate([t for _d, t, _b in fake.batches])
    assert sorted(map(tuple, done.tolist())) == sorted(map(tuple, trip.tolist()))
    assert len(fake.threads) <= 2 * ndev
    assert len({d for d, _t, _b in fake.batches}) == ndev
    if scheme != "dynamic":
        # a static part stays on its device, whichever of its threads scores a piece
        parts = plan.partition(plan.triplet_costs(seqs.lengths, trip), ndev, scheme)
        for d in range(ndev):
            mine = np.concatenate([t for d2, t, _b in fake.batches if d2 == d])
            assert sorted(map(tuple, mine.tolist())) == sorted(map(tuple, trip[parts[d]].tolist()))


def test_one_chunk_per_device_reaches_every_device(data):
    # as many chunks as devices: the second thread of a device must not take
    # the chunk another device waits for; its device's threads share one
    seqs, trip, ref = data

    class Sleepy(FakeDevices):
        # every batch takes long enough for all threads to have started
        def score(self, *args):
            time.sleep(0.3)
            super().score(*args)

    fake = Sleepy(3)
    fake.streams = 2
    got = score_on_devices(seqs, trip, 1, Scoring.dna(), backend=fake,
                           min_chunk=4 * len(trip))
    np.testing.assert_array_equal(got, ref)
    assert {d for d, _t, _b in fake.batches} == {0, 1, 2}
    assert len(fake.batches) == 3  # chunks below min_chunk are not cut for the streams


def test_cupy_backend_retries_a_batch_too_big_for_its_stream_share():
    # no GPU needed: a CupyBackend whose _gpu and cupy are stand-ins
    import types

    from trimsa.triplet import _gpu as real_gpu

    calls = []

    def score_triplets(seqs, trip, mode, scoring, out=None, precision=None, mem_fraction=None):
        calls.append(mem_fraction)
        if mem_fraction < 0.5:   # this batch's buffers need more than half the share
            raise real_gpu.ScratchBudgetError("too small")
        out[:] = 7

    fake_gpu = types.SimpleNamespace(MEM_FRACTION=0.6, ScratchBudgetError=real_gpu.ScratchBudgetError,
                                     score_triplets=score_triplets)
    fake_cupy = types.SimpleNamespace(cuda=types.SimpleNamespace(
        Device=lambda *a: types.SimpleNamespace(id=0)))
    b = object.__new__(CupyBackend)
    b._gpu, b._cupy, b.precision, b.streams = fake_gpu, fake_cupy, None, 2
    b._streams, b._big, b._lock = {}, {}, threading.Lock()
    out = np.zeros(3, dtype=np.int64)
    linear = Scoring.dna(gap=-3)
    b.score(None, np.zeros((3, 3), np.int32), 0, linear, out)
    assert calls == [0.3, 0.6] and (out == 7).all()
    # one stream: nothing to retry with, the error stands
    b.streams, calls[:] = 1, []
    fake_gpu.MEM_FRACTION = 0.4
    with pytest.raises(real_gpu.ScratchBudgetError):
        b.score(None, np.zeros((3, 3), np.int32), 0, linear, out)
    assert calls == [0.4]


def test_a_device_error_is_raised(data):
    seqs, trip, _ref = data
    with pytest.raises(RuntimeError, match="device 1 failed"):
        score_on_devices(seqs, trip, 1, Scoring.dna(), partition="blocked",
                         backend=FakeDevices(2, fail_on=1))


def test_budget_too_small_is_an_error(data):
    seqs, trip, _ref = data
    with pytest.raises(OptionError, match="memory budget"):
        score_on_devices(seqs, trip, 1, Scoring.dna(), backend=FakeDevices(2), budget=500)


def test_empty_triplet_set(data):
    seqs, _trip, _ref = data
    got = score_on_devices(seqs, np.zeros((0, 3), np.int32), 0, Scoring.dna(),
                           backend=FakeDevices(2))
    assert got.shape == (0,)


def test_device_selection():
    assert select_devices(None, 3) == [0, 1, 2]
    assert select_devices("2,0", 3) == [2, 0]
    assert parse_gpus("0, 1") == [0, 1]
    with pytest.raises(OptionError, match="GPU 3 does not exist; visible GPUs are 0..1"):
        select_devices([0, 3], 2)
    with pytest.raises(OptionError, match="twice"):
        select_devices([1, 1], 2)
    with pytest.raises(OptionError, match="no GPU is visible"):
        select_devices(None, 0)
    with pytest.raises(OptionError, match="comma-separated"):
        parse_gpus("0;1")


def test_cupy_backend_says_what_is_missing(monkeypatch):
    monkeypatch.setitem(sys.modules, "cupy", None)
    from trimsa.triplet import _gpu

    if _gpu.available():  # pragma: no cover - only on a GPU machine with CuPy
        pytest.skip("a GPU is visible")
    with pytest.raises(BackendUnavailableError):
        CupyBackend()


@pytest.mark.parametrize("gpus", [None, [1], [0, 2]])
def test_api_uses_every_chosen_device(data, monkeypatch, gpus):
    from trimsa.triplet import api, devices

    seqs, trip, ref = data
    fake = FakeDevices(3)
    monkeypatch.setattr(api, "resolve_device", lambda device, announce=True: device)
    monkeypatch.setattr(devices.CupyBackend, "shared", classmethod(lambda cls, precision=None: fake))
    got = score_triplets(seqs, trip, mode="semiglobal", device="gpu", gpus=gpus,
                         partition="interleaved")  # every device gets a part
    np.testing.assert_array_equal(got, ref)
    assert {d for d, _t, _b in fake.batches} == set(gpus if gpus is not None else [0, 1, 2])


@pytest.mark.gpu
@pytest.mark.parametrize("scheme", plan.SCHEMES)
def test_real_gpus_equal_one_gpu_and_the_cpu(data, scheme):
    """On a GPU machine: every visible GPU, then GPU 0 alone, then the CPU engine."""
    seqs, trip, ref = data
    backend = CupyBackend()
    every = score_on_devices(seqs, trip, 1, Scoring.dna(), partition=scheme, backend=backend)
    one = score_on_devices(seqs, trip, 1, Scoring.dna(), gpus=[0], backend=backend)
    np.testing.assert_array_equal(one, ref)
    np.testing.assert_array_equal(every, ref)


def test_a_planning_error_stops_the_waiting_devices(data, monkeypatch):
    seqs, trip, _ref = data

    def broken(*args, **kw):
        raise ZeroDivisionError("planner failed")

    monkeypatch.setattr(plan, "dynamic", broken)
    with pytest.raises(ZeroDivisionError, match="planner failed"):
        score_on_devices(seqs, trip, 1, Scoring.dna(), backend=FakeDevices(3))


@pytest.mark.parametrize("T,P,per,minc", [(120, 2, 4, 1), (120, 2, 8, 1), (1000, 4, 4, 10),
                                          (1000, 4, 4, 100), (50, 3, 4, 1), (7, 2, 4, 1)])
def test_dynamic_segments_cover_the_set_once_and_start_small(T, P, per, minc):
    from trimsa.triplet import devices

    segs = devices._segments(T, P, per, minc)
    np.testing.assert_array_equal(np.sort(np.concatenate(segs)), np.arange(T))
    nseg = max(1, min(per, T // (P * minc)))
    assert len(segs) in (nseg, nseg + 1)
    for seg in segs:
        assert seg.size >= min(T, P * minc) or len(segs) == 1   # no chunk below min_chunk
        # spread over the whole set (the same mix of lengths), not a contiguous run
        assert np.diff(seg, prepend=-1, append=T).max() <= 2 * max(devices.LEAD, len(segs))
    if len(segs) == nseg + 1:   # a lead segment: every LEAD-th (or every T // (P * minc)-th) triplet
        stride = min(devices.LEAD, T // (P * minc))
        np.testing.assert_array_equal(segs[0], np.arange(0, T, stride))
        assert segs[0].size < segs[1].size
