"""The kernel-study tools of this folder that run without a GPU.

Run with ``python -m pytest eval/experiments/kernels`` from the repository root (the
main test suite collects ``tests/`` only).
"""

from __future__ import annotations

import csv
import importlib.util
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]


def _load(name):
    spec = importlib.util.spec_from_file_location(name, HERE / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def proxy():
    yield _load("proxy_kernels")
    sys.modules.pop("proxy_kernels", None)


@pytest.mark.parametrize("variant", ["noface", "noload", "nostore", "weak", "weakld", "l2face", "stageall",
                                     "xsm-2", "t16-48i", "desync-w-600"])
def test_proxy_edits_apply_to_this_kernel(proxy, variant, tmp_path):
    # every edit must match the kernel exactly once: a kernel change that breaks a pattern
    # shows here, not on a GPU machine
    root = proxy.make_tree(variant, tmp_path, False)
    kernel = (root / proxy.KERNEL).read_text()
    assert kernel != (ROOT / proxy.KERNEL).read_text() or variant == "stageall"
    if variant in ("noface", "nostore", "weak"):
        assert "__stcg(" not in kernel and kernel.count("trimsa_face_store(") == 5
    if variant == "l2face":
        assert kernel.count("nlmax + (li & 1))") == 4


def test_ncu_source_stalls_summary(tmp_path):
    mod = _load("ncu_source_stalls")
    head = ["Address", "Source", "Warp Stall Sampling (All Samples)", "Warp Stall Sampling (Not-issued Samples)",
            "stall_long_sb", "stall_wait", "stall_long_sb (Not Issued)"]
    rows = [["0x10", "  LDG.E R2, desc[UR4][R4.64]", "60", "55", "50", "10", "45"],
            ["0x20", "@P0 VIADDMNMX R3, R2, R5, R3, !PT", "30", "20", "0", "30", "0"],
            ["0x30", "  LDG.E R6, desc[UR4][R4.64+0x4]", "10", "5", "8", "2", "5"]]
    path = tmp_path / "src.csv"
    with path.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["Kernel Name", "k"])
        w.writerow(head)
        w.writerows(rows)
    out = mod.summary(str(path), top=2)
    assert out[0].endswith("100 samples over 3 instructions")
    # reasons over all instructions (not-issued columns left out): long_sb 58, wait 42
    assert out[1] == "  by reason: long_sb 0.580, wait 0.420"
    # opcodes with predicates and suffixes stripped: LDG 70, VIADDMNMX 30
    assert out[2] == "  by opcode: LDG 0.700, VIADDMNMX 0.300"
    assert len(out) == 5 and out[3].startswith("  0x10 0.6000 LDG.E") and out[3].endswith("long_sb 50, wait 10")
    assert out[4].startswith("  0x20 0.3000 @P0 VIADDMNMX") and out[4].endswith("wait 30")


def _prmt(lo, hi, sel):
    """PRMT in default mode: byte n of the result is byte (sel_n & 7) of hi:lo, or its sign
    replicated when sel_n & 8."""
    src = [(int(lo) >> (8 * n)) & 0xFF for n in range(4)] + [(int(hi) >> (8 * n)) & 0xFF for n in range(4)]
    out = 0
    for n in range(4):
        nib = (int(sel) >> (4 * n)) & 0xF
        byte = src[nib & 7]
        if nib & 8:
            byte = 0xFF if byte & 0x80 else 0
        out |= byte << (8 * n)
    return out


