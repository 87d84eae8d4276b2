"""A save's BM25 costs the change, not the index (issue 48): the published segments get a delta
and deletions (`indexer.folder.lexical_delta`), the base files are hard links to the previous
version's, and lexical search, before and after each save, equals that of a fresh build over
the same live documents (ids, ranks, scores), English and Chinese, filtered, across merges."""

from __future__ import annotations

import json
import os
import random
import shutil
from pathlib import Path

import pytest
from delta_oracle import fresh_build, ranked, write_new

from common import file_checksum
from common.bm25_segments import SEGMENTS, SegmentedLexical
from common.lexical import LexicalIndex
from indexer import SemanticIndex
from indexer.folder import db
from indexer.folder.store.version import size_of

ZH = ["猫在沙发上睡觉", "狗在院子里叫", "股票周一下跌", "明天会下雨", "我们赢得了决赛"]
QUERIES = ["cats sofa", "dogs bark postman", "story sentence", "猫 沙发", "股票 下跌", "rain"]


def new_doc(rng: random.Random, n: int) -> dict:
    """A document with a word of its own (`uniq<n>`), English and/or Chinese text."""
    parts = [f"uniq{n} " + rng.choice(["cats purr", "dogs bark at night", "stocks rally"])]
    if rng.random() < 0.5:
        parts.append(rng.choice(ZH))
    return {"id": f"n{n:03d}", "title": f"New {n}", "text": ". ".join(parts) * rng.randint(1, 3),
            "metadata": {"topic": n % 5, "group": rng.choice("ab"), "score": n / 7,
                         "flag": n % 2 == 0}}


def lexical(index, queries: list[str]) -> list:
    return ranked(index, queries, "lexical", 200, 3)


def assert_as_fresh(index, tmp_path: Path, tiny_encoder, queries: list[str]) -> None:
    out = tmp_path / f"fresh{random.random()}"
    fresh = fresh_build(index, out, tiny_encoder, "flat")
    mine, want = lexical(index, queries), lexical(fresh, queries)
    assert len(mine) == len(want)
    for a, b in zip(mine, want, strict=True):
        assert [x[:3] if isinstance(x, tuple) else x for x in a] == \
            [x[:3] if isinstance(x, tuple) else x for x in b]
        for x, y in zip(a, b, strict=True):
            if isinstance(x, tuple):
                assert x[3] == pytest.approx(y[3], rel=1e-5)
    shutil.rmtree(out)


def bm25_dir(folder: Path) -> Path:
    manifest = json.loads((folder / "manifest.json").read_text())
    return folder / manifest["files"]["bm25"]["path"]


def base_tag(folder: Path) -> str:
    return json.loads((bm25_dir(folder) / SEGMENTS).read_text())["base"]


@pytest.mark.parametrize("seed,fixture", [  # seed 3: the full lane only
    (1, "flat_index"), (2, "hnsw_index"), pytest.param(3, "flat_index", marks=pytest.mark.slow)])
def test_searches_equal_a_fresh_build_through_adds_deletes_and_merges(
        request, tmp_path, tiny_encoder, seed, fixture):
    folder = request.getfixturevalue(fixture)
    rng = random.Random(seed)
    index = SemanticIndex.open(folder, encoder=tiny_encoder)
    ids = [d for d in index.doc_ids()]
    made, gone_words, tags = 0, [], [base_tag(folder)]
    for step in range(12):
        for _ in range(rng.randint(1, 3)):
            op = rng.choice(["add", "add", "upsert", "delete", "compact"])
            if op == "compact":  # FAISS only: BM25 keeps its delta
                index.compact()
                continue
            if op == "delete":
                gone = rng.sample(ids, rng.randint(1, 3))
                index.delete(gone)
                ids = [i for i in ids if i not in gone]
                gone_words += [f"uniq{int(g[1:])}" for g in gone if g.startswith("n")]
                continue
            fresh = [new_doc(rng, made + j) for j in range(rng.randint(1, 3))]
            made += len(fresh)
            ids = write_new(index, rng, op, ids, fresh)
        queries = [*QUERIES, f"uniq{made - 1}", f"uniq{made - 1} cats", *gone_words[-2:]]
        if step % 3 == 0:  # a writer's unsaved copy searches the same way
            assert_as_fresh(index, tmp_path, tiny_encoder, queries)
        index.save()
        tags.append(base_tag(folder))
        assert_as_fresh(SemanticIndex.open(folder, encoder=tiny_encoder), tmp_path,
                        tiny_encoder, queries)
    changes = list(zip(tags, tags[1:], strict=False))
    assert any(a == b for a, b in changes), "no save kept the base (a delta)"
    assert any(a != b for a, b in changes), "no save crossed the merge share (a new base)"


