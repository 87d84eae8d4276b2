"""A save's vectors cost the change, not the index (issue 48): a version's FAISS file is a base
hard-linked from the previous version while a small exact delta (`vectors_delta.npz`) holds the
vectors added since, merged into a new base past a share of it or on `compact`. Dense search,
filtered or not, before and after each save, equals a fresh build over the live documents."""

from __future__ import annotations

import json
import os
import random
import shutil
from pathlib import Path

import pytest
from delta_oracle import fresh_build, random_changes, ranked

import indexer.folder.allowed as allowed
import indexer.folder.store as store_pkg
import indexer.folder.store.vectors as vector_files
from indexer import SemanticIndex

QUERIES = ["cats sofa", "dogs bark postman", "story sentence", "stocks rally", "rain"]
TEXTS = ["cats purr", "dogs bark at night", "stocks rally", "rain tomorrow", "a final won"]


def new_doc(rng: random.Random, n: int) -> dict:
    text = f"uniq{n} " + rng.choice(TEXTS) + f" story {n}. " * rng.randint(1, 4)
    return {"id": f"n{n:03d}", "title": f"New {n}", "text": text,
            "metadata": {"topic": n % 5, "group": rng.choice("ab"), "score": n / 7,
                         "flag": n % 2 == 0}}


def dense(index, queries: list[str]) -> list:
    return ranked(index, queries, "dense", 1000, 10, top=lambda h: (h.doc_id, h.score))


def same(mine: list, want: list, tol: float = 1e-5) -> None:
    """The same hits in the same order, but for chunks whose scores tie within `tol` (a chunk
    encoded in another batch may differ by float rounding, and the tie may fall either way):
    each run of tied scores holds the same hits, the last run (cut at k) as many."""
    assert len(mine) == len(want)
    for a, b in zip(mine, want, strict=True):
        assert [x[-1] for x in a] == pytest.approx([x[-1] for x in b], abs=tol)
        runs_a, runs_b = _tied_runs(a, tol), _tied_runs(b, tol)
        assert [len(r) for r in runs_a] == [len(r) for r in runs_b]
        assert runs_a[:-1] == runs_b[:-1]


def _tied_runs(hits: list, tol: float) -> list[set]:
    runs: list[set] = []
    first = None
    for hit in hits:
        if first is None or abs(hit[-1] - first) > tol:
            runs.append(set())
            first = hit[-1]
        runs[-1].add(hit[:-1])
    return runs


def recall(mine: list, want: list) -> float:
    found = sum(len({x[:-1] for x in a} & {x[:-1] for x in b}) for a, b in zip(mine, want,
                                                                                strict=True))
    return found / max(1, sum(len(b) for b in want))


def fresh(index, tmp_path: Path, tiny_encoder, preset: str):
    out = tmp_path / f"fresh-{preset}-{random.random()}"
    return fresh_build(index, out, tiny_encoder, preset), out


def assert_as_exact(index, tmp_path: Path, tiny_encoder, preset: str, queries: list[str],
                    monkeypatch) -> None:
    """Dense search equals a fresh flat build's (hnsw: recall 1.0, or the fresh hnsw build's),
    both through exact scoring of the allowed chunks and through the index's own selector."""
    exact, out = fresh(index, tmp_path, tiny_encoder, "flat")
    for brute in (allowed.BRUTE_MAX, 0):  # 0: filters never take the exact path
        with monkeypatch.context() as m:
            m.setattr(allowed, "BRUTE_MAX", brute)
            mine, want = dense(index, queries), dense(exact, queries)
            if preset == "flat":
                same(mine, want)
            else:
                got = recall(mine, want)
                if got < 1.0:
                    approx, other = fresh(index, tmp_path, tiny_encoder, preset)
                    assert got >= recall(dense(approx, queries), want)
                    shutil.rmtree(other)
    shutil.rmtree(out)


def files(folder: Path) -> dict:
    return json.loads((folder / "manifest.json").read_text())["files"]


def base_inode(folder: Path) -> int:
    return os.stat(folder / files(folder)["faiss"]["path"]).st_ino


@pytest.mark.parametrize("seed,fixture", [  # seeds 3 and 4: the full lane only
    (1, "flat_index"), (2, "hnsw_index"), pytest.param(3, "flat_index", marks=pytest.mark.slow),
    pytest.param(4, "hnsw_index", marks=pytest.mark.slow)])
