"""`rebuild_index` with a Milvus index on either side (milvus-lite in tmp_path): the same
documents, re-encoded by another model, into a folder or into Milvus."""

from __future__ import annotations

import pytest

from indexer import IndexerError, MilvusIndex, SemanticIndex, build_index, rebuild_index

pytest.importorskip("pymilvus")
pytest.importorskip("milvus_lite")


@pytest.fixture(scope="module")
def other(other_model_dir):
    from encoder import load_encoder

    return load_encoder(other_model_dir)


def test_rebuild_from_milvus_into_a_folder_and_back(tmp_path, tiny_encoder, other, docs):
    src = f"milvus://{tmp_path}/r.db?collection=src"
    built = build_index(docs[:15], src, model=tiny_encoder, preset="flat")
    built.upsert([{"id": 'q"uote', "text": "an id a string key would page wrongly"}])
    folder = rebuild_index(src, tmp_path / "folder", model=other)
    assert isinstance(folder, SemanticIndex) and len(folder) == 16
    assert folder.stats().fingerprint == other.fingerprint != built.stats().fingerprint
    assert folder.documents([d["id"] for d in docs[:15]]) == built.documents(
        [d["id"] for d in docs[:15]])
    assert folder.document('q"uote') == built.document('q"uote')
    back = rebuild_index(tmp_path / "folder", f"milvus://{tmp_path}/r.db?collection=back",
                         model=tiny_encoder)
    assert isinstance(back, MilvusIndex) and back.doc_ids() == built.doc_ids()
    query = "stocks fell on Monday"
    assert [h.doc_id for h in back.search(query, k=5)] == \
        [h.doc_id for h in built.search(query, k=5)]
    with pytest.raises(IndexerError, match="source index itself"):
        rebuild_index(src, src, model=other)
