"""`training` never imports `indexer` (DESIGN.md: what both need lives below both). Every
training module is imported in a fresh interpreter, the MLM commands and their corpus readers
included, and no `indexer` module may have been loaded."""

from __future__ import annotations

import subprocess
import sys

import pytest

CODE = """
import pkgutil, sys, training
names = [m.name for m in pkgutil.walk_packages(training.__path__, "training.")
         if not m.name.endswith("__main__")]
for name in names:
    __import__(name)
print(len(names), sorted(m for m in sys.modules if m.split(".")[0] == "indexer"))
"""


@pytest.mark.slow
def test_no_training_module_imports_the_indexer():
    out = subprocess.run([sys.executable, "-c", CODE], capture_output=True, text=True,
                         check=True, timeout=600)
    count, loaded = out.stdout.strip().split(" ", 1)
    assert int(count) > 30  # the whole package was walked, training.mlm too
    assert loaded == "[]"