def test_dense_search_equals_exact_through_adds_deletes_saves_and_merges(
        request, tmp_path, tiny_encoder, seed, fixture, monkeypatch):
    folder = request.getfixturevalue(fixture)
    preset = fixture.split("_")[0]
    rng = random.Random(seed)
    index = SemanticIndex.open(folder, encoder=tiny_encoder)
    ids = list(index.doc_ids())
    made, inodes, deltas = 0, [base_inode(folder)], []
    for step in range(10):
        ids, made = random_changes(index, rng, ids, made, new_doc,
                                   ["add", "add", "upsert", "delete", "delete", "compact"], 2)
        queries = [*QUERIES, f"uniq{made - 1}"]
        if step % 3 == 0:  # a writer's unsaved copy searches the same way
            assert_as_exact(index, tmp_path, tiny_encoder, preset, queries, monkeypatch)
        index.save()
        inodes.append(base_inode(folder))
        deltas.append("faiss_delta" in files(folder))
        index = SemanticIndex.open(folder, encoder=tiny_encoder)  # reopened from its files
        assert sorted(index.doc_ids()) == sorted(ids)
        assert_as_exact(index, tmp_path, tiny_encoder, preset, queries, monkeypatch)
    changes = list(zip(inodes, inodes[1:], strict=False))
    assert any(a == b for a, b in changes), "no save kept the base (a delta)"
    assert any(a != b for a, b in changes), "no save crossed the merge share (a new base)"
    assert any(deltas) and not all(deltas)


@pytest.mark.parametrize("fixture", ["flat_index", "hnsw_index"])
def test_a_small_save_links_the_base_and_never_copies_it(request, tiny_encoder, monkeypatch,
                                                         fixture):
    folder = request.getfixturevalue(fixture)
    before = base_inode(folder)
    copies = []

    def spy(index):
        copies.append(index)
        raise AssertionError("the base vectors were copied")

    for module in (store_pkg, vector_files, getattr(store_pkg, "vector_segments", None)):
        if module is not None and hasattr(module, "owned_copy"):
            monkeypatch.setattr(module, "owned_copy", spy)
    index = SemanticIndex.open(folder, encoder=tiny_encoder)
    index.add([new_doc(random.Random(0), 1)])
    index.save()
    index.delete(["d005", "n001"])
    index.save()
    index.upsert([new_doc(random.Random(1), 2)])
    index.save()
    assert base_inode(folder) == before and not copies
    again = SemanticIndex.open(folder, encoder=tiny_encoder)
    assert "faiss_delta" in files(folder)
    assert "n002" in {h.doc_id for h in again.search("uniq2 story 2", k=60)}
    assert "d005" not in {h.doc_id for h in again.search("anything", k=100)}
    assert again.stored(["n002"]).vectors.shape[0] >= 1


@pytest.mark.parametrize("fixture", ["flat_index", "hnsw_index"])
def test_an_index_without_a_delta_opens_searches_and_takes_writes(request, tmp_path,
                                                                  tiny_encoder, fixture):
    """A build (and every index written before the delta existed) holds one FAISS file."""
    folder = request.getfixturevalue(fixture)
    assert set(files(folder)) == {"faiss", "sqlite", "bm25", "fields"}
    index = SemanticIndex.open(folder, encoder=tiny_encoder)
    exact, _ = fresh(index, tmp_path, tiny_encoder, "flat")
    assert [h.doc_id for h in index.search("cats sofa", k=5)] == \
        [h.doc_id for h in exact.search("cats sofa", k=5)]
    index.add([new_doc(random.Random(0), 7)])
    index.delete(["d001"])
    index.save()
    assert "faiss_delta" in files(folder)
    again = SemanticIndex.open(folder, encoder=tiny_encoder)
    exact, _ = fresh(again, tmp_path, tiny_encoder, "flat")
    for query in QUERIES:
        assert [h.doc_id for h in again.search(query, k=10)] == \
            [h.doc_id for h in exact.search(query, k=10)]
    assert again.compact() >= 0
    again.save()
    assert "faiss_delta" not in files(folder) and again.stats().tombstones == 0


def test_the_mapped_base_is_never_written_through_the_segments(flat_index):
    """The segments pass reads through to the base, never a FAISS write: faiss aborts the whole
    process on a write to a mapped index, where an AttributeError names the way."""
    segments = SemanticIndex.open(flat_index)._version.vectors
    assert segments.metric_type == segments.base.metric_type  # a read passes through
    for write in ("add", "remove_ids", "reset", "merge_from"):
        with pytest.raises(AttributeError, match="writes go to the delta"):
            getattr(segments, write)
