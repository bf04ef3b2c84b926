"""The package's layers and its freedom from import cycles (import-linter contracts in pyproject.toml)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytest.importorskip("importlinter")


def _lint(root: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(root))
    code = ("import sys; from importlinter.cli import lint_imports; "
            "sys.exit(lint_imports(config_filename='pyproject.toml', no_cache=True, no_logo=True))")
    return subprocess.run([sys.executable, "-c", code], cwd=root, env=env, capture_output=True,
                          text=True)


def test_contracts_are_kept():
    p = _lint(ROOT)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "0 broken" in p.stdout


@pytest.mark.parametrize("module, line, contract", [
    pytest.param("trimsa/triplet/plan.py", "from trimsa.triplet import api as _up",
                 "The triplet engine", id="backend-calls-the-api"),
    pytest.param("trimsa/tree/distances.py", "from trimsa.progressive import engine as _up",
                 "One stack", id="tree-imports-progressive"),
    pytest.param("trimsa/scoring.py", "from trimsa import evaluate as _up",
                 "beside the pipeline", id="scoring-imports-evaluate"),
])
def test_an_upward_import_breaks_a_contract(tmp_path, module, line, contract):
    shutil.copytree(ROOT / "trimsa", tmp_path / "trimsa",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    target = tmp_path / module
    target.write_text(target.read_text() + f"\n{line}\n")
    p = _lint(tmp_path)
    assert p.returncode != 0
    assert contract in p.stdout and "BROKEN" in p.stdout
