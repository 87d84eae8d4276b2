"""Where Ray's workers write their chunk rows during a build into Milvus (`--engine ray`): each
worker upserts a shard's rows into the build's staging collection as soon as it has encoded the
shard, over its own client, while the other workers encode.

A Milvus server takes the workers' writes at once. milvus-lite serves a `.db` from the driver's
process, on 127.0.0.1 only, and its engine takes one writer a collection at a time (its gRPC
server's own documentation): on it the workers take turns under a file lock in the build's
work folder, and a build joining a Ray cluster (`--ray-address`, workers on other machines)
leaves the rows to the driver. Upserts by chunk id (a hash of document id and chunk number): a
shard written twice, by a worker Ray retried, is written once."""

from __future__ import annotations

from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from common.locks import FileLock

from ..errors import IndexerError
from .address import MilvusAddress
from .columns import Columns
from .connect import connect_timeout, lite_grpc_options
from .rows import chunk_rows

if TYPE_CHECKING:
    import numpy as np

    from ..chunking import Chunk
    from ..documents import Document

ROWS_A_REQUEST = 512


@dataclass(frozen=True)
class ChunkSink:
    """What a worker needs to write into the staging collection: a URI its own client reaches,
    the collection, (milvus-lite) the lock file writers take turns under, and the collection's
    typed metadata columns (`columns.py`)."""

    uri: str
    collection: str
    lock: str | None
    timeout: float
    columns: Columns | None = None

    def client(self):
        from pymilvus import MilvusClient

        # milvus-lite (the one with a lock) refuses pings from idle clients: see connect.py
        return MilvusClient(uri=self.uri, timeout=self.timeout,
                            grpc_options=lite_grpc_options() if self.lock else {})

    def write(self, client, docs: list[Document], chunks: list[Chunk],
              vectors: np.ndarray) -> int:
        """Upsert `chunks` (of `docs`, with `vectors`) over `client`; returns the rows written."""
        by_id = {d.id: d for d in docs}
        with FileLock(self.lock) if self.lock else nullcontext():
            for at in range(0, len(chunks), ROWS_A_REQUEST):
                end = at + ROWS_A_REQUEST
                client.upsert(self.collection, chunk_rows(by_id, chunks[at:end], vectors[at:end],
                                                          columns=self.columns))
        return len(chunks)


def worker_sink(address: MilvusAddress, collection: str, ray_address: str | None,
                work: Path, columns: Columns | None = None) -> tuple[ChunkSink | None, str]:
    """The sink Ray's workers write `collection` through, and who writes; None where they
    cannot reach it (milvus-lite with workers on other machines): the driver writes the rows
    then. `work`: the build's work folder (milvus-lite's lock file goes there)."""
    if not address.lite:
        return ChunkSink(address.uri, collection, None, connect_timeout(), columns), \
            "Ray's workers, at once"
    if ray_address:
        return None, ("the driver: milvus-lite serves this machine only, and the workers of a "
                      "Ray cluster may run on others")
    from milvus_lite.server_manager import server_manager_instance

    uri = server_manager_instance.start_and_get_uri(address.uri)  # the driver's own server
    if uri is None:
        raise IndexerError(f"milvus-lite could not serve {address.uri} to Ray's workers")
    return ChunkSink(uri, collection, str(work / "milvus-writers.lock"), connect_timeout(),
                     columns), \
        "Ray's workers, one at a time (milvus-lite takes one writer a collection)"
