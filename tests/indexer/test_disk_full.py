"""A full disk during a build, an add, a delete or a save is one sentence that says so, where,
and that nothing was lost (SQLite's OperationalError and FAISS's short-write message were all a
user saw); on a real full disk (a small tmpfs) the index stays as it was."""

from __future__ import annotations

import errno
import sqlite3

import pytest

from indexer import DiskFullError, SemanticIndex, build_index
from indexer.disk_full import disk_full_said, is_disk_full
from indexer.folder import db
from tools.bad_input.small_disk import NoSmallDisk, fill, small_disk

DOCS = [{"id": f"d{i}", "text": f"document number {i} about cats and the weather"}
        for i in range(6)]


@pytest.mark.parametrize("exc", [
    OSError(errno.ENOSPC, "No space left on device"),
    sqlite3.OperationalError("database or disk is full"),
    RuntimeError("Error in faiss::write_index: 76800 requested and 76768 written"),
    RuntimeError("Error: 'ret == (size * 4)' failed: write error in /d/.staging-1/vectors.faiss:"
                 " 0 != 76800 (No space left on device)"),
])
def test_every_way_a_library_says_disk_full_becomes_one_sentence(tmp_path, exc):
    assert is_disk_full(exc)
    with pytest.raises(DiskFullError) as caught, \
            disk_full_said(tmp_path / "idx", "adding documents", "the index is as it was"):
        raise exc
    message = str(caught.value)
    assert f"the disk holding {tmp_path / 'idx'} is full" in message
    assert "free" in message and "nothing was lost" in message and "\n" not in message


def test_other_errors_pass_through(tmp_path):
    for exc in (OSError(errno.EACCES, "Permission denied"), sqlite3.OperationalError("locked"),
                RuntimeError("something else")):
        assert not is_disk_full(exc)
        with pytest.raises(type(exc)), disk_full_said(tmp_path, "x", "y"):
            raise exc


def test_an_add_on_a_full_disk_says_so_in_the_cli(flat_index, tiny_encoder, monkeypatch,
                                                  run_cli, tmp_path):
    def full(*args, **kwargs):
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(db, "insert_documents", full)
    corpus = tmp_path / "more.jsonl"
    corpus.write_text('{"id": "new-1", "text": "a new document about dogs"}\n')
    result = run_cli("indexer", "add", flat_index, "--corpus", corpus)
    assert result.code != 0
    assert "is full" in result.err and "nothing was lost" in result.err
    assert "Traceback" not in result.err and "OperationalError" not in result.err


@pytest.fixture
def disk(tmp_path):
    """A 3 MiB tmpfs (root only): a real disk that fills up."""
    try:
        with small_disk(tmp_path / "disk") as mounted:
            yield mounted
    except NoSmallDisk as exc:
        pytest.skip(str(exc))


def test_a_real_full_disk_loses_nothing(disk, tiny_encoder):
    folder = disk / "idx"
    build_index(DOCS, folder, model=tiny_encoder, preset="flat")
    filler = fill(disk)  # what is left, but a few KiB
    index = SemanticIndex.open(folder, encoder=tiny_encoder)
    more = [{"id": f"n{i}", "text": "new text " * 200} for i in range(200)]
    with pytest.raises(DiskFullError, match="is full.*nothing was lost"):
        index.add(more)
        index.save()
    filler.unlink()
    again = SemanticIndex.open(folder, encoder=tiny_encoder)
    assert again.stats().documents == len(DOCS)  # the published version, whole
