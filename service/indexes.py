"""The indexes under the root, opened once per published version: each request checks the
manifest's file identity (a publish replaces `manifest.json` atomically, so a new version is a
new file) and reopens the index when it changed, whoever published it: this server's own write
or another process's (`python -m indexer add`). No restart, one `stat` per request."""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from indexer import DiskFullError, SemanticIndex
from indexer.disk_full import free_space
from indexer.store import MANIFEST, read_manifest

from .encoders import Encoders
from .errors import ApiError

NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")


@dataclass
class _Open:
    stamp: tuple[int, int, int]
    index: SemanticIndex


class Indexes:
    def __init__(self, root: Path, encoders: Encoders) -> None:
        self.root = Path(root)
        self.encoders = encoders
        self._open: dict[str, _Open] = {}
        self._locks: dict[str, threading.Lock] = {}
        self._guard = threading.Lock()
        self._models: dict[str, object] = {}  # model name -> its encoder, once resolved
        self.opens = 0  # versions opened (a test reads it)

    def names(self) -> list[str]:
        """Folders under the root that hold an index (a manifest), sorted."""
        if not self.root.is_dir():
            return []
        return sorted(p.name for p in self.root.iterdir()
                      if NAME.fullmatch(p.name) and (p / MANIFEST).is_file())

    def folder(self, name: str) -> Path:
        """The folder of index `name`: a 400 for a name that could leave the root, a 404 listing
        the indexes for one that is not there."""
        if not isinstance(name, str) or not NAME.fullmatch(name) or ".." in name:
            raise ApiError(400, f"invalid index name {name[:80]!r}: a name is letters, digits, "
                           "'.', '_' and '-' (at most 128, no '..'), one folder under the root")
        folder = self.root / name
        if not (folder / MANIFEST).is_file():
            names = ", ".join(self.names()) or "none (build one with `python -m indexer build`)"
            raise ApiError(404, f"no index {name!r}; indexes: {names}")
        return folder

    def lock(self, name: str) -> threading.Lock:
        """Held while this process opens a version of `name` (readers do not wait for it)."""
        with self._guard:
            return self._locks.setdefault(name, threading.Lock())

    def write_lock(self, name: str) -> threading.Lock:
        """Held by this process's writes to `name`, one at a time (another process's writes
        meet them in `save()`)."""
        with self._guard:
            return self._locks.setdefault("write:" + name, threading.Lock())

    def get(self, name: str) -> SemanticIndex:
        """The current version of index `name`, opened with the shared encoder of its model."""
        folder = self.folder(name)
        stamp = self._stamp(folder)
        entry = self._open.get(name)
        if entry is not None and entry.stamp == stamp:
            return entry.index
        with self.lock(name):
            entry = self._open.get(name)
            stamp = self._stamp(folder)
            if entry is None or entry.stamp != stamp:
                manifest, _ = read_manifest(folder)
                enc = self.encoders.for_index(manifest, folder)
                index = SemanticIndex.open(folder, encoder=enc)
                self.opens += 1
                entry = _Open(stamp, index)
                self._open[name] = entry
        return entry.index

    def fresh(self, name: str) -> SemanticIndex:
        """A private `SemanticIndex` of the current version, for a write (its changes stay its
        own until `save()`)."""
        folder = self.folder(name)
        manifest, _ = read_manifest(folder)
        return SemanticIndex.open(folder, encoder=self.encoders.for_index(manifest, folder))

    @contextmanager
    def writing(self, name: str) -> Iterator[SemanticIndex]:
        """`fresh(name)` for one write: a write that fails (a full disk, a conflict, a bad
        document) drops its changes and the staging folder holding them."""
        index = self.fresh(name)
        try:
            yield index
        except DiskFullError as exc:
            index.discard()
            raise ApiError(507, f"the disk holding index {name!r} is full "
                                f"({free_space(index.folder)}): nothing of this write was kept "
                                "and the index serves its last version; free some space and "
                                "send the write again") from exc
        except BaseException:
            index.discard()
            raise

    def models(self) -> dict[str, list[str]]:
        """Model name → the indexes that use it, then the bundled models (usable by name)."""
        from encoder import bundled_names

        out: dict[str, list[str]] = {}
        for name in self.names():
            model = self.summary(name).get("model")
            if model:
                out.setdefault(model, []).append(name)
        return out | {m: [] for m in bundled_names() if m not in out}

    def model_encoder(self, model: str):
        """The encoder `/v1/embeddings` runs for `model`: the encoder of the first index whose
        model (or name) it is, so its vectors are that index's; a bundled model no index uses
        loads on `auto`. A 404 lists the models."""
        enc = self._models.get(model)
        if enc is not None:
            return enc
        for name in self.names():
            try:
                manifest, _ = read_manifest(self.root / name)
            except (OSError, ValueError):
                continue
            if model in (manifest["encoder"]["name"], name):
                enc = self.encoders.for_index(manifest, self.root / name)
                break
        else:
            if model not in self.models():
                raise ApiError(404, f"no model {model[:80]!r}; models: "
                                    f"{', '.join(self.models())}", "model_not_found")
            enc = self.encoders.for_model(model)
        self._models[model] = enc
        return enc

    def summary(self, name: str) -> dict:
        """`GET /v1/indexes`'s entry, from the manifest alone (nothing loaded)."""
        folder = self.root / name
        try:
            m, _ = read_manifest(folder)
            return {"name": name, "model": m["encoder"]["name"],
                    "backend": m["encoder"].get("backend", "torch"),
                    "documents": m["counts"]["documents"], "chunks": m["counts"]["chunks"],
                    "preset": m["preset"], "dim": m["dim"], "version": m.get("version")}
        except (OSError, ValueError, KeyError, TypeError) as exc:
            return {"name": name, "error": str(exc)}

    @staticmethod
    def _stamp(folder: Path) -> tuple[int, int, int]:
        try:
            st = os.stat(folder / MANIFEST)
        except FileNotFoundError as exc:
            raise ApiError(404, f"the index {folder.name!r} is gone") from exc
        return st.st_ino, st.st_mtime_ns, st.st_size
