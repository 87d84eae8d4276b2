"""A scratch `$BERTSCOPE_HOME` for the backend tests: exports made there are shared by a test
module and thrown away after; converted models (e5) come from the real home, not rebuilt."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from session_home import linked_home


@contextmanager
def scratch_home(root: Path) -> Iterator[Path]:
    linked_home(root, "models")
    previous = os.environ.get("BERTSCOPE_HOME")
    os.environ["BERTSCOPE_HOME"] = str(root)
    try:
        yield root
    finally:
        if previous is None:
            os.environ.pop("BERTSCOPE_HOME", None)
        else:
            os.environ["BERTSCOPE_HOME"] = previous


def module_home(label: str):
    """A module-scoped `home` fixture, one scratch home per module: `home = module_home(LABEL)`."""

    @pytest.fixture(scope="module")
    def home(tmp_path_factory) -> Iterator[Path]:
        with scratch_home(tmp_path_factory.mktemp(label)) as root:
            yield root

    return home
