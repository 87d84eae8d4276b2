"""`engine="ray"` into Milvus: Ray's workers chunk and encode (shards in the work folder) and
write their shards' chunk rows into milvus-lite themselves, through the driver's served URI; the
result is the local build's, and a build that failed at publishing goes on from its shards, the
driver writing the rows of those."""

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


def same_hits(built, folder) -> None:
    for query in ("stocks fell on Monday", "cats purr"):
        assert [(h.doc_id, round(h.score, 5)) for h in built.search(query, k=10)] == \
            [(h.doc_id, round(h.score, 5)) for h in folder.search(query, k=10)]


def test_ray_workers_write_the_rows_and_the_build_equals_the_folder_build(
        tmp_path, tiny_encoder, docs, _built_flat, ray_cpus, monkeypatch):
    monkeypatch.setenv("BERTSCOPE_HOME", str(tmp_path / "home"))
    monkeypatch.setattr(raybuild, "DOCS_PER_SHARD", 10)  # 6 shards for the 2 workers
    built = build_index(docs, f"milvus://{tmp_path}/ray.db?collection=ray", model=tiny_encoder,
                        preset="flat", engine="ray", workers=ray_cpus)
    folder = SemanticIndex.open(_built_flat, encoder=tiny_encoder)
    record = built.manifest["build"]
    assert record["engine"] == "ray" and len(built) == len(folder)
    assert record["chunk_rows_written_by"].startswith("Ray's workers")
    by_process = {int(pid): n for pid, n in record["chunk_rows_by_process"].items()}
    assert sum(by_process.values()) == folder.counts()["chunks"]
    assert os.getpid() not in by_process  # none by the driver
    same_hits(built, folder)
    assert not list((tmp_path / "home").glob("milvus-builds/*"))  # the work folder is gone


def test_a_ray_build_that_failed_at_publishing_goes_on_from_its_shards(
        tmp_path, tiny_encoder, docs, _built_flat, ray_cpus, monkeypatch):
    from indexer.milvus import build as milvus_build

    monkeypatch.setenv("BERTSCOPE_HOME", str(tmp_path / "home"))
    monkeypatch.setattr(raybuild, "DOCS_PER_SHARD", 20)
    target = f"milvus://{tmp_path}/ray.db?collection=ray"
    real = milvus_build.index_chunks

    def fail(*args, **kwargs):
        raise Stop

    monkeypatch.setattr(milvus_build, "index_chunks", fail)
    with pytest.raises(Stop):
        build_index(docs, target, model=tiny_encoder, preset="flat", engine="ray",
                    workers=ray_cpus)
    monkeypatch.setattr(milvus_build, "index_chunks", real)
    built = build_index(docs, target, model=tiny_encoder, preset="flat", engine="ray",
                        workers=ray_cpus)
    record = built.manifest["build"]
    # every shard was encoded by the failed run: the driver wrote all the rows this time
    assert record["chunk_rows_by_process"] == {str(os.getpid()): built.counts()["chunks"]}
    same_hits(built, SemanticIndex.open(_built_flat, encoder=tiny_encoder))
