"""Cost model, partitions and memory-bounded batches (trimsa.triplet.plan)."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trimsa.errors import OptionError
from trimsa.triplet import plan

costs_st = st.lists(st.floats(0, 1e6, allow_nan=False), min_size=0, max_size=200)


def test_cells_are_products_of_lengths():
    rng = np.random.default_rng(0)
    lengths = rng.integers(0, 300, 20)
    trip = rng.integers(0, 20, (50, 3))
    want = [int(lengths[a]) * int(lengths[b]) * int(lengths[c]) for a, b, c in trip]
    assert plan.triplet_cells(lengths, trip).tolist() == want
    assert plan.triplet_cells(lengths, np.zeros((0, 3), int)).shape == (0,)


def test_costs_follow_the_rate():
    rate = plan.Rate(cells_per_s=100.0, overhead_s=0.5)
    got = plan.triplet_costs([10, 2, 5], [[0, 1, 2], [1, 1, 1]], rate)
    np.testing.assert_allclose(got, [100 / 100 + 0.5, 8 / 100 + 0.5])


def test_default_rates_and_errors():
    cpu = plan.RATES[("cpu", "exact")]
    assert plan.default_rate("cpu", 4).cells_per_s == 4 * cpu.cells_per_s
    assert plan.default_rate("cpu", 4).overhead_s == cpu.overhead_s / 4
    assert plan.default_rate("cpu", 2, "band").cells_per_s == 2 * plan.RATES[("cpu", "band")].cells_per_s
    assert plan.default_rate("gpu") == plan.RATES[("gpu", "exact")]
    with pytest.raises(OptionError, match="known: cpu/exact"):
        plan.default_rate("tpu")
    with pytest.raises(OptionError, match="no rate for the band engine on 'gpu'"):
        plan.default_rate("gpu", engine="band")
    with pytest.raises(OptionError, match="invalid rate"):
        plan.Rate(0.0)
    with pytest.raises(OptionError, match="unknown partition 'cyclic'"):
        plan.partition([1.0], 2, "cyclic")
    with pytest.raises(OptionError, match="positive integer"):
        plan.blocked(3, 0)


@settings(max_examples=60, deadline=None)
@given(costs=costs_st, parts=st.integers(1, 12), scheme=st.sampled_from(plan.SCHEMES))
def test_partitions_cover_every_triplet_once(costs, parts, scheme):
    got = plan.partition(np.array(costs), parts, scheme)
    assert len(got) == parts
    allidx = np.concatenate(got) if got else np.zeros(0, int)
    assert sorted(allidx.tolist()) == list(range(len(costs)))
    for p in got:
        assert p.dtype == np.int64
        assert (np.diff(p) > 0).all()  # ascending within a part


@settings(max_examples=60, deadline=None)
@given(costs=costs_st.filter(bool), parts=st.integers(1, 12),
       order=st.sampled_from(["lpt", "input"]))
def test_dynamic_is_balanced_within_the_largest_cost(costs, parts, order):
    costs = np.array(costs)
    load = plan.loads(costs, plan.dynamic(costs, parts, order=order))
    assert load.max() - load.min() <= costs.max() * (1 + 1e-9) + 1e-9


def test_dynamic_matches_a_slow_greedy():
    rng = np.random.default_rng(3)
    costs = rng.integers(1, 50, 300).astype(float)
    for order in ("lpt", "input"):
        seq = np.argsort(-costs, kind="stable") if order == "lpt" else range(costs.size)
        load = [0.0] * 5
        owner = {}
        hair = costs.max() * 1e-12  # each triplet adds at least this (spreads free ones)
        for t in seq:
            p = min(range(5), key=lambda q: (load[q], q))
            owner[t] = p
            load[p] += costs[t] + hair
        want = [sorted(t for t, p in owner.items() if p == q) for q in range(5)]
        assert [p.tolist() for p in plan.dynamic(costs, 5, order=order)] == want


def test_static_schemes_follow_the_paper():
    assert [p.tolist() for p in plan.blocked(7, 3)] == [[0, 1, 2], [3, 4], [5, 6]]
    assert [p.tolist() for p in plan.interleaved(7, 3)] == [[0, 3, 6], [1, 4], [2, 5]]
    # more parts than items: empty parts, nothing lost
    assert [p.size for p in plan.partition(np.ones(2), 4, "dynamic")] == [1, 1, 0, 0]


def test_lpt_beats_input_order_on_a_ramp():
    costs = np.arange(1, 101, dtype=float)  # increasing: input order ends with the largest
    spread = {o: np.ptp(plan.loads(costs, plan.dynamic(costs, 4, order=o))) for o in ("lpt", "input")}
    assert spread["lpt"] < spread["input"]


# -- memory ---------------------------------------------------------------------------

def _slow_batches(lengths, trip, model, budget, max_count):
    """Reference: grow each batch while the whole batch's bytes fit."""
    out, lo = [], 0
    T = len(trip)
    while lo < T:
        hi = lo + 1
        while (hi < T and hi - lo < max_count
               and plan.batch_bytes(lengths, trip[lo:hi + 1], model) <= budget):
            hi += 1
        out.append(slice(lo, hi))
        lo = hi
    return out


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), backend=st.sampled_from(["cpu", "gpu"]),
       threads=st.integers(1, 4), max_count=st.integers(1, 50), slack=st.integers(0, 200000))
