"""Triplet scoring on a local Dask cluster (trimsa.distributed)."""

import functools
import os
import sys

import numpy as np
import pytest

from trimsa.errors import BackendUnavailableError, OptionError
from trimsa.io import as_sequence_set
from trimsa.triplet import plan, score_triplets

distributed = pytest.importorskip("distributed")
cloudpickle = pytest.importorskip("cloudpickle")
dask = pytest.importorskip("dask")

from trimsa.triplet import distributed as tdist  # noqa: E402

# the scorers below must reach the worker processes by value
cloudpickle.register_pickle_by_value(sys.modules[__name__])


@pytest.fixture(scope="module")
def client(dask_client):
    return dask_client


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(7)
    lengths = np.concatenate([rng.integers(2, 12, 8), rng.integers(25, 45, 4)])
    seqs = as_sequence_set(["".join(rng.choice(list("ACGT"), int(n))) for n in lengths])
    trip = rng.integers(0, len(seqs), (90, 3)).astype(np.int32)
    return seqs, trip


def _reference(seqs, trip, mode="global"):
    return score_triplets(seqs, trip, mode=mode, device="cpu", threads=1)


@pytest.mark.parametrize("scheme", plan.SCHEMES)
def test_cluster_equals_the_cpu_engine(client, data, scheme):
    seqs, trip = data
    got = tdist.score_triplets_distributed(seqs, trip, scheduler=client, partition=scheme,
                                           device="cpu")
    np.testing.assert_array_equal(got, _reference(seqs, trip))


def test_all_triplets_local_mode_and_auto_device(client, data):
    seqs, _trip = data
    got = tdist.score_triplets_distributed(seqs, mode="local", scheduler=client,
                                           parts_per_worker=3)
    np.testing.assert_array_equal(got, score_triplets(seqs, mode="local", device="cpu"))


def _record_pid(seqs, trip, mode, scoring, device, threads):
    """A scorer that answers with the worker's process id (which worker ran what)."""
    return np.full(trip.shape[0], os.getpid(), dtype=np.int64)


def test_static_parts_go_one_to_each_worker(client, data):
    seqs, trip = data
    pids = tdist.score_triplets_distributed(seqs, trip, scheduler=client, partition="blocked",
                                            scorer=_record_pid)
    halves = plan.blocked(trip.shape[0], 2)
    assert {int(pids[h[0]]) for h in halves} == {int(pids[h][0]) for h in halves}
    assert len({int(pids[h[0]]) for h in halves}) == 2
    for h in halves:
        assert (pids[h] == pids[h[0]]).all()


def _kill_once(seqs, trip, mode, scoring, device, threads, *, marker):
    """Kill this worker process the first time any part is scored."""
    try:
        fd = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    except FileExistsError:
        return tdist.score_part(seqs, trip, mode, scoring, device, threads)
    os.write(fd, str(os.getpid()).encode())
    os.close(fd)
    os._exit(1)


@pytest.mark.parametrize("scheme", ["dynamic", "blocked"])
def test_a_killed_worker_loses_nothing(client, data, tmp_path, scheme):
    seqs, trip = data
    marker = tmp_path / "killed"
    scorer = functools.partial(_kill_once, marker=str(marker))
    got = tdist.score_triplets_distributed(seqs, trip, scheduler=client, partition=scheme,
                                           device="cpu", scorer=scorer)
    assert marker.exists()  # a worker really died mid-run
    np.testing.assert_array_equal(got, _reference(seqs, trip))
    client.wait_for_workers(2, timeout=60)  # the nanny restarts it for the next tests


def _always_fail(seqs, trip, mode, scoring, device, threads):
    raise ArithmeticError("scorer failed")


def test_a_failing_scorer_is_not_retried_forever(client, data):
    seqs, trip = data
    with pytest.raises(ArithmeticError, match="scorer failed"):
        tdist.score_triplets_distributed(seqs, trip, scheduler=client, scorer=_always_fail)


