"""What dead writers leave in an index folder (a staging folder, a temporary manifest, a version
folder never published, encoded shards) is ignored by readers and removed by the next save or
build; a writer that holds the folder too long, or a second build of the same corpus, is a
named refusal that loses nothing."""

from __future__ import annotations

import pytest

import indexer.private
from common import FileLock
from indexer import ConcurrentWriteError, SemanticIndex, build_index


def _names(path) -> set[str]:
    return {p.name for p in path.iterdir()}


def _plant_debris(path) -> set[str]:
    (path / ".staging-0123456789ab").mkdir()
    (path / ".staging-0123456789ab" / "store.sqlite").write_bytes(b"half")
    (path / ".staging-0123456789ab" / ".lock").touch()  # its writer died: nobody holds it
    (path / ".manifest.json.0123456789ab.tmp").write_text('{"half": ')
    (path / "v000099-0123456789ab").mkdir()  # renamed into place, never published
    (path / ".build-0123456789abcdef0123").mkdir()
    (path / ".build-0123456789abcdef0123" / "shard-000000.npy").write_bytes(b"x")
    return {".staging-0123456789ab", ".manifest.json.0123456789ab.tmp", "v000099-0123456789ab",
            ".build-0123456789abcdef0123"}


def test_debris_is_ignored_by_readers_and_swept_by_the_next_save(flat_index, tiny_encoder):
    debris = _plant_debris(flat_index)
    index = SemanticIndex.open(flat_index, encoder=tiny_encoder)  # checksums verified
    assert index.stats().version == 1 and len(index) == 60
    index.delete(["d000"])
    index.save()
    left = _names(flat_index)
    assert left & debris == {".build-0123456789abcdef0123"}  # shards: a build's to reuse
    assert index.stats().version == 100  # above every version the folder held
    build_index([{"id": "x", "text": "one story"}], flat_index, model=tiny_encoder,
                preset="flat")
    assert not _names(flat_index) & debris  # a build that publishes drops stale shards


def test_a_writer_holding_the_folder_too_long_is_a_named_refusal(flat_index, tiny_encoder,
                                                                 monkeypatch):
    index = SemanticIndex.open(flat_index, encoder=tiny_encoder)
    index.delete(["d000"])
    monkeypatch.setattr(indexer.private, "LOCK_WAIT_S", 0)
    with FileLock(flat_index / ".write.lock"):  # another writer, publishing
        with pytest.raises(ConcurrentWriteError, match=f"another writer has been publishing "
                           f"to {flat_index}.*try again"):
            index.save()
    assert SemanticIndex.open(flat_index).stats().version == 1
    index.save()  # the changes were kept: the next try publishes them
    assert len(SemanticIndex.open(flat_index)) == 59


def test_a_second_build_of_the_same_corpus_at_once_is_refused(tmp_path, tiny_encoder, docs):
    out = tmp_path / "index"
    refused = []

    def start_another(p):
        if p.stage == "encode" and not refused:
            with pytest.raises(ConcurrentWriteError, match="another build of the same corpus "
                               f"into {out} is running"):
                build_index(docs, out, model=tiny_encoder, preset="flat")
            refused.append(True)

    build_index(docs, out, model=tiny_encoder, preset="flat", progress=start_another)
    assert refused and len(SemanticIndex.open(out)) == 60
    assert not [n for n in _names(out) if n.startswith((".build-", ".staging-"))]
