"""A save that keeps the FAISS base (a hard link) takes its checksum from the published manifest
instead of reading the base again; a file written anew is read and checksummed as before."""

from __future__ import annotations

import json

from indexer import SemanticIndex
from indexer.folder.store import publishing


def test_a_linked_base_is_not_read_again_and_the_new_version_verifies(
        flat_index, tiny_encoder, monkeypatch):
    read: list[str] = []
    real = publishing.file_checksum

    def spy(path, *args):
        read.append(str(path))
        return real(path, *args)

    monkeypatch.setattr(publishing, "file_checksum", spy)
    before = json.loads((flat_index / "manifest.json").read_text())["files"]["faiss"]
    index = SemanticIndex.open(flat_index, encoder=tiny_encoder)
    index.add([{"id": "new-1", "text": "a document added after the build"}])
    index.save()
    after = json.loads((flat_index / "manifest.json").read_text())["files"]
    assert after["faiss"]["path"] != before["path"]  # a new version, the base linked into it
    assert after["faiss"]["checksum"] == before["checksum"]
    assert not [p for p in read if p.endswith("vectors.faiss")]
    assert [p for p in read if p.endswith("store.sqlite")]  # changed files are read
    reopened = SemanticIndex.open(flat_index, encoder=tiny_encoder, verify=True)
    assert reopened.missing(["new-1"]) == []
