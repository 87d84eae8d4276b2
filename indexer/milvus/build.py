"""Publish a build into Milvus: `indexer.build_index` reads, chunks and encodes as for a folder
(the local engine's resumable shards, or Ray's), in a work folder under `$BERTSCOPE_HOME`
(`work_folder`); here the chunks and vectors become rows of a staging collection pair, which is
renamed over the index at the end. A build that fails leaves the previous collections as they
were, and its encoded shards for a re-run."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import xxhash

from common.home import bertscope_home

from ..build_progress import BuildProgress
from ..index_encoder import encoder_fields
from .address import MilvusAddress
from .connect import connect, write_lock
from .index import MilvusIndex
from .manifest import new_manifest, with_metadata, write_manifest
from .rows import chunk_rows, document_rows
from .schema import create_collections, documents_collection, index_type

STAGING = "_building"
ROWS_A_REQUEST = 512


def work_folder(address: MilvusAddress) -> Path:
    """Where a build into `address` keeps its encoded shards until it publishes (with
    `--ray-address`, Ray's workers write there too: put `$BERTSCOPE_HOME` on shared storage)."""
    tag = xxhash.xxh64_hexdigest(address.uri.encode())[:12]
    return bertscope_home("milvus-builds", f"{address.collection}-{tag}", create=False)


def publish_milvus(address: MilvusAddress, enc, docs, chunks, vectors: np.ndarray, preset: str,
                   chunking, bm25, report, source: str, say, build: dict) -> MilvusIndex:
    """The rows of `chunks` (with `vectors`) and `docs` written as the Milvus index at
    `address`, replacing what was there; `build` (engine, workers, stage seconds) goes into
    its manifest. Returns it opened."""
    client = connect(address, create=True)
    kind = index_type(preset, len(chunks))
    manifest = new_manifest(encoder_fields(enc), enc.dim, kind.spec, chunking.to_dict(),
                            bm25.to_dict(), source, report.rows, report.duplicates,
                            [s.to_dict() for s in report.skipped])
    manifest = with_metadata(manifest, [d.metadata for d in docs])
    staging = address.collection + STAGING
    names = (staging, documents_collection(staging))
    clock = time.perf_counter()
    with write_lock(address):
        for name in names:
            if client.has_collection(name):
                client.drop_collection(name)  # what an earlier failed build left
        create_collections(client, staging, enc.dim, kind, bm25.to_dict(), {})
        try:
            by_id = {d.id: d for d in docs}
            for at in range(0, len(chunks), ROWS_A_REQUEST):  # rows made a batch at a time
                say(BuildProgress("index", at, len(chunks)))
                end = at + ROWS_A_REQUEST
                client.insert(staging, chunk_rows(by_id, chunks[at:end], vectors[at:end]))
            for at in range(0, len(docs), ROWS_A_REQUEST):
                client.insert(names[1], document_rows(docs[at:at + ROWS_A_REQUEST]))
            say(BuildProgress("index", len(chunks), len(chunks)))
            say(BuildProgress("save", 0, 1))
            for name in names:
                client.flush(name)
            stages = {**build["stages"], "insert_s": time.perf_counter() - clock}
            manifest.update(counts={"documents": len(docs), "chunks": len(chunks),
                                    "tombstones": 0},
                            build={**build, "stages": {k: round(v, 3)
                                                       for k, v in stages.items()}})
            write_manifest(client, staging, manifest)
            _replace(client, address.collection, staging)
        except BaseException:
            for name in names:
                if client.has_collection(name):
                    client.drop_collection(name)
            raise
    return MilvusIndex.open(address, encoder=enc)


def _replace(client, name: str, staging: str) -> None:
    """The staging pair renamed to `name` and `name`_documents, dropping the old pair."""
    for old, new in ((staging, name), (documents_collection(staging), documents_collection(name))):
        if client.has_collection(new):
            client.drop_collection(new)
        client.rename_collection(old, new)
        client.load_collection(new)  # searchable at once, by indexes opened before too