def _wrong_length(seqs, trip, mode, scoring, device, threads):
    return np.zeros(trip.shape[0] + 1, dtype=np.int64)


def test_a_short_answer_is_caught(client, data):
    seqs, trip = data
    with pytest.raises(RuntimeError, match="scores for"):
        tdist.score_triplets_distributed(seqs, trip, scheduler=client, scorer=_wrong_length)


def test_score_part_batches_to_the_memory_budget(data, monkeypatch):
    seqs, trip = data
    calls = []
    real = tdist.plan.memory_batches

    def spy(*args, **kw):
        batches = real(*args, **kw)
        calls.append(len(batches))
        return batches

    model = plan.memory_model("cpu", threads=1,
                              sequence_bytes=seqs.codes.nbytes + seqs.offsets.nbytes)
    budget = max(plan.batch_bytes(seqs.lengths, trip[t:t + 1], model) for t in range(len(trip)))
    budget += 20 * plan.INDEX_OUT_BYTES  # room for about 20 triplets more than the largest
    monkeypatch.setattr(tdist, "_worker_budget", lambda device: budget)
    monkeypatch.setattr(tdist.plan, "memory_batches", spy)
    got = tdist.score_part(seqs, trip, "global", None, "cpu", 1)
    np.testing.assert_array_equal(got, _reference(seqs, trip))
    assert calls and calls[0] >= len(trip) // 21


@pytest.mark.slow
def test_local_scheduler_string(data):
    seqs, trip = data
    got = tdist.score_triplets_distributed(seqs, trip[:20], scheduler="local:2", device="cpu")
    np.testing.assert_array_equal(got, _reference(seqs, trip[:20]))


def _spy_on_workers(monkeypatch, probe):
    """Record ``sorted(probe() on every worker)`` each time a client is opened."""
    seen = []
    real = tdist.connect

    def spy(scheduler, **kw):
        cm = real(scheduler, **kw)

        class Wrap:
            def __enter__(self):
                c = cm.__enter__()
                seen.append(sorted(c.run(probe).values(), key=str))
                return c

            def __exit__(self, *exc):
                return cm.__exit__(*exc)

        return Wrap()

    monkeypatch.setattr(tdist, "connect", spy)
    return seen


def _visible():
    return os.environ.get("CUDA_VISIBLE_DEVICES")


def test_local_cluster_pins_one_gpu_per_worker(data, monkeypatch):
    # on a GPU machine local:N gives worker i the GPU gpu_ids[i % G] (CPU check: the env only;
    # test_local_cluster_of_gpu_workers checks real GPUs)
    from trimsa.triplet import _gpu

    if _gpu.available() is not None:
        pytest.skip("made-up GPU ids: a check for machines without a GPU")
    seqs, trip = data
    monkeypatch.setattr(tdist, "local_gpu_ids", lambda: ["5", "GPU-x"])
    seen = _spy_on_workers(monkeypatch, _visible)
    # the workers score on their CPU (device="auto" finds no CuPy GPU here)
    got = tdist.score_triplets_distributed(seqs, trip[:20], scheduler="local:3", device="auto")
    np.testing.assert_array_equal(got, _reference(seqs, trip[:20]))
    assert seen == [["5", "5", "GPU-x"]]
    # device="cpu" never pins
    seen.clear()
    tdist.score_triplets_distributed(seqs, trip[:5], scheduler="local:1", device="cpu")
    assert seen == [[None]] or seen == [[os.environ.get("CUDA_VISIBLE_DEVICES")]]


def _worker_gpu():
    import cupy

    return (os.environ.get("CUDA_VISIBLE_DEVICES"), int(cupy.cuda.runtime.getDeviceCount()))


