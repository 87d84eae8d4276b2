"""`kill -9` at 50 random lines of save(): the index always opens, as the old or the new
version, and the next save leaves no debris."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # kill -9 rounds: not the quick lane

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]


def test_kill_9_anywhere_in_save_leaves_old_or_new(flat_index):
    env = {**os.environ, "PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1", "OMP_NUM_THREADS": "1"}
    done = subprocess.run([sys.executable, str(HERE / "kill_saves.py"), str(flat_index), "50",
                           "3"], capture_output=True, text=True, env=env, cwd=REPO, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    summary = json.loads(done.stdout.strip().splitlines()[-1])
    assert summary["errors"] == []
    assert summary["killed"] + summary["completed"] == 50 and summary["killed"] >= 40
    assert summary["opened_old"] > 0 and summary["opened_new"] > 0  # both sides of the switch
    assert summary["save_lines"] > 100
    assert summary["left_over"] == [] and summary["version_folders"] <= 2
