"""`$BERTSCOPE_HOME`: where BERTScope keeps what it makes outside the repository (converted
models, benchmark caches, training runs); `$BERTSCOPE_DATA`: where it reads data sets from."""

from __future__ import annotations

import os
from pathlib import Path


def bertscope_home(*parts: str, create: bool = True) -> Path:
    """`$BERTSCOPE_HOME` (default `~/.cache/bertscope`) joined with `parts`; created unless
    `create=False`."""
    home = Path(os.environ.get("BERTSCOPE_HOME") or Path.home() / ".cache" / "bertscope")
    path = home.expanduser().joinpath(*parts)
    if create:
        path.mkdir(parents=True, exist_ok=True)
    return path


DATA_ENV = "BERTSCOPE_DATA"
REPO = Path(__file__).resolve().parents[1]


def data_root(explicit: str | Path | None = None) -> Path:
    """The data sets' root: `explicit` if given, else `$BERTSCOPE_DATA`, else `shared/data`
    beside the repository (where this workplace lays them). Recipes, benchmarks, tests and the
    app's server-side corpus paths all resolve against it."""
    if explicit:
        return Path(explicit).expanduser()
    return Path(os.environ.get(DATA_ENV) or REPO.parent / "shared" / "data").expanduser()