@pytest.mark.parametrize("label", ["sloped int16 8x4 imad", "sloped int32 8x4"])
def test_sloped_proxy_inputs_and_recurrence_give_the_plain_dp(label):
    # what the sloped kernel computes, in Python: planes t = I + J + K from the three before,
    # its x terms decoded from the harness's profile words and selectors as PRMT does; the
    # last plane must equal the plain layer-by-layer DP (shifted by -g2*t), for every cell
    import numpy as np

    sl = _load("proxy_sloped")
    try:
        v = next(x for x in sl.VARIANTS if x[0] == label)
        rj, rk = sl.region(v)
        steps = sl.round_steps(v, sl.fill_steps(v) + 9)
        rng = np.random.default_rng(7)
        sub, gap, items = sl.make_inputs(rng, v, steps)
        rb0, rb1, rc0, rc1, xbc, sels, bias, ng2, g2s = sl.device_arrays(v, sub, gap, items, steps)
        nh, g2 = len(items), 2 * gap

        def half(word, h):
            w = (int(word) >> (16 * h)) & 0xFFFF if nh == 2 else int(word) & 0xFFFFFFFF
            bits = 16 if nh == 2 else 32
            return w - (1 << bits) if w >> (bits - 1) else w

        for h in range(nh):
            ref = sl.reference(sub, gap, *items[h])
            planes = {t: np.full((rj + 1, rk + 1), -g2 * t, dtype=np.int64) for t in (0, -1, -2)}
            for t in range(1, steps + 1):
                p1, p2, p3 = planes[t - 1], planes[t - 2], planes[t - 3]
                new = np.full((rj + 1, rk + 1), -g2 * t, dtype=np.int64)
                for J in range(1, rj + 1):
                    for K in range(1, rk + 1):
                        if t - J - K <= 0:
                            continue
                        s = sels[t - J - K + bias]
                        xab = half(_prmt(rb0[J - 1], rb1[J - 1], s), h)
                        xac = half(_prmt(rc0[K - 1], rc1[K - 1], s), h)
                        xb = half(xbc[(J - 1) * rk + K - 1], h)
                        new[J, K] = max(p1[J, K], p1[J - 1, K], p1[J, K - 1], p2[J - 1, K] + xab,
                                        p2[J, K - 1] + xac, p2[J - 1, K - 1] + xb,
                                        p3[J - 1, K - 1] + xab + xac + xb)
                planes[t] = new
            for J in range(1, rj + 1):
                for K in range(1, rk + 1):
                    assert planes[steps][J, K] == ref[steps - J - K, J, K] - g2 * steps
    finally:
        sys.modules.pop("proxy_sloped", None)


def test_ratio_table_gives_ratios_to_the_first_column_and_marks_missing_cells():
    mod = _load("proxy_kernels")
    best = {(64, "global", "int16", "a"): 2.0, (64, "global", "int16", "b"): 3.0}
    lines = mod.ratio_table(best, [(64, "global", "int16"), (32, "global", "int16")], ["a", "b"], "L")
    assert lines[0] == "| L | mode | precision | a | b |"
    assert lines[2] == "| 64 | global | int16 | 2.000 | 3.000 (1.500) |"
    assert lines[3] == "| 32 | global | int16 | - | - |"


def test_padding_model_counts_the_swept_cells_of_a_multi_region_plane():
    pm = _load("padding_model")
    import numpy as np

    try:
        # one triplet, lengths 70 / 60 / 70: A = 70 (71 layers in global mode), plane 60 x 70,
        # larger than every one-region configuration. 16 bits: a pair with one empty lane,
        # 32 x 64 regions -> 64 x 128 padded; the 64 x 32 region pads it to 64 x 96.
        # 32 bits: the tall 64 x 64 regions -> 64 x 128, or 64 x 96 with 64 x 32 regions.
        lengths = np.array([70, 60, 70])
        trip = np.array([[0, 1, 2]])
        r16 = pm.swept(lengths, trip, 0, "int16")
        assert r16 == dict(real=70 * 60 * 70, planned=2 * 71 * 64 * 128, per_triplet=71 * 64 * 128,
                           best=71 * 64 * 96)
        r32 = pm.swept(lengths, trip, 0, "int32")
        assert r32 == dict(real=70 * 60 * 70, planned=71 * 64 * 128, per_triplet=71 * 64 * 128,
                           best=71 * 64 * 96)
        # local mode sweeps no layer 0 (A = 30 layers); a one-region plane (B x C = 20 x 25, in the
        # 32 x 32 region of (8, 8, 4, 4)) has no alternative
        r = pm.swept(np.array([25, 20, 30]), trip, 2, "int16")
        assert r["per_triplet"] == 30 * 32 * 32 and r["best"] == r["per_triplet"]
    finally:
        sys.modules.pop("bench_kernels", None)
