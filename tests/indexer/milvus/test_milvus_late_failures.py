"""Failures that came late and named nothing: a migration into Milvus of a folder index holding a
document Milvus cannot hold (an id over 1,024 bytes, a chunk text over 65,535, an integer beyond
64 bits written before writes were checked) is refused before anything is written, naming the
document and the limit; a `.db` in a read-only folder says so, not that another process holds it."""

from __future__ import annotations

import pytest

import indexer.validation
from indexer import IndexerError, SemanticIndex, build_index
from indexer.migrate import MigrationError, migrate
from tools.bad_input.small_disk import NoSmallDisk, read_only

pytest.importorskip("milvus_lite")


@pytest.mark.parametrize("doc,said", [
    ({"id": "i" * 10_000, "text": "a long id"}, ["'iiii", "its id is 10,000 bytes", "1,024"]),
    ({"id": "one-token", "text": "a" * 100_001},  # one [UNK] token: one chunk of it all
     ["'one-token'", "chunk text at 0-100,001 is 100,001 bytes", "65,535"]),
    ({"id": "big", "text": "x", "metadata": {"n": 2**70}}, ["'big'", "'n'", "64 bits"]),
])
def test_a_migration_refuses_what_milvus_cannot_hold_before_writing(tmp_path, tiny_encoder,
                                                                    monkeypatch, doc, said):
    monkeypatch.setattr(indexer.validation, "range_problem", lambda value: None)  # an old index
    build_index([{"id": "fine", "text": "a fine document"}, doc], tmp_path / "src",
                model=tiny_encoder, preset="flat")
    monkeypatch.undo()
    with pytest.raises(MigrationError) as info:
        migrate(tmp_path / "src", f"milvus://{tmp_path}/m.db?collection=c")
    assert all(word in str(info.value) for word in said), str(info.value)
    assert "nothing was written" in str(info.value)
    assert not (tmp_path / "m.db").exists()


def test_a_db_in_a_read_only_folder_says_so(tmp_path, tiny_encoder):
    folder = tmp_path / "ro"
    target = f"milvus://{folder}/x.db?collection=c"
    build_index([{"id": "a", "text": "a b"}], target, model=tiny_encoder, preset="flat")
    try:
        with read_only(folder / "x.db" if (folder / "x.db").is_dir() else folder):
            with pytest.raises(IndexerError) as info:
                SemanticIndex.open(target)
    except NoSmallDisk as exc:
        pytest.skip(str(exc))
    assert "is read-only" in str(info.value) and "another process" not in str(info.value)
    assert len(SemanticIndex.open(target)) == 1  # writable again: it opens
