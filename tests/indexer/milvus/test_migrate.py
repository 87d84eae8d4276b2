"""`migrate`: a folder index copied into Milvus (milvus-lite, the real engine) and back loses
nothing (documents, chunk spans, BM25 tokens, vectors bit for bit, the manifest's facts, exact
search results), and a migration that dies part-way is finished by running it again."""

from __future__ import annotations

import json

import numpy as np
import pytest

from indexer import SemanticIndex, build_index
from indexer.migrate import MigrationReport, migrate

pytest.importorskip("milvus_lite")

LONG = " ".join(f"Sentence {i} of a document that won't fit one Milvus text field." for i in
                range(400))  # ~26,000 characters: two document parts in Milvus


class Crash(Exception):
    pass


def docs() -> list[dict]:
    out = [{"id": f"d{i:02d}", "title": f"Story {i}",
            "text": f"{['cats purr', 'dogs bark', 'stocks fell'][i % 3]} in story {i}; "
                    f"it's {i} o'clock.",
            "metadata": {"topic": i % 3, "group": "a" if i < 12 else "b", "score": i / 4,
                         "flag": i % 2 == 0, 'odd "key"': "x\\y"}} for i in range(24)]
    out.append({"id": "long", "title": "", "text": LONG, "metadata": {"topic": 9}})
    out.append({"id": "é字 'quoted\"", "title": "苹果", "text": "苹果发布会 apple launch",
                "metadata": {}})
    return out


@pytest.fixture(scope="module")
def folder(tmp_path_factory, tiny_encoder):
    out = tmp_path_factory.mktemp("migrate") / "src"
    build_index(docs(), out, model=tiny_encoder, preset="flat")
    return out


def content(target) -> dict:
    """Everything a migration must carry, read through the public API of either store."""
    index = SemanticIndex.open(target)
    batch = index.stored(sorted(index.doc_ids()))
    m = index.manifest
    facts = {k: m[k] for k in ("encoder", "dim", "chunking", "bm25", "preset", "source",
                               "metadata_fields")}
    counts = index.counts()
    return {"docs": [(d.id, d.title, d.text, json.dumps(d.metadata, sort_keys=True))
                     for d in batch.docs],
            "chunks": batch.chunks, "vectors": batch.vectors, "facts": facts,
            "counts": {k: counts[k] for k in ("documents", "chunks")}}


def test_folder_to_milvus_to_folder_is_lossless(folder, tmp_path, tiny_encoder):
    address = f"milvus://{tmp_path / 'm.db'}?collection=scifact"
    seen = []
    there = migrate(folder, address, batch_docs=7, progress=lambda d, n: seen.append((d, n)))
    assert isinstance(there, MigrationReport) and there.documents == 26 and there.resumed == 0
    assert there.verified == 26 and seen[-1] == (26, 26) and len(seen) == 5  # 0, then 4 batches
    back = migrate(address, tmp_path / "back", batch_docs=5)
    assert back.documents == 26 and back.chunks == there.chunks

    want, middle, got = content(folder), content(address), content(tmp_path / "back")
    for have in (middle, got):
        assert have["docs"] == want["docs"] and have["counts"] == want["counts"]
        assert have["facts"] == want["facts"]
        assert np.array_equal(have["vectors"], want["vectors"])  # bit for bit, not re-encoded
    assert got["chunks"] == want["chunks"]  # spans and BM25 tokens (apostrophes included)
    assert any("'" in c[4] for c in want["chunks"])

    queries = ["cats purr in story", "stocks", "苹果", "o'clock"]
    indexes = [SemanticIndex.open(t, encoder=tiny_encoder)
               for t in (folder, address, tmp_path / "back")]
    for q in queries:
        dense = [[(h.doc_id, h.chunk_id if i != 1 else 0, h.start) for h in
                  ix.search(q, k=10)] for i, ix in enumerate(indexes)]
        assert [d[:1] + d[2:] for d in dense[0]] == [d[:1] + d[2:] for d in dense[1]]
        assert dense[0] == dense[2]  # exact search: identical top 10
        lexical = [[h.doc_id for h in ix.search(q, k=10, mode="lexical")] for ix in indexes]
        assert lexical[0] == lexical[2]  # (BM25 in Milvus is test_milvus_parity's subject)


def test_a_migration_into_milvus_that_dies_is_finished_by_a_rerun(folder, tmp_path):
    address = f"milvus://{tmp_path / 'm.db'}?collection=idx"

    def dies(done, total):
        if done >= 14:
            raise Crash

    with pytest.raises(Crash):
        migrate(folder, address, batch_docs=7, progress=dies)
    with pytest.raises(FileNotFoundError):  # nothing published: the target does not exist yet
        SemanticIndex.open(address)
    report = migrate(folder, address, batch_docs=7)
    assert report.resumed == 14 and report.documents == 26
    assert content(address)["docs"] == content(folder)["docs"]


