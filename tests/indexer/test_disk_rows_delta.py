"""An `ivfpq-disk` save writes its re-rank rows' change, not the rows (issue 48): the previous
version's `rerank.npy` is hard-linked (never copied, never written into: the published version
shares its inode) and the rows added since go to `rerank_delta.npz`, folded into a new
`rerank.npy` past `ROWS_SHARE` of it or on `compact`. Vectors and exhaustive search, through
adds, deletes, upserts, saves, reopens and compactions, equal a fresh build's; a save that fails
midway leaves the published version whole; a format 2 reader refuses a version with a rows
delta (format 3), and reads one without (format 2)."""

from __future__ import annotations

import json
import os
import random
import shutil
from pathlib import Path

import numpy as np
import pytest
from delta_oracle import fresh_build, random_changes
from test_damage import _damage
from test_diskivf import _docs

import indexer.diskivf as diskivf
import indexer.folder.store.manifest as manifest_mod
from common import file_checksum
from indexer import CorruptIndexError, SemanticIndex, build_index
from indexer.diskivf import RERANK, RERANK_DELTA

QUERIES = ["cats on the sofa", "stocks fell", "rain tomorrow", "the final", "dogs bark"]
TEXTS = ["cats purr on the sofa", "dogs bark at the postman", "stocks rally", "rain again"]


@pytest.fixture(scope="module")
def _built(tmp_path_factory, tiny_encoder) -> Path:
    out = tmp_path_factory.mktemp("disk-rows") / "index"
    build_index(_docs(400), out, model=tiny_encoder, preset="ivfpq-disk")
    return out


@pytest.fixture
def disk_index(_built, tmp_path) -> Path:
    """A private copy of an `ivfpq-disk` index of 400 one-chunk documents, as built."""
    return Path(shutil.copytree(_built, tmp_path / "disk"))


def new_doc(rng: random.Random, n: int) -> dict:
    return {"id": f"n{n:03d}", "text": f"uniq{n} {rng.choice(TEXTS)} story {n}."}


def vectors_folder(folder: Path) -> Path:
    files = json.loads((folder / "manifest.json").read_text())["files"]
    return folder / files["faiss"]["path"]


def rows_inode(folder: Path) -> int:
    return os.stat(vectors_folder(folder) / RERANK).st_ino


def has_row_delta(folder: Path) -> bool:
    return (vectors_folder(folder) / RERANK_DELTA).is_file()


def assert_as_fresh(index: SemanticIndex, tmp_path: Path, tiny_encoder) -> None:
    """Every live chunk's vector, and exhaustive search (every list, every candidate re-ranked
    exactly), equal a fresh flat build's over the live documents."""
    out = tmp_path / f"fresh-{random.random()}"
    exact = fresh_build(index, out, tiny_encoder, "flat")
    ids = sorted(index.doc_ids())
    assert sorted(exact.doc_ids()) == ids
    mine, want = index.stored(ids), exact.stored(ids)
    assert mine.chunks == want.chunks
    np.testing.assert_allclose(mine.vectors, want.vectors, atol=1e-5)
    nlist = index.vectors.nlist
    for q in QUERIES:
        got = index.search(q, k=10, nprobe=nlist, rerank=1000)
        ref = exact.search(q, k=10)
        assert [h.doc_id for h in got] == [h.doc_id for h in ref], q
        assert [h.score for h in got] == pytest.approx([h.score for h in ref], abs=1e-5)
    shutil.rmtree(out)


