"""What the app's Training page and a CLI's usage check read (settings, the loss registry,
recipes, job specs) imports neither torch nor sentence-transformers: they cost seconds of CPU
in every process that imports them, a page's first render included."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
LIGHT = ("training", "training.settings", "training.losses", "training.recipe",
         "training.jobs", "training.pooling", "training.report")


@pytest.mark.parametrize("module", LIGHT)
def test_importing_it_loads_no_torch(module):
    code = (f"import sys, {module}\n"
            "heavy = [m for m in ('torch', 'sentence_transformers', 'transformers') "
            "if m in sys.modules]\n"
            "print(','.join(heavy))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO,
                         env={**os.environ, "PYTHONPATH": str(REPO)}, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "", f"import {module} loaded {out.stdout.strip()}"


def test_the_lazy_names_are_the_modules_own():
    import training
    from training.losses import get_loss
    from training.pooling import POOLING_MODES

    assert training.get_loss is get_loss and training.POOLING_MODES is POOLING_MODES
    assert set(training.__all__) <= set(dir(training))
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        training.nothing  # noqa: B018
