"""`engine="ray"` into Milvus: Ray's workers chunk and encode (shards in the work folder), the
driver writes the rows into milvus-lite; the result is the local build's."""

from __future__ import annotations

import pytest

from indexer import SemanticIndex, build_index

pytest.importorskip("pymilvus")
pytest.importorskip("milvus_lite")
pytestmark = pytest.mark.slow  # starts Ray: not the quick lane


def test_ray_build_into_milvus_equals_the_folder_build(tmp_path, tiny_encoder, docs, _built_flat,
                                                       ray_cpus, monkeypatch):
    monkeypatch.setenv("BERTSCOPE_HOME", str(tmp_path / "home"))
    built = build_index(docs, f"milvus://{tmp_path}/ray.db?collection=ray", model=tiny_encoder,
                        preset="flat", engine="ray", workers=ray_cpus)
    folder = SemanticIndex.open(_built_flat, encoder=tiny_encoder)
    assert built.manifest["build"]["engine"] == "ray" and len(built) == len(folder)
    for query in ("stocks fell on Monday", "cats purr"):
        assert [(h.doc_id, round(h.score, 5)) for h in built.search(query, k=10)] == \
            [(h.doc_id, round(h.score, 5)) for h in folder.search(query, k=10)]
    assert not list((tmp_path / "home").glob("milvus-builds/*"))  # the work folder is gone
