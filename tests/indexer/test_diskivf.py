"""`ivfpq-disk`: lists and re-rank vectors stay on disk (mapped), the index agrees with exact
search, save→reopen gives identical hits, deletes and compaction work, and damage to any of its
files is a `CorruptIndexError` naming the vectors folder."""

from __future__ import annotations

import shutil
from pathlib import Path

import faiss
import numpy as np
import pytest
from test_damage import _damage, _targets

from indexer import CorruptIndexError, SemanticIndex, build_index
from indexer.diskivf import INDEX, LISTS, RERANK, DiskIVFPQ, DiskParams

QUERIES = ["cats on the sofa", "stocks fell", "rain tomorrow", "the final", "dogs bark"]


def _docs(n: int) -> list[dict]:
    words = ["cats", "dogs", "stocks", "rain", "team", "sofa", "postman", "final", "market"]
    rng = np.random.default_rng(3)
    return [{"id": f"d{i:04d}", "text": " ".join(rng.choice(words, 6)) + f" item {i}."}
            for i in range(n)]


@pytest.fixture(scope="module")
def _built_disk(tmp_path_factory, tiny_encoder) -> Path:
    out = tmp_path_factory.mktemp("disk") / "index"
    build_index(_docs(400), out, model=tiny_encoder, preset="ivfpq-disk")
    return out


@pytest.fixture
def disk_index(_built_disk, tmp_path) -> Path:
    return Path(shutil.copytree(_built_disk, tmp_path / "disk"))


def test_lists_and_vectors_stay_on_disk(tmp_path):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((3000, 32)).astype(np.float32)
    faiss.normalize_L2(x)
    index = DiskIVFPQ.create("IVF16,PQ4x8", 32)
    index.train(x)
    index.add_with_ids(x, np.arange(3000))
    index.write(tmp_path / "v")
    assert sorted(p.name for p in (tmp_path / "v").iterdir()) == sorted([INDEX, LISTS, RERANK])
    opened = DiskIVFPQ.read(tmp_path / "v")
    lists = faiss.downcast_InvertedLists(opened.ivf.invlists)
    assert isinstance(lists, faiss.OnDiskInvertedLists) and lists.read_only
    assert isinstance(opened._rows, np.memmap)
    # index.faiss holds only centroids and PQ tables: far less than the vectors
    assert (tmp_path / "v" / INDEX).stat().st_size < x.nbytes / 10
    # lists: a PQ code (4 B) and an id (8 B) per vector
    assert (tmp_path / "v" / LISTS).stat().st_size == 3000 * (4 + 8)
    exhaustive = DiskParams(nprobe=16, rerank=300)
    exact = faiss.IndexFlatIP(32)
    exact.add(x)
    truth_scores, truth = exact.search(x[:20], 10)
    scores, found = opened.search(x[:20], 10, exhaustive)
    assert (found == truth).all() and np.allclose(scores, truth_scores, atol=1e-5)


def test_search_matches_flat_at_exhaustive_knobs(disk_index, flat_twin):
    disk, flat = SemanticIndex.open(disk_index), SemanticIndex.open(flat_twin)
    nlist = disk.vectors.nlist
    for q in QUERIES:
        got = disk.search(q, k=10, nprobe=nlist, rerank=400)
        want = flat.search(q, k=10)
        assert [h.doc_id for h in got] == [h.doc_id for h in want]


@pytest.fixture
def flat_twin(tmp_path, tiny_encoder) -> Path:
    out = tmp_path / "flat"
    build_index(_docs(400), out, model=tiny_encoder, preset="flat")
    return out


def test_save_reopen_identical_hits_and_changes(disk_index, tiny_encoder):
    index = SemanticIndex.open(disk_index, encoder=tiny_encoder)
    assert index.stats().preset == "ivfpq-disk"
    before = [[(h.doc_id, h.score) for h in index.search(q, k=5)] for q in QUERIES]
    again = SemanticIndex.open(disk_index, encoder=tiny_encoder)
    assert [[(h.doc_id, h.score) for h in again.search(q, k=5)] for q in QUERIES] == before

    gone = before[0][0][0]
    assert again.delete([gone]) == 1
    again.add([{"id": "new", "text": "cats on the sofa"}])
    again.save()
    reopened = SemanticIndex.open(disk_index, encoder=tiny_encoder)
    hits = reopened.search("cats on the sofa", k=10, nprobe=reopened.vectors.nlist)
    assert gone not in {h.doc_id for h in hits} and hits[0].doc_id == "new"
    assert reopened.stats().tombstones == 1
    assert reopened.compact() == 1
    reopened.save()
    compacted = SemanticIndex.open(disk_index, encoder=tiny_encoder)
    assert compacted.stats().tombstones == 0 and compacted.vectors.ntotal == 400
    hits = compacted.search("cats on the sofa", k=10, nprobe=compacted.vectors.nlist)
    assert gone not in {h.doc_id for h in hits} and hits[0].doc_id == "new"


@pytest.mark.parametrize("how,verify", [("truncated", True), ("truncated", False),
                                        ("missing", True), ("missing", False),
                                        ("empty", False), ("flipped", True), ("zeroed", True)])
def test_each_damaged_file_is_named(disk_index, tmp_path, how, verify):
    targets = [t for t in _targets(disk_index) if t[0].endswith("vectors.faiss")]
    assert sorted(f.name for _, f in targets) == sorted([INDEX, LISTS, RERANK])
    for n, (role_path, file) in enumerate(targets):
        copy = Path(shutil.copytree(disk_index, tmp_path / str(n)))
        _damage(copy / file.relative_to(disk_index), how)
        with pytest.raises(CorruptIndexError, match="rebuild it with") as caught:
            SemanticIndex.open(copy, verify=verify)
        assert str(copy / role_path) in str(caught.value), (file.name, str(caught.value))
