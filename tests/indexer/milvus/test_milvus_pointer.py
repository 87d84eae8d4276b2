"""`NAME.milvus` pointer files read as untrusted input (issue 52, class 4): bounded, strict UTF-8,
one line, never through a link out of the index root, never a pipe or device; each refusal
names the file and why and never quotes what it holds. Discovery lists every pointer without
reading it, and a bad one fails alone when its location is asked for."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from indexer import CorruptIndexError, find_indexes, locate
from indexer.milvus import milvus_target
from indexer.milvus import pointer as pointer_module
from indexer.milvus.pointer import MAX_POINTER_BYTES, read_pointer

ADDRESS = "milvus:///data/news.db?collection=news"
SECRET = "root:x:0:0:secret-line"


def _refused(path: Path, words: str, within: Path | None = None) -> str:
    with pytest.raises(CorruptIndexError) as caught:
        read_pointer(path, within)
    message = str(caught.value)
    assert words in message and path.name in message, message
    assert SECRET not in message and "secret" not in message, message
    return message


def test_a_good_pointer_is_read_and_a_bom_or_trailing_lines_are_fine(tmp_path):
    p = tmp_path / "news.milvus"
    p.write_bytes(b"\xef\xbb\xbf" + ADDRESS.encode() + b"\r\n\n")
    assert read_pointer(p) == ADDRESS == milvus_target(p, tmp_path)
    inner = tmp_path / "sub" / "real.milvus"
    inner.parent.mkdir()
    inner.write_text(ADDRESS)
    link = tmp_path / "alias.milvus"
    link.symlink_to(inner)  # a link that stays inside the root is followed
    assert read_pointer(link, tmp_path) == ADDRESS


def test_a_link_out_of_the_root_is_refused_unread(tmp_path):
    outside = tmp_path / "elsewhere.txt"
    outside.write_text(SECRET + "\n")
    root = tmp_path / "root"
    root.mkdir()
    (root / "leak.milvus").symlink_to(outside)
    _refused(root / "leak.milvus", "outside its index root", root)
    # named alone (no root): its own folder is the bound
    _refused(root / "leak.milvus", "outside its index root")
    # a folder of the root that is a link out: its pointers are outside too
    away = tmp_path / "away"
    away.mkdir()
    (away / "p.milvus").write_text(ADDRESS)
    (root / "linked").symlink_to(away)
    _refused(root / "linked" / "p.milvus", "outside its index root", root)


def test_empty_binary_huge_and_many_lined_pointers_say_why(tmp_path):
    (tmp_path / "empty.milvus").write_bytes(b"")
    _refused(tmp_path / "empty.milvus", "is empty")
    (tmp_path / "blank.milvus").write_bytes(b" \n\t\n")
    _refused(tmp_path / "blank.milvus", "is empty")
    (tmp_path / "binary.milvus").write_bytes(b"\x00\xff\xfe" + SECRET.encode())
    _refused(tmp_path / "binary.milvus", "is not UTF-8 text")
    (tmp_path / "two.milvus").write_text(f"{ADDRESS}\n{SECRET}\n")
    _refused(tmp_path / "two.milvus", "holds 2 lines")
    (tmp_path / "text.milvus").write_text(SECRET)
    _refused(tmp_path / "text.milvus", "should hold one Milvus address")
    (tmp_path / "ctl.milvus").write_text(ADDRESS.replace("news.db", "n\x1bws.db"))
    _refused(tmp_path / "ctl.milvus", "control characters")
    (tmp_path / "param.milvus").write_text(f"milvus:///{SECRET}.db?collection=c&x=1")
    _refused(tmp_path / "param.milvus", "unknown parameter 'x'")


def test_a_huge_pointer_is_never_read_whole(tmp_path, monkeypatch):
    huge = tmp_path / "huge.milvus"
    with huge.open("wb") as fh:
        fh.truncate(300 * 2**20)  # sparse
    asked: list[int] = []
    real_read = os.read
    monkeypatch.setattr(pointer_module.os, "read",
                        lambda fd, n: asked.append(n) or real_read(fd, n))
    _refused(huge, "314,572,800 bytes")
    assert asked == []  # refused on its size: nothing read
    full = tmp_path / "full.milvus"  # at the bound: read in one bounded call
    full.write_text("milvus://" + "x" * (MAX_POINTER_BYTES - 9))
    _refused(full, "name one collection")
    assert asked == [MAX_POINTER_BYTES + 1]


def test_pipes_devices_folders_and_broken_links_are_not_read(tmp_path):
    os.mkfifo(tmp_path / "pipe.milvus")
    done = threading.Event()

    def refuse() -> None:
        _refused(tmp_path / "pipe.milvus", "a named pipe")
        done.set()

    worker = threading.Thread(target=refuse, daemon=True)
    worker.start()
    worker.join(10)
    assert done.is_set(), "reading a FIFO pointer hung"
    (tmp_path / "dev.milvus").symlink_to("/dev/null")
    _refused(tmp_path / "dev.milvus", "outside its index root")  # /dev is outside too
    _refused(tmp_path / "dev.milvus", "a character device", Path("/"))
    (tmp_path / "gone.milvus").symlink_to(tmp_path / "absent")
    _refused(tmp_path / "gone.milvus", "a link to nothing")
    (tmp_path / "loop.milvus").symlink_to(tmp_path / "loop.milvus")
    _refused(tmp_path / "loop.milvus", "cannot be followed")


def test_discovery_lists_every_pointer_unread_and_a_bad_one_fails_alone(tmp_path, monkeypatch):
    (tmp_path / "good.milvus").write_text(ADDRESS)
    (tmp_path / "bad.milvus").write_bytes(b"\x00" * 10)
    (tmp_path / "gone.milvus").symlink_to(tmp_path / "absent")
    (tmp_path / "新闻.milvus").write_text(ADDRESS)
    monkeypatch.setattr(pointer_module, "read_pointer",
                        lambda *a: pytest.fail("listing read a pointer"))
    found = {f.name: f for f in find_indexes(tmp_path)}
    assert sorted(found) == ["bad", "gone", "good", "新闻"]
    monkeypatch.undo()
    assert str(found["good"].location) == ADDRESS
    with pytest.raises(CorruptIndexError, match="bad.milvus holds control characters"):
        found["bad"].location  # noqa: B018


def test_indexer_info_on_a_binary_pointer_names_the_file(run_cli, tmp_path):
    (tmp_path / "bin.milvus").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    run = run_cli("indexer", "info", str(tmp_path / "bin.milvus"))
    assert run.code == 1, run
    assert "bin.milvus" in run.error and "not UTF-8 text" in run.error, run.error
    assert "codec" not in run.err


def test_locate_passes_the_root_on(tmp_path):
    outside = tmp_path / "o.milvus"
    outside.write_text(ADDRESS)
    root = tmp_path / "root"
    root.mkdir()
    (root / "in.milvus").symlink_to(outside)
    assert str(locate(outside)) == ADDRESS
    with pytest.raises(CorruptIndexError, match="outside its index root"):
        locate(root / "in.milvus", within=root)
