"""The repository is an installed package (`pip install -e .`): the parts and the pages' helpers
import from anywhere, and a page runs from the repository root, with no sys.path edits."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PARTS = ("appkit", "charts", "common", "encoder", "indexer", "metrics", "training")


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return {**env, "HF_HUB_OFFLINE": "1", "OMP_NUM_THREADS": "1"}


@pytest.mark.slow
def test_every_part_imports_from_anywhere(tmp_path):
    done = subprocess.run([sys.executable, "-c", f"import {', '.join(PARTS)}"], cwd=tmp_path,
                          env=_env(), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"run `pip install -e .` (make venv does): {done.stderr[-800:]}"


@pytest.mark.slow
def test_a_page_runs_from_the_repository_root(tmp_path):
    script = ("from streamlit.testing.v1 import AppTest\n"
              "at = AppTest.from_file('app/pages/2_Attention.py', default_timeout=600).run()\n"
              "assert not at.exception, [e.value for e in at.exception]\n"
              "print(len(at.get('plotly_chart')))\n")
    env = {**_env(), "BERTSCOPE_RUNS_ROOT": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", script], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-1500:]
    assert int(done.stdout.strip().splitlines()[-1]) >= 1