@pytest.mark.gpu
def test_local_cluster_of_gpu_workers(data, monkeypatch):
    """On a GPU machine: local:N puts one worker on each GPU; scores equal the CPU engine."""
    seqs, trip = data
    ids = tdist.local_gpu_ids()
    n = max(2, len(ids))
    seen = _spy_on_workers(monkeypatch, _worker_gpu)
    got = tdist.score_triplets_distributed(seqs, trip, mode="semiglobal", scheduler=f"local:{n}",
                                           device="gpu")
    np.testing.assert_array_equal(got, _reference(seqs, trip, "semiglobal"))
    # each worker sees exactly one GPU, and together they cover every GPU
    assert seen == [sorted(((ids[i % len(ids)], 1) for i in range(n)), key=str)]


@pytest.mark.gpu
def test_existing_cluster_of_gpu_workers_by_address(data):
    """On a GPU machine: a cluster reached by its tcp:// address scores on its workers' GPUs."""
    seqs, trip = data
    ids = tdist.local_gpu_ids()
    with tdist._pinned_cluster(distributed, ids, threads_per_worker=1, processes=True,
                               dashboard_address=":0", silence_logs=40) as cluster:
        cluster.scale(len(ids))
        with distributed.Client(cluster) as c:
            c.wait_for_workers(len(ids), timeout=120)
            assert sorted(c.run(_worker_gpu).values(), key=str) == sorted(((i, 1) for i in ids), key=str)
        got = tdist.score_triplets_distributed(seqs, trip, scheduler=cluster.scheduler_address,
                                               device="gpu", partition="interleaved")
    np.testing.assert_array_equal(got, _reference(seqs, trip))


def test_local_gpu_ids_without_a_gpu():
    from trimsa.triplet import _gpu

    if _gpu.available() is None:
        assert tdist.local_gpu_ids() == []


def test_parse_scheduler():
    assert tdist.parse_scheduler("local:3") == ("local", 3)
    assert tdist.parse_scheduler("tls://h:1") == ("address", "tls://h:1")
    assert tdist.parse_scheduler("tcp://[::1]:8786") == ("address", "tcp://[::1]:8786")
    for bad in ("local:0", "local:x", "h:8786", "tcp://", "", "tcp://localhost",
                "tcp://127.0.0.1:abc", "tcp://h:0", "tcp://:8786"):
        with pytest.raises(OptionError, match="--scheduler"):
            tdist.parse_scheduler(bad)


def test_bad_options(data):
    seqs, trip = data
    with pytest.raises(OptionError, match="unknown partition"):
        tdist.score_triplets_distributed(seqs, trip, scheduler="local:1", partition="cyclic")
    with pytest.raises(OptionError, match="unknown device"):
        tdist.score_triplets_distributed(seqs, trip, scheduler="local:1", device="tpu")


def test_missing_dask_says_what_to_install(monkeypatch, data):
    seqs, trip = data
    monkeypatch.setitem(sys.modules, "distributed", None)
    with pytest.raises(BackendUnavailableError, match=r"trimsa\[dist\]"):
        tdist.score_triplets_distributed(seqs, trip, scheduler="local:1")


def _cluster(n, **config):
    """A fresh local cluster of ``n`` single-thread worker processes."""
    with dask.config.set(config):
        return distributed.LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                                        dashboard_address=":0", silence_logs=40)


@pytest.mark.slow
def test_killed_worker_error_is_resubmitted(data, tmp_path):
    """With no failures allowed, Dask gives up on the part (KilledWorker); trimsa resubmits it."""
    seqs, trip = data
    marker = tmp_path / "killed"
    scorer = functools.partial(_kill_once, marker=str(marker))
    with _cluster(2, **{"distributed.scheduler.allowed-failures": 0}) as cluster:
        with distributed.Client(cluster) as c:
            c.wait_for_workers(2, timeout=60)
            with pytest.raises(distributed.KilledWorker):
                tdist.score_triplets_distributed(seqs, trip, scheduler=c, device="cpu",
                                                 scorer=scorer, retries=0)
            assert marker.exists()
            marker.unlink()
            c.wait_for_workers(2, timeout=60)
            got = tdist.score_triplets_distributed(seqs, trip, scheduler=c, device="cpu",
                                                   scorer=scorer, retries=1)
    assert marker.exists()
    np.testing.assert_array_equal(got, _reference(seqs, trip))


