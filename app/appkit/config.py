"""`AppConfig`: where the app looks for indexes, data and trained models (from the environment)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from common import bertscope_home, data_root

from . import REPO_ROOT


@dataclass(frozen=True)
class AppConfig:
    index_root: Path  # every folder with a manifest.json below it is offered as an index
    data_root: Path  # server-side corpus paths must lie inside it
    runs_root: Path  # trained model folders are found below it
    upload_limit_mb: int  # largest uploaded corpus file
    default_index: str = "bbc-news"  # the index pages open on when present (`make default-index`)
    keys_file: str | None = None  # BERTSCOPE_APP_KEYS as given (None: unset): appkit/reader.py
    principal: str | None = None  # BERTSCOPE_APP_PRINCIPAL as given (None: unset)

    @classmethod
    def from_env(cls) -> AppConfig:
        """`BERTSCOPE_INDEX_ROOT` (default `indexes`), `BERTSCOPE_DATA` (the data root every
        part reads, default `../shared/data`), `BERTSCOPE_RUNS_ROOT` (default
        `$BERTSCOPE_HOME/runs`),
        `BERTSCOPE_UPLOAD_LIMIT_MB` (default 50), `BERTSCOPE_DEFAULT_INDEX` (default `bbc-news`,
        the folder `make default-index` builds, named relative to the index root),
        `BERTSCOPE_APP_KEYS` (a keys file: who reads, `appkit.reader`) and
        `BERTSCOPE_APP_PRINCIPAL` (read as this principal of it). Relative paths are taken
        from the repository."""
        env = os.environ.get
        return cls(
            index_root=_absolute(env("BERTSCOPE_INDEX_ROOT", "indexes")),
            data_root=_absolute(str(data_root())),
            runs_root=_absolute(env("BERTSCOPE_RUNS_ROOT",
                                    str(bertscope_home("runs", create=False)))),
            upload_limit_mb=int(env("BERTSCOPE_UPLOAD_LIMIT_MB", "50")),
            default_index=env("BERTSCOPE_DEFAULT_INDEX", "bbc-news"),
            keys_file=env("BERTSCOPE_APP_KEYS"),
            principal=env("BERTSCOPE_APP_PRINCIPAL"),
        )

    def keys_path(self) -> Path | None:
        """The keys file named by `BERTSCOPE_APP_KEYS` (relative: from the repository), or
        None where it is unset or blank."""
        if self.keys_file is None or not self.keys_file.strip():
            return None
        return _absolute(self.keys_file)


def _absolute(path: str) -> Path:
    p = Path(path).expanduser()
    return p if p.is_absolute() else REPO_ROOT / p
