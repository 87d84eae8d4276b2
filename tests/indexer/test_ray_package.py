"""A local build never loads the Ray build's package (`indexer.ray`) nor Ray itself."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

LOCAL_BUILD = """
import sys
from indexer import build_index
build_index([{"id": "a", "text": "cats purr"}, {"id": "b", "text": "dogs bark"}], sys.argv[2],
            model=sys.argv[1], preset="flat", backend="torch")
print(sorted(m for m in sys.modules if m == "ray" or m.startswith(("ray.", "indexer.ray"))))
"""


@pytest.mark.slow
def test_a_local_build_loads_no_ray_code(tiny_model_dir, tmp_path):
    out = subprocess.run([sys.executable, "-c", LOCAL_BUILD, str(tiny_model_dir),
                          str(tmp_path / "index")], capture_output=True, text=True, cwd=REPO,
                         check=True, timeout=300)
    assert out.stdout.strip().splitlines()[-1] == "[]"
