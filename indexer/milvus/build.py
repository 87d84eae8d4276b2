"""Build a Milvus index from a corpus: read → chunk → encode (the folder build's steps and
progress) → rows into a staging collection pair → the staging pair renamed over the old index.
A build that fails leaves the previous collections as they were; it does not resume (the folder
build's resumable shards live in a folder, which a server index has none of)."""

from __future__ import annotations

import time
from collections.abc import Callable

from common.lexical import Bm25Params

from ..build_progress import BuildProgress
from ..chunking import ChunkingConfig, chunk_documents
from ..embedding import embed_passages
from ..index_encoder import encoder_fields
from .address import MilvusAddress, parse_address
from .connect import connect, write_lock
from .index import MilvusIndex
from .manifest import new_manifest, with_metadata, write_manifest
from .rows import chunk_rows, document_rows
from .schema import create_collections, documents_collection, index_type

STAGING = "_building"
ROWS_A_REQUEST = 512


def build_milvus(report, source: str, out: str | MilvusAddress, enc, *, preset: str = "auto",
                 chunking: ChunkingConfig | None = None, batch_size: int = 32,
                 progress: Callable[[BuildProgress], None] | None = None,
                 bm25: Bm25Params | None = None) -> MilvusIndex:
    """Write the documents of `report` (a `CorpusReport`), encoded by `enc`, as the Milvus
    index at `out`, replacing what was there; returns it opened. `indexer.build_index` calls
    this for a `milvus://` target after reading the corpus and loading the model."""
    address = parse_address(out)
    say = progress or (lambda p: None)
    chunking = chunking or ChunkingConfig()
    bm25 = bm25 or Bm25Params()
    client = connect(address, create=True)
    docs = report.documents
    clock = time.perf_counter()
    say(BuildProgress("chunk", 0, len(docs)))
    chunks = chunk_documents(enc, docs, chunking)
    say(BuildProgress("chunk", len(docs), len(docs)))
    kind = index_type(preset, len(chunks))
    start = time.perf_counter()

    def encoded(n: int) -> None:
        rate = n / max(time.perf_counter() - start, 1e-9)
        say(BuildProgress("encode", len(docs) * n // len(chunks), len(docs),
                          rate * len(docs) / len(chunks), (len(chunks) - n) / rate,
                          chunks=n, chunks_total=len(chunks)))

    vectors = embed_passages(enc, [c.encoded for c in chunks], batch_size, encoded)
    stages = {"chunk_encode_s": round(time.perf_counter() - clock, 3)}
    manifest = new_manifest(encoder_fields(enc), enc.dim, kind.spec, chunking.to_dict(),
                            bm25.to_dict(), source, report.rows, report.duplicates,
                            [s.to_dict() for s in report.skipped])
    manifest = with_metadata(manifest, [d.metadata for d in docs])
    staging = address.collection + STAGING
    names = (staging, documents_collection(staging))
    with write_lock(address):
        for name in names:
            if client.has_collection(name):
                client.drop_collection(name)  # what an earlier failed build left
        create_collections(client, staging, enc.dim, kind, bm25.to_dict(), {})
        try:
            clock = time.perf_counter()
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
            stages["insert_s"] = round(time.perf_counter() - clock, 3)
            manifest.update(counts={"documents": len(docs), "chunks": len(chunks),
                                    "tombstones": 0},
                            build={"engine": "local", "workers": 1, "stages": stages})
            write_manifest(client, staging, manifest)
            _replace(client, address.collection, staging)
        except BaseException:
            for name in names:
                if client.has_collection(name):
                    client.drop_collection(name)
            raise
    say(BuildProgress("done", len(docs), len(docs)))
    return MilvusIndex.open(address, encoder=enc)


def _replace(client, name: str, staging: str) -> None:
    """The staging pair renamed to `name` and `name`_documents, dropping the old pair."""
    for old, new in ((staging, name), (documents_collection(staging), documents_collection(name))):
        if client.has_collection(new):
            client.drop_collection(new)
        client.rename_collection(old, new)
        client.load_collection(new)  # searchable at once, by indexes opened before too
