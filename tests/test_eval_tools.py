"""The kernel-study tools of eval/ that run without a GPU."""

from __future__ import annotations

import csv
import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _load(name):
    spec = importlib.util.spec_from_file_location(name, ROOT / "eval" / f"{name}.py")
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
