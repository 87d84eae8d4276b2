"""The indexes under the root, of either store (index folders, and `NAME.milvus` files naming
Milvus indexes: `indexer.find_indexes`), opened once per version: each request asks the index's
location for its stamp (a folder: the manifest file's identity, since a publish replaces it
atomically; Milvus: the manifest's version and build) and reopens the index when it changed,
whoever wrote it: this server's own write or another process's (`python -m indexer add`). No
restart; one `stat` (a folder) or one manifest read (Milvus) per request.

Listing the indexes (`/health`, `names()`) reads no pointer file; a pointer is read when its
index is asked for, bounded and confined to the root (`indexer.milvus.pointer`), and a bad one
is that index's error alone (`/v1/indexes`, `/ready` name it and why, never what it holds).
A folder or pointer whose name the service cannot serve (`service.names`) is logged once."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from indexer import (
    DiskFullError,
    FoundIndex,
    IndexerError,
    IndexLocation,
    SemanticIndex,
    find_indexes,
)
from indexer.disk_full import free_space
from indexer.stores import index_named

from .encoders import Encoders
from .errors import ApiError, log
from .names import RULE, servable


@dataclass
class _Open:
    stamp: object
    index: SemanticIndex


class Indexes:
    def __init__(self, root: Path, encoders: Encoders, *, list_in_404: bool = True) -> None:
        """`list_in_404`: whether a 404 lists the indexes (not with `--keys`: a caller may
        read only some)."""
        self.root = Path(root)
        self.encoders = encoders
        self.list_in_404 = list_in_404
        self._open: dict[str, _Open] = {}
        self._locks: dict[str, threading.Lock] = {}
        self._guard = threading.Lock()
        self._models: dict[str, object] = {}  # model name -> its encoder, once resolved
        self.opens = 0  # versions opened (a test reads it)
        self._unserved: set[str] = set()  # names logged as not served (once each)

    def names(self) -> list[str]:
        """The indexes in the root (folders and Milvus pointers), sorted."""
        return sorted(self._found())

    def _found(self) -> dict[str, FoundIndex]:
        """The servable indexes in the root, by name (no pointer file is read)."""
        if not self.root.is_dir():
            return {}
        out = {}
        for found in find_indexes(self.root):
            if servable(found.name):
                out[found.name] = found
            elif found.name not in self._unserved:
                self._unserved.add(found.name)
                log.warning("not serving %s under the index root: %s; rename it to serve it",
                            ascii(found.path.name), RULE)
        return out

    def location(self, name: str) -> IndexLocation:
        """Where index `name` is: a 400 for a name that could leave the root, a 404 listing
        the indexes for one that is not there, a 503 naming what is wrong with a pointer file
        that names no index (never what it holds)."""
        if not servable(name):
            shown = name[:80] if isinstance(name, str) else name
            raise ApiError(400, f"invalid index name {shown!r}: {RULE}; one folder under the "
                                "root")
        found = index_named(self.root, name) or self._found().get(name)
        if found is None:
            if not self.list_in_404:
                raise ApiError(404, f"no index {name!r}; GET /v1/indexes lists those this key "
                                    "may read")
            names = ", ".join(self.names()) or "none (build one with `python -m indexer build`)"
            raise ApiError(404, f"no index {name!r}; indexes: {names}")
        try:
            return found.location
        except IndexerError as exc:  # a PointerError (it names the file): the operator's to fix
            raise ApiError(503, str(exc)) from None

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
        where = self.location(name)
        stamp = self._stamp(name, where)
        entry = self._open.get(name)
        if entry is not None and entry.stamp == stamp:
            return entry.index
        with self.lock(name):
            entry = self._open.get(name)
            stamp = self._stamp(name, where)
            if entry is None or entry.stamp != stamp:
                manifest = where.read_manifest()
                enc = self.encoders.for_index(manifest, str(where))
                index = where.open(encoder=enc)
                self.opens += 1
                entry = _Open(stamp, index)
                self._open[name] = entry
        return entry.index

    def open_now(self, name: str) -> bool:
        """Whether a search of index `name` needs nothing opened or waited for: its current
        version is open here and searches in this process (a Milvus index's waits on Milvus's:
        `IndexLocation.searches_in_process`)."""
        where = self.location(name)
        entry = self._open.get(name)
        return entry is not None and where.searches_in_process and \
            entry.stamp == self._stamp(name, where)

    def fresh(self, name: str) -> SemanticIndex:
        """A private `SemanticIndex` of the current version, for a write (its changes stay its
        own until `save()`)."""
        where = self.location(name)
        return where.open(encoder=self.encoders.for_index(where.read_manifest(), str(where)))

    @contextmanager
    def writing(self, name: str) -> Iterator[SemanticIndex]:
        """`fresh(name)` for one write, closed after it: a write that fails (a full disk, a
        conflict, a bad document) drops its unsaved changes and what holds them."""
        index = self.fresh(name)
        try:
            yield index
        except DiskFullError as exc:
            index.discard()
            raise ApiError(507, f"the disk holding index {name!r} is full "
                                f"({free_space(index.location)}): nothing of this write was "
                                "kept and the index serves its last version; free some space "
                                "and send the write again") from exc
        except BaseException:
            index.discard()
            raise
        finally:
            index.close()

    def models(self) -> dict[str, list[str]]:
        """Model name → the indexes that use it, then the bundled models (usable by name)."""
        from encoder import bundled_names

        out: dict[str, list[str]] = {}
        for name in self.names():
            model = self.summary(name).get("model")
            if model:
                out.setdefault(model, []).append(name)
        return out | {m: [] for m in bundled_names() if m not in out}

    def model_loaded(self, model: str) -> bool:
        """Whether `model_encoder(model)` is at hand (nothing to find or load)."""
        return model in self._models

    def model_encoder(self, model: str):
        """The encoder `/v1/embeddings` runs for `model`: the encoder of the first index whose
        model (or name) it is, so its vectors are that index's; a bundled model no index uses
        loads on `auto`. A 404 lists the models."""
        enc = self._models.get(model)
        if enc is not None:
            return enc
        for name, found in sorted(self._found().items()):
            try:
                where = found.location
                manifest = where.read_manifest()
            except (OSError, ValueError):
                continue
            if model in (manifest["encoder"]["name"], name):
                enc = self.encoders.for_index(manifest, str(where))
                break
        else:
            if model not in self.models():
                raise self.unknown_model(model)
            enc = self.encoders.for_model(model)
        self._models[model] = enc
        return enc

    def unknown_model(self, model: str) -> ApiError:
        """The 404 for a model name that names nothing here."""
        return ApiError(404, f"no model {model[:80]!r}; models: {', '.join(self.models())}",
                        "model_not_found")

    def summary(self, name: str, readers: frozenset[str] | None = None) -> dict:
        """`GET /v1/indexes`'s entry, from the manifest alone (nothing loaded); with `readers`,
        its documents and chunks are those readers may see (the index is opened to count them:
        the manifest's totals would count documents hidden from them)."""
        try:
            where = self.location(name)
            m = where.read_manifest()
            counts = m["counts"] if readers is None else self.get(name).counts(readers=readers)
            return {"name": name, "store": where.kind, "model": m["encoder"]["name"],
                    "backend": m["encoder"].get("backend", "torch"),
                    "documents": counts["documents"], "chunks": counts["chunks"],
                    "preset": m["preset"], "dim": m["dim"], "version": m.get("version")}
        except (OSError, ValueError, KeyError, TypeError, ApiError) as exc:
            return {"name": name, "error": str(exc)}

    @staticmethod
    def _stamp(name: str, where: IndexLocation):
        try:
            return where.stamp()
        except FileNotFoundError as exc:
            raise ApiError(404, f"the index {name!r} is gone") from exc