def test_memory_batches_fit_and_are_maximal(seed, backend, threads, max_count, slack):
    rng = np.random.default_rng(seed)
    lengths = rng.integers(0, 120, 10)
    trip = rng.integers(0, 10, (int(rng.integers(1, 80)), 3))
    model = plan.memory_model(backend, threads=threads, sequence_bytes=int(lengths.sum()) + 88)
    single = max(plan.batch_bytes(lengths, trip[t:t + 1], model) for t in range(len(trip)))
    budget = single + slack
    got = plan.memory_batches(lengths, trip, model, budget, max_count=max_count)
    assert got == _slow_batches(lengths, trip, model, budget, max_count)
    for sl in got:
        assert plan.batch_bytes(lengths, trip[sl], model) <= budget
        assert sl.stop - sl.start <= max_count


def test_memory_batch_errors_name_the_triplet():
    model = plan.memory_model("cpu")
    with pytest.raises(OptionError, match=r"triplet \(0, 1, 1\) \(lengths \(100, 200, 200\)\)"):
        plan.memory_batches([100, 200], [[0, 0, 0], [0, 1, 1]], model, 50_000)
    assert plan.memory_batches([1], np.zeros((0, 3), int), model, 10) == []
    with pytest.raises(OptionError, match="no memory model"):
        plan.memory_model("fpga")


def test_memory_model_counts_what_the_cpu_kernel_allocates():
    model = plan.memory_model("cpu", threads=2, sequence_bytes=1000)
    # 2 int32 planes of (mid+1)(max+1) per chunk, 16 chunks for 2 threads
    got = plan.batch_bytes([3, 5, 9], [[0, 1, 2]] * 20, model)
    assert got == 1000 + 20 * 20 + 16 * 2 * 4 * 6 * 10


# -- calibration ------------------------------------------------------------------------

def test_calibrate_recovers_a_known_rate():
    clock = itertools.count()
    now = [0.0]
    lengths = np.arange(1, 60)
    rng = np.random.default_rng(5)
    trip = rng.integers(0, lengths.size, (500, 3))
    true = plan.Rate(cells_per_s=2e5, overhead_s=3e-4)

    def score(sub):
        next(clock)
        now[0] += float(true.seconds(plan.triplet_cells(lengths, sub)).sum())

    got = plan.calibrate(score, lengths, trip, sample=400, clock=lambda: now[0])
    assert got.cells_per_s == pytest.approx(true.cells_per_s, rel=1e-6)
    assert got.overhead_s == pytest.approx(true.overhead_s, rel=1e-6)
    assert next(clock) == 5  # one warm-up and four timed groups
    with pytest.raises(OptionError, match="empty"):
        plan.calibrate(score, lengths, np.zeros((0, 3), int))


def test_calibrate_on_the_cpu_engine():
    from trimsa.io import as_sequence_set
    from trimsa.triplet import score_triplets

    seqs = as_sequence_set(["ACGTACGTAC" * k for k in (1, 2, 3, 4)])
    trip = np.array(list(itertools.combinations(range(4), 3)) * 5)
    rate = plan.calibrate(lambda t: score_triplets(seqs, t, threads=1), seqs.lengths, trip)
    assert rate.cells_per_s > 0 and rate.overhead_s >= 0


@settings(max_examples=60, deadline=None)
@given(costs=costs_st)
def test_lpt_order_is_decreasing_up_to_its_resolution(costs):
    costs = np.array(costs)
    order = plan.lpt_order(costs)
    assert sorted(order.tolist()) == list(range(costs.size))
    c = costs[order]
    # a later cost never exceeds an earlier one by more than one bucket (0.3%)
    assert (c[1:] <= np.maximum.accumulate(c)[:-1] * 2 ** (1 / plan.LPT_RESOLUTION) + 1e-300).all()
    # equal costs keep their input order
    for v in np.unique(costs):
        pos = order[c == v]
        assert (np.diff(pos) > 0).all()


def test_groups_of_is_a_counting_sort():
    owner = np.array([2, 0, 2, 1, 0, 2])
    assert [g.tolist() for g in plan.groups_of(owner, 4)] == [[1, 4], [3], [0, 2, 5], []]
    assert [p.tolist() for p in plan.dynamic(np.zeros(3), 2)] == [[0, 2], [1]]