def test_a_small_save_links_the_rows_and_never_copies_them(disk_index, tiny_encoder,
                                                          monkeypatch):
    before = rows_inode(disk_index)
    digest = file_checksum(vectors_folder(disk_index) / RERANK)

    def spy(*args):
        raise AssertionError("the re-rank rows were copied")

    monkeypatch.setattr(diskivf, "_copy_rows", spy)
    index = SemanticIndex.open(disk_index, encoder=tiny_encoder)
    index.add([new_doc(random.Random(0), 1)])
    index.save()
    assert has_row_delta(disk_index)
    index.delete(["d0005", "n001"])
    index.save()
    index.upsert([new_doc(random.Random(1), 2), {"id": "d0007", "text": "cats and rain"}])
    index.save()
    assert rows_inode(disk_index) == before and has_row_delta(disk_index)
    # the linked file holds the bytes it was published with
    assert file_checksum(vectors_folder(disk_index) / RERANK) == digest
    again = SemanticIndex.open(disk_index, encoder=tiny_encoder, verify=True)
    hits = again.search("uniq2 cats purr on the sofa story 2.", k=10, nprobe=again.vectors.nlist)
    assert hits[0].doc_id == "n002"
    assert "d0005" not in {h.doc_id for h in again.search("anything", k=100)}
    assert again.stored(["n002"]).vectors.shape[0] >= 1


def test_rows_past_the_share_are_folded_into_a_new_rows_file(disk_index, tmp_path,
                                                             tiny_encoder):
    base_rows = SemanticIndex.open(disk_index).vectors.ntotal  # 400: the share is 32 rows
    index = SemanticIndex.open(disk_index, encoder=tiny_encoder)
    inode, made = rows_inode(disk_index), 0
    while made + 10 <= diskivf.ROWS_SHARE * base_rows:  # 10, 20, 30 rows: linked, delta grows
        index.add([new_doc(random.Random(made + j), made + j) for j in range(10)])
        made += 10
        index.save()
        assert rows_inode(disk_index) == inode and has_row_delta(disk_index)
    index.add([new_doc(random.Random(made + j), made + j) for j in range(10)])
    index.save()  # past the share: one new rows file, no delta
    assert rows_inode(disk_index) != inode and not has_row_delta(disk_index)
    rows = np.load(vectors_folder(disk_index) / RERANK, mmap_mode="r")
    assert len(rows) == base_rows + made + 10
    assert_as_fresh(SemanticIndex.open(disk_index, encoder=tiny_encoder), tmp_path,
                    tiny_encoder)


def test_compact_folds_the_rows_delta(disk_index, tmp_path, tiny_encoder):
    index = SemanticIndex.open(disk_index, encoder=tiny_encoder)
    index.add([new_doc(random.Random(1), 1), new_doc(random.Random(2), 2)])
    index.save()
    inode = rows_inode(disk_index)
    index = SemanticIndex.open(disk_index, encoder=tiny_encoder)
    assert index.compact() == 0  # no tombstones: the delta alone is folded
    index.save()
    assert rows_inode(disk_index) != inode and not has_row_delta(disk_index)
    assert_as_fresh(SemanticIndex.open(disk_index, encoder=tiny_encoder), tmp_path,
                    tiny_encoder)


@pytest.mark.parametrize("seed", [1, 2])
def test_vectors_and_search_equal_a_fresh_build_through_changes(disk_index, tmp_path,
                                                                tiny_encoder, monkeypatch, seed):
    monkeypatch.setattr(diskivf, "ROWS_SHARE", 0.02)  # 8 rows of 400: both ways taken
    rng = random.Random(seed)
    index = SemanticIndex.open(disk_index, encoder=tiny_encoder)
    ids = list(index.doc_ids())
    made, inodes, deltas = 0, [rows_inode(disk_index)], []
    for step in range(8):
        ids, made = random_changes(index, rng, ids, made, new_doc,
                                   ["add", "add", "add", "upsert", "delete", "compact"], 4)
        if step % 3 == 0:  # a writer's unsaved copy searches the same way
            assert_as_fresh(index, tmp_path, tiny_encoder)
        index.save()
        inodes.append(rows_inode(disk_index))
        deltas.append(has_row_delta(disk_index))
        index = SemanticIndex.open(disk_index, encoder=tiny_encoder, verify=True)
        assert sorted(index.doc_ids()) == sorted(ids)
        assert_as_fresh(index, tmp_path, tiny_encoder)
    changes = list(zip(inodes, inodes[1:], strict=False))
    assert any(a == b for a, b in changes), "no save kept the rows file (a delta)"
    assert any(a != b for a, b in changes), "no save wrote a new rows file"
    assert any(deltas) and not all(deltas)