@pytest.mark.slow
def test_lost_sequences_are_sent_again(data, tmp_path):
    """The only worker dies: its copy of the sequences is lost and must be scattered again."""
    seqs, trip = data
    marker = tmp_path / "killed"
    scorer = functools.partial(_kill_once, marker=str(marker))
    with _cluster(1) as cluster, distributed.Client(cluster) as c:
        c.wait_for_workers(1, timeout=60)
        got = tdist.score_triplets_distributed(seqs, trip, scheduler=c, device="cpu",
                                               scorer=scorer)
    assert marker.exists()
    np.testing.assert_array_equal(got, _reference(seqs, trip))


def _api_has_scheduler():
    import inspect

    return "scheduler" in inspect.signature(score_triplets).parameters


@pytest.mark.skipif(not _api_has_scheduler(), reason="api.py patch of issue 7 not applied yet")
def test_api_entry_point(client, data):
    seqs, trip = data
    got = score_triplets(seqs, trip, mode="semiglobal", scheduler=client, partition="interleaved")
    np.testing.assert_array_equal(got, _reference(seqs, trip, "semiglobal"))
    with pytest.raises(OptionError, match="cannot be combined"):
        score_triplets(seqs, trip, scheduler=client, gpus=[0])


def _cli_has_scheduler():
    from trimsa.cli import build_parser

    try:
        build_parser().parse_args(["triplets", "x.fa", "--scheduler", "local:1"])
    except SystemExit:
        return False
    return True


@pytest.mark.slow
@pytest.mark.skipif(not _cli_has_scheduler(), reason="triplets CLI patch of issue 7 not applied")
def test_cli_scheduler_equals_the_cpu_engine(tmp_path, data):
    from trimsa.cli import main

    seqs, _trip = data
    fa = tmp_path / "in.fa"
    fa.write_text("".join(f">{n}\n{s}\n" for n, s in zip(seqs.names[:7], seqs.sequences[:7])))
    assert main(["triplets", str(fa), "--device", "cpu", "-o", str(tmp_path / "a.tsv")]) == 0
    assert main(["triplets", str(fa), "--scheduler", "local:2", "--partition", "interleaved",
                 "-o", str(tmp_path / "b.tsv")]) == 0
    assert (tmp_path / "a.tsv").read_text() == (tmp_path / "b.tsv").read_text()


@pytest.mark.skipif(not _cli_has_scheduler(), reason="triplets CLI patch of issue 7 not applied")
@pytest.mark.parametrize("argv, message", [
    (["--gpus", "0", "--device", "cpu"], "--gpus needs --device gpu or auto"),
    (["--gpus", "0", "--scheduler", "local:1"], "cannot be combined"),
    (["--gpus", "x"], "comma-separated"),
    (["--scheduler", "nowhere"], "--scheduler must be"),
])
def test_cli_scale_option_errors(tmp_path, capsys, argv, message):
    from trimsa.cli import main

    fa = tmp_path / "in.fa"
    fa.write_text(">a\nACGT\n>b\nACG\n>c\nAGT\n")
    out = tmp_path / "out.tsv"
    assert main(["triplets", str(fa), "-o", str(out)] + argv) == 2
    assert message in capsys.readouterr().err
    assert not out.exists()


def test_scheduler_address(client, data):
    """``tcp://HOST:PORT`` connects to a running cluster (here the fixture's)."""
    seqs, trip = data
    address = client.scheduler.address
    assert address.startswith("tcp://")
    got = tdist.score_triplets_distributed(seqs, trip[:30], scheduler=address, device="cpu")
    np.testing.assert_array_equal(got, _reference(seqs, trip[:30]))
    assert client.status == "running"  # the fixture's client was left alone


def test_unreachable_scheduler_is_one_clear_error(data):
    seqs, trip = data
    with pytest.raises(OptionError, match="cannot reach the Dask scheduler at tcp://127.0.0.1:9"):
        with tdist.connect("tcp://127.0.0.1:9", timeout=2):
            pass
