"""Issue 52, class 9: odd folders are walked, and what cannot be read is one line naming it.
A file name that is not UTF-8 failed the whole first sync with no file named; 1,000 nested
folders gave "maximum recursion depth exceeded"; links to pipes and devices were "broken"."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from common.documents import folder_files
from common.documents.folder import NOT_UTF8_NAME


def _not_utf8_file(folder: Path) -> None:
    fd = os.open(os.fsencode(folder) + b"/caf\xe9.md", os.O_CREAT | os.O_WRONLY)
    os.write(fd, b"# Cafe\n\nlatin-1 name\n")
    os.close(fd)


def test_a_name_that_is_not_utf8_is_one_line_and_the_rest_is_read(tmp_path):
    (tmp_path / "good.md").write_text("# Good\n\nfine\n")
    _not_utf8_file(tmp_path)
    (tmp_path / "sub").mkdir()
    _not_utf8_file(tmp_path / "sub")
    walked = folder_files(tmp_path)
    assert [rel for _, rel in walked.files] == ["good.md"]
    assert walked.failures == [("caf\\xe9.md", NOT_UTF8_NAME), ("sub/caf\\xe9.md", NOT_UTF8_NAME)]


def test_a_thousand_nested_folders_are_walked(tmp_path):
    deep = tmp_path
    for _ in range(1000):  # one level at a time: pathlib's mkdir(parents=True) recurses
        deep = deep / "d"
        deep.mkdir()
    (deep / "bottom.md").write_text("# Bottom\n\nfound\n")
    try:
        walked = folder_files(tmp_path)
        assert walked.failures == []
        assert [rel for _, rel in walked.files] == ["d/" * 1000 + "bottom.md"]
    finally:  # bottom up: shutil.rmtree (pytest's clean-up) recurses too
        (deep / "bottom.md").unlink()
        while deep != tmp_path:
            deep.rmdir()
            deep = deep.parent


def test_links_to_pipes_and_devices_are_named_not_called_broken(tmp_path):
    os.mkfifo(tmp_path / "pipe.md")
    (tmp_path / "to-pipe.md").symlink_to(tmp_path / "pipe.md")
    (tmp_path / "null.txt").symlink_to("/dev/null")
    (tmp_path / "gone.md").symlink_to(tmp_path / "absent.md")
    (tmp_path / "fine.md").write_text("# Fine\n\ntext\n")
    walked = folder_files(tmp_path)
    failures = dict(walked.failures)
    assert failures["pipe.md"].startswith("a named pipe, not a regular file")
    assert failures["to-pipe.md"].startswith("a link to a named pipe")
    assert failures["null.txt"].startswith("a link to a device")
    assert failures["gone.md"] == "broken symlink: its target does not exist"
    assert [rel for _, rel in walked.files] == ["fine.md"]


@pytest.mark.parametrize("store", ["folder", "milvus"])
def test_a_first_sync_beside_a_name_that_is_not_utf8_builds(tmp_path, tiny_encoder, store):
    from indexer import ChunkingConfig
    from indexer.sync import sync_folder

    if store == "milvus":
        pytest.importorskip("milvus_lite")
        target = f"milvus://{tmp_path}/w.db?collection=walk"
    else:
        target = str(tmp_path / "idx")
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "good.md").write_text("# Good\n\npenguins huddle\n")
    _not_utf8_file(docs)
    os.mkfifo(docs / "pipe.md")
    report = sync_folder(docs, target, model=tiny_encoder,
                         chunking=ChunkingConfig(chunk_tokens=64, overlap=8))
    assert report.added == ["good.md"]
    assert dict(report.failed) == {"caf\\xe9.md": NOT_UTF8_NAME,
                                   "pipe.md": dict(report.failed)["pipe.md"]}
    assert "named pipe" in dict(report.failed)["pipe.md"]
