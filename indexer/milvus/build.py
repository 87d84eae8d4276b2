"""Publish a build into Milvus: `indexer.build_index` reads, chunks and encodes as for a folder
(the local engine's resumable shards, or Ray's), in a work folder under `$BERTSCOPE_HOME`
(`work_folder`); here the chunks and vectors become rows of a staging collection pair, which is
renamed over the index at the end. On Ray the pair is opened before encoding and the workers
write their shards' chunk rows into it themselves (`Staging.sink`, `indexer.milvus.sink`). A
build that fails leaves the previous collections as they were, and its encoded shards for a
re-run."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import xxhash

from common.home import bertscope_home
from common.lexical_many import lexical_texts

from ..build_progress import BuildProgress
from ..errors import IndexerError
from ..index_encoder import encoder_fields
from . import columns as filter_columns
from .address import MilvusAddress
from .columns import Columns
from .connect import connect, write_lock
from .index import MilvusIndex
from .manifest import new_manifest, with_metadata, write_manifest
from .rows import chunk_rows, document_rows, token_encoding
from .schema import (
    create_collections,
    documents_collection,
    index_chunks,
    index_type,
    replace_collections,
)
from .sink import ROWS_A_REQUEST, ChunkSink, worker_sink

STAGING = "_building"


def work_folder(address: MilvusAddress) -> Path:
    """Where a build into `address` keeps its encoded shards until it publishes (with
    `--ray-address`, Ray's workers write there too: put `$BERTSCOPE_HOME` on shared storage)."""
    tag = xxhash.xxh64_hexdigest(address.uri.encode())[:12]
    return bertscope_home("milvus-builds", f"{address.collection}-{tag}", create=False)


@dataclass
class Staging:
    """A build's staging pair, opened before encoding: its chunk collection bare (indexed at
    publish, when the chunk count picks the index type). `sink`: where Ray's workers write the
    chunk rows as they encode (`indexer.milvus.sink`); None: the driver writes them at publish.
    `record` counts the rows each writing process wrote, for the manifest. `columns`: the
    typed metadata columns it was created with (`columns.py`)."""

    address: MilvusAddress
    client: Any
    name: str
    columns: Columns = field(default_factory=dict)
    sink: ChunkSink | None = None
    writers: str = "the driver"
    rows_by_pid: dict[int, int] = field(default_factory=dict)
    insert_s: float = 0.0

    def record(self, pid: int, rows: int, seconds: float) -> None:
        self.rows_by_pid[pid] = self.rows_by_pid.get(pid, 0) + rows
        self.insert_s += seconds

    def write_here(self, docs, chunks, vectors: np.ndarray) -> None:
        """Rows of shards encoded before this run (a resumed build), written by the driver."""
        clock = time.perf_counter()
        rows = self.sink.write(self.client, docs, chunks, vectors)
        self.record(os.getpid(), rows, time.perf_counter() - clock)

    def written_by(self) -> str:
        """Who wrote the chunk rows, for the manifest."""
        if self.sink is None or not self.rows_by_pid:
            return self.writers
        if set(self.rows_by_pid) == {os.getpid()}:
            return "the driver: every shard was encoded by an earlier run"
        if os.getpid() in self.rows_by_pid:
            return f"{self.writers}; the driver wrote those of shards an earlier run encoded"
        return self.writers

    def drop(self) -> None:
        for name in (self.name, documents_collection(self.name)):
            if self.client.has_collection(name):
                self.client.drop_collection(name)


def build_columns(docs) -> Columns:
    """The typed metadata columns of a build of `docs` (`columns.py`): one per field of one
    kind among them whose every value a column holds."""
    metadatas = [d.metadata for d in docs]
    planned = filter_columns.plan(with_metadata({}, metadatas)["metadata_fields"])
    return filter_columns.drop(planned, filter_columns.partial(planned, metadatas))


def open_staging(address: MilvusAddress, dim: int, bm25: dict,
                 columns: Columns | None = None) -> Staging:
    """The staging pair of a build into `address`, created empty (what an earlier failed build
    left is dropped), with the typed metadata `columns`."""
    staging = Staging(address, connect(address, create=True), address.collection + STAGING,
                      columns=dict(columns or {}))
    with write_lock(address):
        staging.drop()
        create_collections(staging.client, staging.name, dim, None, bm25, {}, staging.columns,
                           lite=address.lite)
    return staging


def ray_staging(address: MilvusAddress, dim: int, bm25: dict, ray_address: str | None,
                work: Path, docs=()) -> Staging:
    """The staging pair of a build of `docs` on Ray, with the sink its workers write through
    (where they can reach it: `worker_sink`)."""
    staging = open_staging(address, dim, bm25, build_columns(docs))
    staging.sink, staging.writers = worker_sink(address, staging.name, ray_address, work,
                                                staging.columns)
    return staging


def publish_milvus(address: MilvusAddress, enc, docs, chunks, vectors: np.ndarray | None,
                   preset: str, chunking, bm25, report, source: str, say, build: dict,
                   staging: Staging | None = None) -> MilvusIndex:
    """The rows of `chunks` (with `vectors`) and `docs` written as the Milvus index at
    `address`, replacing what was there; `build` (engine, workers, stage seconds) goes into
    its manifest. With a `staging` whose workers wrote the chunk rows, `vectors` may be None.
    The chunk rows are counted before publishing. Returns it opened."""
    kind = index_type(preset, len(chunks))
    manifest = new_manifest(encoder_fields(enc), enc.dim, kind.spec, chunking.to_dict(),
                            bm25.to_dict(), source, report.rows, report.duplicates,
                            [s.to_dict() for s in report.skipped], report.kept_notes())
    manifest = with_metadata(manifest, [d.metadata for d in docs])
    staging = staging or open_staging(address, enc.dim, bm25.to_dict(), build_columns(docs))
    client, name = staging.client, staging.name
    manifest["filter_columns"] = staging.columns
    names = (name, documents_collection(name))
    clock = time.perf_counter()
    with write_lock(address):
        try:
            if staging.sink is None:
                by_id = {d.id: d for d in docs}
                lex = lexical_texts([c.encoded for c in chunks], lambda done, total: say(
                    BuildProgress("tokenize", done, total)))  # on every CPU
                encoding = token_encoding(manifest)
                for at in range(0, len(chunks), ROWS_A_REQUEST):  # rows made a batch at a time
                    say(BuildProgress("index", at, len(chunks)))
                    end = at + ROWS_A_REQUEST
                    client.insert(name, chunk_rows(by_id, chunks[at:end], vectors[at:end],
                                                   encoding, lex[at:end], staging.columns))
                del lex
                staging.record(os.getpid(), len(chunks), time.perf_counter() - clock)
            for at in range(0, len(docs), ROWS_A_REQUEST):
                client.insert(names[1], document_rows(docs[at:at + ROWS_A_REQUEST]))
            say(BuildProgress("index", len(chunks), len(chunks)))
            say(BuildProgress("save", 0, 1))
            for each in names:
                client.flush(each)
            index_chunks(client, name, kind, bm25.to_dict(), staging.columns,
                         lite=address.lite)
            _check_count(client, name, len(chunks), staging.writers)
            stages = {**build["stages"], "insert_s": time.perf_counter() - clock}
            if staging.sink is not None:
                stages["worker_insert_s"] = staging.insert_s
            manifest.update(counts={"documents": len(docs), "chunks": len(chunks),
                                    "tombstones": 0},
                            build={**build, "stages": {k: round(v, 3)
                                                       for k, v in stages.items()},
                                   "chunk_rows_written_by": staging.written_by(),
                                   "chunk_rows_by_process": {
                                       str(pid): n for pid, n in staging.rows_by_pid.items()}})
            write_manifest(client, name, manifest)
            replace_collections(client, name, address.collection)
        except BaseException:
            staging.drop()
            raise
    return MilvusIndex.open_address(address, encoder=enc)


def _check_count(client, name: str, expected: int, writers: str) -> None:
    got = client.query(name, filter="", output_fields=["count(*)"])[0]["count(*)"]
    if got != expected:
        raise IndexerError(f"the build wrote {got:,} chunk rows into Milvus where it made "
                           f"{expected:,} (written by {writers}); nothing was published: run "
                           "the same build again (it goes on from the encoded shards)")
