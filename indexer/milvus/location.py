"""`MilvusLocation`: a Milvus index (a collection pair at a `milvus://` address), as the door
(`indexer.stores.locate`) reads it: open it, read its manifest, tell a new version (the
manifest's version and build time, read from the collection's properties), build into it, copy
into it. Its addresses are `milvus://…` and the `NAME.milvus` files holding one."""

from __future__ import annotations

import shutil
import threading
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from ..errors import IndexerError
from ..location import BuildTarget, Built, IndexLocation, Progress, StoredReader
from .address import (
    EXAMPLE,
    POINTER_SUFFIX,
    SCHEME,
    MilvusAddress,
    is_milvus,
    milvus_address,
    parse_address,
)
from .connect import connect
from .index import MilvusIndex
from .manifest import read_manifest
from .pointer import milvus_target
from .schema import index_type

_clients: dict[str, object] = {}  # uri -> a client kept for `stamp` (asked on every request)
_clients_lock = threading.Lock()


class MilvusLocation(IndexLocation):
    kind = "milvus"
    scheme = "milvus:"
    pointer_suffix = POINTER_SUFFIX
    searches_in_process = False  # a search waits on milvus-lite's or a server's process
    flags = {"--milvus-uri": ("URI", "--store milvus: a .db file (milvus-lite, embedded) or "
                                     "http://HOST:19530 (a Milvus server or cluster)"),
             "--collection": ("NAME", "--store milvus: the collection's name")}

    def __init__(self, address: str | MilvusAddress, pointer: Path | None = None) -> None:
        self.address = parse_address(address)
        self.pointer = pointer  # the `NAME.milvus` file that named it, if one did

    @classmethod
    def claim(cls, target, role: str = "index path", within=None) -> MilvusLocation:
        """A `milvus://` address, or a `NAME.milvus` file holding one (read as untrusted
        input: `pointer.read_pointer`, confined to `within`)."""
        if isinstance(target, str) and not target.startswith(SCHEME) \
                and target.lower().startswith(cls.scheme):
            raise IndexerError(f"{role} {target[:80]!r} looks like a Milvus address without its "
                               f"'//': write milvus://…, e.g. {EXAMPLE}")
        address = milvus_target(target, within)
        if address is None:  # a pointer that went away since the door saw it
            raise IndexerError(f"{role} {target}: no Milvus address there ({EXAMPLE})")
        return cls(address, None if is_milvus(target) else Path(target))

    @classmethod
    def from_flags(cls, values: dict[str, str]) -> MilvusLocation:
        return cls(milvus_address(values["--milvus-uri"], values["--collection"]))

    def __str__(self) -> str:
        return str(self.address)

    def open(self, *, encoder=None, verify: bool = True, backend: str | None = None):
        return MilvusIndex.open_address(self.address, encoder=encoder, verify=verify,
                                        backend=backend)

    def exists(self) -> bool:
        if self.address.lite and not Path(self.address.uri).exists():
            return False
        return self._client().has_collection(self.address.collection)

    def local_files(self) -> list[Path]:
        own = [Path(self.address.uri)] if self.address.lite else []
        return own + ([self.pointer] if self.pointer is not None else [])

    def read_manifest(self) -> dict:
        return read_manifest(self._client(), self.address)

    def stamp(self) -> tuple:
        m = self.read_manifest()  # FileNotFoundError: the collection is gone
        return m["built_at"], m["version"], m["updated_at"], m["encoder"]["fingerprint"]

    def _client(self):
        with _clients_lock:
            client = _clients.get(self.address.uri)
            if client is None:
                client = _clients[self.address.uri] = connect(self.address)
            return client

    def check_apart(self, source: IndexLocation, verb: str) -> None:
        if isinstance(source, MilvusLocation) and source.address == self.address:
            raise IndexerError(f"{self} is the source index itself: {verb} into another "
                               "collection")

    def build_target(self, preset: str) -> MilvusBuild:
        index_type(preset, 0)  # a preset Milvus has no index type for fails now
        connect(self.address, create=True).close()  # and a Milvus that does not answer
        return MilvusBuild(self.address)

    def copy_in(self, source, ids: Sequence[str], batch_docs: int, preset: str | None,
                progress: Progress, identity: str,
                verify: Callable[[StoredReader], int]) -> tuple[MilvusIndex, int, int]:
        from .copy_in import copy_into_milvus

        return copy_into_milvus(source, ids, self.address, batch_docs, preset, progress,
                                identity, verify)


class MilvusBuild(BuildTarget):
    """A build into Milvus: its shards in a work folder under `$BERTSCOPE_HOME`, its rows in a
    staging collection pair renamed over the index at the end (`indexer.milvus.build`)."""

    def __init__(self, address: MilvusAddress) -> None:
        from .build import work_folder

        super().__init__(work_folder(address))
        self.address = address
        self.work.parent.mkdir(parents=True, exist_ok=True)

    def ray_staging(self, dim: int, bm25: dict, ray_address: str | None, shards: Path,
                    docs: Sequence = ()):
        from .build import ray_staging

        return ray_staging(self.address, dim, bm25, ray_address, shards, docs)

    def publish(self, built: Built, progress) -> MilvusIndex:
        from .build import publish_milvus

        vectors, staging = built.vectors, built.staging
        if staging is not None and staging.sink is not None:
            vectors = None  # in Milvus already, written by the workers
        elif not isinstance(vectors, np.ndarray):
            vectors = vectors.array()
        return publish_milvus(self.address, built.encoder, built.docs, built.chunks, vectors,
                              built.preset, built.chunking, built.bm25, built.report,
                              built.source, progress, built.build, staging)

    def finished(self) -> None:
        super().finished()
        shutil.rmtree(self.work, ignore_errors=True)  # the work folder: the index is in Milvus