def test_a_migration_into_a_folder_that_dies_is_finished_by_a_rerun(folder, tmp_path):
    address = f"milvus://{tmp_path / 'm.db'}?collection=idx"
    migrate(folder, address)

    def dies(done, total):
        if done >= 10:
            raise Crash

    out = tmp_path / "back"
    with pytest.raises(Crash):
        migrate(address, out, batch_docs=5, progress=dies)
    assert not (out / "manifest.json").exists()
    report = migrate(address, out, batch_docs=5)
    assert report.resumed == 10
    assert not list(out.glob(".build-*"))  # the parts are gone once published
    assert content(out)["docs"] == content(folder)["docs"]


def test_a_rerun_after_the_source_changed_starts_over(folder, tmp_path, tiny_encoder):
    src = tmp_path / "src"
    build_index(docs()[:10], src, model=tiny_encoder, preset="flat")
    address = f"milvus://{tmp_path / 'm.db'}?collection=idx"
    with pytest.raises(Crash):
        migrate(src, address, batch_docs=3, progress=lambda d, n: d >= 3 and _raise())
    index = SemanticIndex.open(src, encoder=tiny_encoder)
    index.delete(["d00"])
    index.save()
    report = migrate(src, address, batch_docs=3)
    assert report.resumed == 0 and report.documents == 9
    assert [d[0] for d in content(address)["docs"]] == [f"d{i:02d}" for i in range(1, 10)]


def _raise():
    raise Crash


def test_migrate_copies_within_one_store_too_but_never_onto_its_source(folder, tmp_path):
    """A folder to a folder and a collection to another collection are copies like any other;
    a copy onto the source itself is refused before anything is written."""
    from indexer import IndexerError

    copy = tmp_path / "copy"
    assert migrate(folder, copy).documents == 26 and _same(content(copy), content(folder))
    one, two = (f"milvus://{tmp_path / 'm.db'}?collection={c}" for c in ("one", "two"))
    migrate(copy, one)
    assert migrate(one, two).verified == 26 and _same(content(two), content(folder))
    for same in (folder, one):
        with pytest.raises(IndexerError, match="source index itself"):
            migrate(same, same)


def _same(a: dict, b: dict) -> bool:
    return all((np.array_equal(a[k], b[k]) if k == "vectors" else a[k] == b[k]) for k in a
               if k != "facts") and a["facts"]["encoder"] == b["facts"]["encoder"]


def test_the_cli_migrates_and_says_what_it_verified(folder, tmp_path, run_cli):
    address = f"milvus://{tmp_path / 'm.db'}?collection=idx"
    run = run_cli("indexer", "migrate", str(folder), address, "--batch", "10")
    assert run.code == 0, run.err
    assert "migrated" in run.out and "26 documents" in run.out and "verified" in run.out
    assert "migrate" in run.err  # the progress bar
    back = run_cli("indexer", "migrate", address, str(tmp_path / "back"), "--sample", "5")
    assert back.code == 0 and "7 documents' text, chunks and vectors equal" in back.out
    bad = run_cli("indexer", "migrate", str(folder), str(folder))
    assert bad.code == 1 and "source index itself" in bad.error


def test_a_copy_that_does_not_verify_leaves_the_target_as_it_was(folder, tmp_path,
                                                                   tiny_encoder):
    """Rows lost between the copy and its check (here: deleted from the staging collection by
    another client) fail the verification; the index already at the address stays."""
    from pymilvus import MilvusClient

    from indexer.migrate import MigrationError
    from indexer.milvus.copy_in import STAGING

    db = tmp_path / "m.db"
    address = f"milvus://{db}?collection=idx"
    small = tmp_path / "small"
    build_index(docs()[:5], small, model=tiny_encoder, preset="flat")
    migrate(small, address)

    def tamper(done, total):
        if done == total:
            MilvusClient(str(db)).delete("idx" + STAGING, filter="chunk_no == 0 and "
                                         'doc_id == "d03"')

    with pytest.raises(MigrationError, match="holds"):
        migrate(folder, address, progress=tamper)
    assert content(address)["docs"] == content(small)["docs"]


def test_an_index_opened_before_a_migration_over_it_searches_the_new_one(folder, tmp_path,
                                                                          tiny_encoder):
    address = f"milvus://{tmp_path / 'm.db'}?collection=idx"
    small = tmp_path / "small"
    build_index(docs()[:5], small, model=tiny_encoder, preset="flat")
    migrate(small, address)
    before = SemanticIndex.open(address, encoder=tiny_encoder)
    assert len(before.search("story", k=50)) == 5
    migrate(folder, address)
    assert len(before.search("story", k=50)) == 26
