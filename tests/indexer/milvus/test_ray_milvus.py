"""`engine="ray"` into Milvus: Ray's workers chunk and encode (shards in the work folder) and
write their shards' chunk rows into milvus-lite themselves, through the driver's served URI; a
build that failed at publishing goes on from its shards, the driver writing the rows of those,
and the result is the local build's. One test, one encode: each Ray build here costs tens of
seconds of the suite."""

from __future__ import annotations

import os

import pytest

from indexer import SemanticIndex, build_index
from indexer.ray import encode as raybuild

pytest.importorskip("pymilvus")
pytest.importorskip("milvus_lite")
pytestmark = pytest.mark.slow  # starts Ray: not the quick lane


class Stop(Exception):
    pass


def test_ray_workers_write_the_rows_and_a_failed_publish_goes_on_from_the_shards(
        tmp_path, tiny_encoder, docs, _built_flat, ray_cpus, monkeypatch):
    from indexer.milvus import build as milvus_build

    monkeypatch.setenv("BERTSCOPE_HOME", str(tmp_path / "home"))
    monkeypatch.setattr(raybuild, "DOCS_PER_SHARD", 15)  # 4 shards for the 2 workers
    target = f"milvus://{tmp_path}/ray.db?collection=ray"
    folder = SemanticIndex.open(_built_flat, encoder=tiny_encoder)
    n_chunks = folder.counts()["chunks"]
    written: dict[int, int] = {}  # the rows each process wrote, as the driver hears of them
    staged: list[int] = []
    record = milvus_build.Staging.record

    def recording(self, pid, rows, seconds):
        written[pid] = written.get(pid, 0) + rows
        record(self, pid, rows, seconds)

    def stop_before_indexing(client, name, *args, **kwargs):
        staged.append(client.query(name, filter="", output_fields=["count(*)"])[0]["count(*)"])
        raise Stop

    real_index_chunks = milvus_build.index_chunks
    monkeypatch.setattr(milvus_build.Staging, "record", recording)
    monkeypatch.setattr(milvus_build, "index_chunks", stop_before_indexing)
    with pytest.raises(Stop):
        build_index(docs, target, model=tiny_encoder, preset="flat", engine="ray",
                    workers=ray_cpus)
    assert staged == [n_chunks]  # every row was in Milvus before the driver wrote any
    assert sum(written.values()) == n_chunks and os.getpid() not in written  # by the workers

    monkeypatch.setattr(milvus_build, "index_chunks", real_index_chunks)
    built = build_index(docs, target, model=tiny_encoder, preset="flat", engine="ray",
                        workers=ray_cpus)
    made = built.manifest["build"]
    # every shard was encoded by the failed run: the driver wrote all the rows this time
    assert made["engine"] == "ray" and made["chunk_rows_by_process"] == {str(os.getpid()):
                                                                          n_chunks}
    assert made["chunk_rows_written_by"] == "the driver: every shard was encoded by an earlier run"
    assert len(built) == len(folder)
    for query in ("stocks fell on Monday", "cats purr"):
        assert [(h.doc_id, round(h.score, 5)) for h in built.search(query, k=10)] == \
            [(h.doc_id, round(h.score, 5)) for h in folder.search(query, k=10)]
    assert not list((tmp_path / "home").glob("milvus-builds/*"))  # the work folder is gone