def test_a_small_save_links_the_base_and_never_rebuilds(flat_index, tiny_encoder, monkeypatch):
    index = SemanticIndex.open(flat_index, encoder=tiny_encoder)
    before = bm25_dir(flat_index)
    bases = {p.name: p.stat().st_ino for p in before.iterdir() if p.name.startswith("base.")}
    assert len(bases) == 6

    def no_rebuild(*_a, **_k):
        raise AssertionError("BM25 was rebuilt over every chunk")

    monkeypatch.setattr(SegmentedLexical, "from_rows", no_rebuild)
    monkeypatch.setattr(LexicalIndex, "from_rows", no_rebuild)
    index.add([new_doc(random.Random(0), 1)])
    index.save()
    index.delete(["d005"])
    index.save()
    after = bm25_dir(flat_index)
    assert after != before
    for name, inode in bases.items():  # the same files, linked from version to version
        assert os.stat(after / name).st_ino == inode, name
    hits = SemanticIndex.open(flat_index).search("uniq1", k=5, mode="lexical")
    assert [h.doc_id for h in hits] == ["n001"]


def as_bm25s(folder: Path) -> None:
    """Rewrite the current version's BM25 folder in bm25s's format, the manifest entry with it,
    and the manifest's format to 1: an index written before segments."""
    target = bm25_dir(folder)
    conn = db.open_readonly(next(target.parent.glob("store.sqlite")))
    old = LexicalIndex.from_rows(db.iter_lexical_rows(conn))
    conn.close()
    shutil.rmtree(target)
    old.save(target)
    manifest = json.loads((folder / "manifest.json").read_text())
    entry = manifest["files"]["bm25"]
    entry.update(bytes=size_of(target), checksum=file_checksum(target, entry["algorithm"]))
    manifest["format_version"] = 1
    (folder / "manifest.json").write_text(json.dumps(manifest))


def test_an_index_in_bm25s_format_searches_the_same_and_converts_on_save(
        flat_index, tmp_path, tiny_encoder):
    want = lexical(SemanticIndex.open(flat_index), QUERIES)
    as_bm25s(flat_index)
    old = SemanticIndex.open(flat_index, encoder=tiny_encoder)
    assert type(old._version.lexical) is LexicalIndex
    assert lexical(old, QUERIES) == want
    old.add([new_doc(random.Random(1), 7)])
    old.save()
    assert (bm25_dir(flat_index) / SEGMENTS).exists()
    # older BERTScope reads format 1 only: it must refuse this one, not miss its segments
    assert json.loads((flat_index / "manifest.json").read_text())["format_version"] == 2
    assert_as_fresh(SemanticIndex.open(flat_index, encoder=tiny_encoder), tmp_path,
                    tiny_encoder, [*QUERIES, "uniq7"])


def test_a_writer_that_rebases_applies_its_change_to_the_newer_segments(
        flat_index, tmp_path, tiny_encoder):
    first = SemanticIndex.open(flat_index, encoder=tiny_encoder)
    second = SemanticIndex.open(flat_index, encoder=tiny_encoder)
    rng = random.Random(5)
    first.add([new_doc(rng, 1)])
    first.delete(["d001"])
    second.add([new_doc(rng, 2)])
    second.upsert([{**new_doc(rng, 3), "id": "d002"}])
    first.save()
    tag = base_tag(flat_index)
    second.save()  # published over `first`'s version: its change made again on that one
    assert base_tag(flat_index) == tag
    assert_as_fresh(SemanticIndex.open(flat_index, encoder=tiny_encoder), tmp_path,
                    tiny_encoder, [*QUERIES, "uniq1", "uniq2", "uniq3"])
