import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent
DATA = HERE / "data"
ROOT = HERE.parent


def _gpu_available() -> bool:
    try:
        import cupy

        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:
        return False


def pytest_collection_modifyitems(config, items):
    if _gpu_available():
        return
    skip = pytest.mark.skip(reason="no CUDA GPU visible to CuPy")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope="module")
def dask_client():
    """A local Dask cluster of 2 single-thread worker processes, one per test module
    (skipped without ``distributed``)."""
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=":0", silence_logs=40) as cluster:
        with distributed.Client(cluster) as c:
            c.wait_for_workers(2, timeout=60)
            yield c


@pytest.fixture
def data_dir() -> Path:
    return DATA


@pytest.fixture
def run_module(tmp_path):
    """Run ``python -m trimsa ARGS`` in a subprocess; returns the CompletedProcess."""

    def run(*args, cwd=None, input=None):
        env = dict(os.environ)
        env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
        return subprocess.run(
            [sys.executable, "-m", "trimsa", *map(str, args)],
            capture_output=True, text=True, cwd=cwd or tmp_path, env=env, input=input,
        )

    return run


@pytest.fixture
def gpu_memory():
    """Free CuPy's memory pools after a GPU test."""
    yield
    try:
        import cupy

        cupy.get_default_memory_pool().free_all_blocks()
        cupy.get_default_pinned_memory_pool().free_all_blocks()
    except Exception:
        pass
