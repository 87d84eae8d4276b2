"""Chunk rows written into a build's staging collection by processes other than the driver (what
Ray's workers do, `indexer.milvus.sink`), here from threads with clients of their own through
milvus-lite's served URI: what they write publishes as the driver's own rows would, and a
staging short of rows is refused with nothing published."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from common.lexical import Bm25Params
from indexer import SemanticIndex, build_index
from indexer.chunking import ChunkingConfig, chunk_documents
from indexer.documents import Document
from indexer.errors import IndexerError
from indexer.milvus import parse_address, publish_milvus, ray_staging

pytest.importorskip("pymilvus")
pytest.importorskip("milvus_lite")


class Report:  # what publish_milvus reads of a CorpusReport
    rows, duplicates, skipped = 0, 0, []

    def kept_notes(self) -> list[dict]:
        return []


def staged(tmp_path, enc, docs, writers: int, keep=lambda chunks: chunks):
    """A staging pair whose chunk rows `writers` threads wrote through the workers' sink (each
    its own client and a share of the shards), of which `keep` lets through."""
    address = parse_address(f"milvus://{tmp_path}/s.db?collection=s")
    docs = [Document(**d) for d in docs]
    chunks = chunk_documents(enc, docs, ChunkingConfig())
    vectors = enc.encode([c.encoded for c in chunks], prompt="passage")
    staging = ray_staging(address, enc.dim, Bm25Params().to_dict(), None, tmp_path)
    assert staging.sink is not None and staging.sink.uri.startswith("http://127.0.0.1:")

    def write(part: int) -> None:
        client = staging.sink.client()
        for at in range(part * 8, len(chunks), writers * 8):  # shards of 8, dealt out in turn
            kept = keep(chunks[at:at + 8])
            staging.sink.write(client, docs, kept, vectors[at:at + len(kept)])
        client.close()

    threads = [threading.Thread(target=write, args=(i,)) for i in range(writers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return address, docs, chunks, staging


def by_score(hits):
    return sorted((-round(h.score, 4), h.doc_id) for h in hits)


def publish(address, enc, docs, chunks, staging):
    build = {"engine": "ray", "workers": 3, "stages": {}}
    return publish_milvus(address, enc, docs, chunks, None, "flat", ChunkingConfig(),
                          Bm25Params(), Report(), "test", lambda p: None, build, staging)


def test_rows_written_by_other_clients_publish_as_the_folder_build(tmp_path, tiny_encoder,
                                                                    docs, _built_flat):
    address, docs_, chunks, staging = staged(tmp_path, tiny_encoder, docs, writers=3)
    built = publish(address, tiny_encoder, docs_, chunks, staging)
    folder = SemanticIndex.open(_built_flat, encoder=tiny_encoder)
    assert built.counts()["chunks"] == len(chunks) == folder.counts()["chunks"]
    for query in ("stocks fell on Monday", "cats purr"):
        assert [(h.doc_id, round(h.score, 4)) for h in built.search(query, k=10)] == \
            [(h.doc_id, round(h.score, 4)) for h in folder.search(query, k=10)]
        assert by_score(built.search(query, k=200, mode="lexical")) == \
            by_score(folder.search(query, k=200, mode="lexical"))  # every document, ties too
    assert built.manifest["build"]["chunk_rows_written_by"].startswith("Ray's workers")


def test_a_staging_short_of_rows_publishes_nothing(tmp_path, tiny_encoder, docs):
    target = f"milvus://{tmp_path}/s.db?collection=s"
    build_index(docs[:5], target, model=tiny_encoder, preset="flat")
    address, docs_, chunks, staging = staged(tmp_path, tiny_encoder, docs, writers=2,
                                             keep=lambda shard: shard[:-1])  # one lost a shard
    with pytest.raises(IndexerError, match=rf"wrote \d+ chunk rows into Milvus where it made "
                                           rf"{len(chunks)}"):
        publish(address, tiny_encoder, docs_, chunks, staging)
    kept = SemanticIndex.open(target, encoder=tiny_encoder)
    assert kept.stats().documents == 5  # the index before, as it was
    assert not staging.client.has_collection(staging.name)  # the staging pair is dropped


def test_the_sinks_file_lock_keeps_milvus_lite_to_one_writer(tmp_path, tiny_encoder, docs):
    """Each write holds the lock (milvus-lite's engine takes one writer a collection): a second
    taker waits."""
    from common.locks import FileLock

    address, docs_, chunks, staging = staged(tmp_path, tiny_encoder, docs[:3], writers=1)
    held = FileLock(staging.sink.lock, wait=0).acquire()
    try:
        done = threading.Event()
        client = staging.sink.client()
        t = threading.Thread(target=lambda: (staging.sink.write(
            client, docs_, chunks[:1], np.zeros((1, tiny_encoder.dim), np.float32)), done.set()))
        t.start()
        assert not done.wait(1.0), "a write went in while another writer held the lock"
    finally:
        held.release()
    t.join(30)
    assert done.is_set()
