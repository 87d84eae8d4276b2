"""Issue 52, class 1: sync touches only documents it read from files, on both stores. An index
that also holds a crawler's rows (their own `source` URL and `sha256`, as an index built before
reserved names were refused holds them) keeps them (they were "removed 2"); a corpus row whose
id is a file's name is not replaced by the file (it was, and counted "added"); the report says
the index holds documents sync leaves alone. A Milvus sync prints no pymilvus warning lines."""

from __future__ import annotations

import pytest

from common.documents import FileDocument
from indexer import ChunkingConfig, SemanticIndex, build_index
from indexer.sync import OTHERS_ID, sync_folder

CHUNKING = ChunkingConfig(chunk_tokens=64, overlap=8)


def _targets(tmp_path, store: str) -> str:
    if store == "milvus":
        pytest.importorskip("milvus_lite")
        return f"milvus://{tmp_path}/o.db?collection=mixed"
    return str(tmp_path / "idx")


@pytest.mark.parametrize("store", ["folder", "milvus"])
def test_sync_leaves_what_it_did_not_read_from_files(tmp_path, tiny_encoder, store, capfd):
    target = _targets(tmp_path, store)
    crawled = [FileDocument(f"page{i}", f"crawled page {i} about rivers", "",
                            {"source": f"https://example.org/{i}", "sha256": "ab" * 32})
               for i in range(2)]  # what a crawler's export carried (now refused at build)
    row = {"id": "notes.md", "text": "a corpus row that happens to share a file's name"}
    build_index([*crawled, row], target, model=tiny_encoder, preset="flat", chunking=CHUNKING)
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "notes.md").write_text("# Notes\n\npenguins huddle in winter\n")
    (folder / "other.md").write_text("# Other\n\nrain is expected tomorrow\n")

    first = sync_folder(folder, target, model=tiny_encoder)
    assert first.summary() == "added 1, updated 0, removed 0, unchanged 0"  # not "removed 2"
    assert first.added == ["other.md"] and dict(first.failed) == {"notes.md": OTHERS_ID}
    assert first.others == ["notes.md", "page0", "page1"]
    assert "not read from files (e.g. 'notes.md'" in first.lines()[-1]
    again = sync_folder(folder, target, model=tiny_encoder)
    assert again.summary() == "added 0, updated 0, removed 0, unchanged 1"

    (folder / "other.md").unlink()
    (folder / "notes.md").unlink()
    (folder / "third.md").write_text("# Third\n\ncats purr on the sofa\n")
    last = sync_folder(folder, target, model=tiny_encoder)
    assert last.summary() == "added 1, updated 0, removed 1, unchanged 0"
    assert last.removed == ["other.md"]
    index = SemanticIndex.open(target, encoder=tiny_encoder)
    try:
        docs = {d.id: d for d in index.all_documents()}
    finally:
        if hasattr(index, "close"):
            index.close()
    assert sorted(docs) == ["notes.md", "page0", "page1", "third.md"]
    assert docs["notes.md"].text == row["text"]  # the row, never the file
    assert docs["page0"].metadata["source"] == "https://example.org/0"
    assert "mvccTs" not in capfd.readouterr().err  # pymilvus's warning on every scan