def _published(folder: Path) -> tuple[bytes, list]:
    index = SemanticIndex.open(folder, verify=True)  # every file's checksum
    return (folder / "manifest.json").read_bytes(), [
        [(h.doc_id, h.score) for h in index.search(q, k=5)] for q in QUERIES]


@pytest.mark.parametrize("where", ["delta", "whole"])
def test_a_save_that_fails_midway_leaves_the_published_version_whole(
        disk_index, tiny_encoder, monkeypatch, where):
    index = SemanticIndex.open(disk_index, encoder=tiny_encoder)
    index.add([new_doc(random.Random(1), 1)])
    index.save()  # a version whose rows file the next save links
    before = _published(disk_index)
    index.add([new_doc(random.Random(2), 2)])
    if where == "whole":
        index.compact()

    def half_then_fail(out, at, rows):  # a rows file half written, then the process dies
        out[at : at + len(rows) // 2] = 0.5
        raise OSError("disk full")

    def delta_then_fail(fh, **arrays):
        fh.write(b"PK\3\4 half a zip")
        raise OSError("disk full")

    if where == "whole":
        monkeypatch.setattr(diskivf, "_copy_rows", half_then_fail)
    else:
        monkeypatch.setattr(diskivf.np, "savez", delta_then_fail)
    with pytest.raises(OSError, match="disk full"):
        index.save()
    monkeypatch.undo()
    assert _published(disk_index) == before
    index.discard()
    assert _published(disk_index) == before


def test_a_format_2_reader_refuses_an_index_with_a_rows_delta_only(disk_index, tiny_encoder,
                                                                   monkeypatch):
    index = SemanticIndex.open(disk_index, encoder=tiny_encoder)
    index.add([new_doc(random.Random(1), 1)])
    index.save()
    assert has_row_delta(disk_index)
    assert json.loads((disk_index / "manifest.json").read_text())["format_version"] == 3
    # what BERTScope read before the rows delta: formats 1 and 2
    monkeypatch.setattr(manifest_mod, "FOLDER_FORMAT_VERSION", 2)
    monkeypatch.setattr(manifest_mod, "READABLE_FORMATS", (1, 2))
    with pytest.raises(CorruptIndexError, match="newer BERTScope .*upgrade BERTScope"):
        SemanticIndex.open(disk_index)
    monkeypatch.undo()
    # folded, it is what a format 2 reader reads right: format 2 again, which that reader opens
    index = SemanticIndex.open(disk_index, encoder=tiny_encoder)
    index.compact()
    index.save()
    assert not has_row_delta(disk_index)
    assert json.loads((disk_index / "manifest.json").read_text())["format_version"] == 2
    monkeypatch.setattr(manifest_mod, "FOLDER_FORMAT_VERSION", 2)
    monkeypatch.setattr(manifest_mod, "READABLE_FORMATS", (1, 2))
    assert SemanticIndex.open(disk_index).search("uniq1", k=1)


@pytest.mark.parametrize("how,verify", [("truncated", True), ("truncated", False),
                                        ("missing", True), ("missing", False),
                                        ("flipped", True), ("zeroed", False)])
def test_a_damaged_rows_delta_is_named(disk_index, tmp_path, tiny_encoder, how, verify):
    index = SemanticIndex.open(disk_index, encoder=tiny_encoder)
    index.add([new_doc(random.Random(1), 1)])
    index.save()
    role_path = vectors_folder(disk_index)
    _damage(role_path / RERANK_DELTA, how)
    with pytest.raises(CorruptIndexError, match="rebuild it with") as caught:
        SemanticIndex.open(disk_index, verify=verify)
    assert str(role_path) in str(caught.value)
