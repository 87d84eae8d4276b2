"""What a sync reports as it goes (issue 51): reading counts files (a first sync read "0 of 1" for
a folder of 14), and encoding counts chunks as a build's bar does (the CLI showed "0chunk ...
2/2 docs" while it encoded both files): the chunks it reports embedded are the chunks the index
holds afterwards."""

from __future__ import annotations

from indexer import ChunkingConfig, SemanticIndex, sync_folder

TEXT = " ".join(f"Oil prices rose in region {n} while output slowed in sector {n}."
                for n in range(40))


def test_reading_counts_files_and_encoding_counts_chunks(tmp_path, tiny_encoder):
    folder = tmp_path / "docs"
    folder.mkdir()
    for n in range(5):
        (folder / f"note-{n}.md").write_text(f"# Note {n}\n\n{TEXT}\n", encoding="utf-8")
    seen = []
    chunking = ChunkingConfig(chunk_tokens=32, overlap=4)
    sync_folder(folder, tmp_path / "idx", model=tiny_encoder, preset="flat", chunking=chunking,
                progress=seen.append)
    reads = [(p.done, p.total) for p in seen if p.stage == "read"]
    assert reads[-1] == (5, 5) and (0, 5) not in reads[1:], reads  # files, not "0 of 1"

    for n in range(3):  # three changed files: a sync that updates
        (folder / f"note-{n}.md").write_text(f"# Note {n}\n\n{TEXT} Changed {n}.\n",
                                             encoding="utf-8")
    seen.clear()
    report = sync_folder(folder, tmp_path / "idx", progress=seen.append)
    assert report.updated == ["note-0.md", "note-1.md", "note-2.md"]
    assert [(p.done, p.total) for p in seen if p.stage == "read"][-1] == (5, 5)
    encoding = [p for p in seen if p.stage == "encode"]
    assert encoding and encoding[-1].chunks > 0
    assert encoding[-1].chunks == encoding[-1].chunks_total
    index = SemanticIndex.open(tmp_path / "idx", encoder=tiny_encoder)
    changed = sum(len(index.chunk_spans(f"note-{n}.md")) for n in range(3))
    assert encoding[-1].chunks == changed  # the bar counts the chunks it embedded
