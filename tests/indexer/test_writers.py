"""Several writers on one index: no update is lost, a conflict is a named error, a failed save
publishes nothing and blocks nothing, and a failure inside a change leaves the index as it was."""

from __future__ import annotations

import gc
import random

import numpy as np
import pytest

import indexer.folder.changes
import indexer.folder.store.publishing
from indexer import ConcurrentWriteError, DiskFullError, SemanticIndex


def _open(path, enc):
    return SemanticIndex.open(path, encoder=enc)


def _ids(index) -> set[str]:
    return {h.doc_id for h in index.search("story", k=10_000, mode="lexical")} | {
        h.doc_id for h in index.search("anything", k=10_000)}


def _private(path) -> list[str]:
    return sorted(p.name for p in path.iterdir() if p.name.startswith((".staging-", ".build-")))


@pytest.mark.parametrize("which", ["flat_index", "hnsw_index"])
def test_overlapping_writers_lose_nothing(which, request, tiny_encoder, docs):
    """The reported case: A and B open one version and add; A saves, then B saves."""
    path = request.getfixturevalue(which)
    a, b = _open(path, tiny_encoder), _open(path, tiny_encoder)
    a.add([{"id": "from-a", "text": "a story from writer a"}])
    b.add([{"id": "from-b", "text": "a story from writer b"}])
    b.delete(["d001"])
    b.upsert([{"id": "d002", "text": "a story rewritten by b"}])
    a.save()
    b.save()  # re-applied on top of A's version
    after = _open(path, tiny_encoder)
    want = {d["id"] for d in docs} - {"d001"} | {"from-a", "from-b"}
    assert _ids(after) == want and len(after) == len(want)
    assert after.document("d002").text == "a story rewritten by b"
    assert after.stats().version == 3 and b.stats().version == 3
    assert _ids(b) == want  # B now is that version
    c = _open(path, tiny_encoder)  # and the index can still be changed
    c.delete(["from-a"])
    c.save()
    assert len(_open(path, tiny_encoder)) == len(want) - 1 and not _private(path)


def test_adding_one_id_twice_is_a_named_refusal(flat_index, tiny_encoder):
    a, b = _open(flat_index, tiny_encoder), _open(flat_index, tiny_encoder)
    a.add([{"id": "same", "text": "written by a"}])
    b.add([{"id": "same", "text": "written by b"}, {"id": "other", "text": "only b"}])
    a.save()
    with pytest.raises(ConcurrentWriteError, match="another writer added document 'same'.*"
                       "reopen the index and apply the changes again"):
        b.save()
    after = _open(flat_index, tiny_encoder)
    assert after.document("same").text == "written by a" and "other" not in _ids(after)
    assert after.stats().version == 2
    assert _private(flat_index)  # B lives: its private folder stays ...
    del b
    gc.collect()
    after.delete(["d000"])
    after.save()
    assert not _private(flat_index)  # ... until B is gone and the next save sweeps it


def test_random_interleavings_lose_no_update(flat_index, tiny_encoder, docs):
    """Writers x rounds of open / change / save in a seeded random order: every change of a
    save that returned is in the index, every refusal is a ConcurrentWriteError."""
    rng = random.Random(7)
    live = {d["id"] for d in docs}
    writers = 4
    refused = 0
    for round_no in range(6):
        events = [(w, step) for w in range(writers) for step in ("open", "change", "save")]
        order = []
        pending = {w: ["open", "change", "save"] for w in range(writers)}
        while any(pending.values()):  # a random interleaving keeping each writer's order
            w = rng.choice([w for w, steps in pending.items() if steps])
            order.append((w, pending[w].pop(0)))
        assert sorted(order) == sorted(events)
        open_, intent = {}, {}
        for w, step in order:
            if step == "open":
                open_[w] = _open(flat_index, tiny_encoder)
            elif step == "change":
                new = f"r{round_no}w{w}"
                victim = rng.choice(sorted(live))
                add = [{"id": new, "text": f"story {new}"}]
                shared = f"r{round_no}-shared"
                if rng.random() < 0.6 and shared not in _ids(open_[w]):
                    add = [{"id": shared, "text": f"story shared by {w}"}]  # may conflict
                open_[w].add(add)
                open_[w].delete([victim])
                intent[w] = ({d["id"] for d in add}, victim)
            else:
                try:
                    open_[w].save()
                except ConcurrentWriteError:
                    refused += 1
                    continue
                added, victim = intent[w]
                live = (live | added) - {victim}
        assert _ids(_open(flat_index, tiny_encoder)) == live, round_no
    assert refused > 0  # the seed makes conflicts happen, and they were named
    del open_
    gc.collect()


def test_failed_save_publishes_nothing_and_blocks_nothing(flat_index, tiny_encoder,
                                                          monkeypatch):
    index = _open(flat_index, tiny_encoder)
    index.delete(["d000"])

    def broken(*args, **kwargs):
        raise OSError(28, "No space left on device")

    with monkeypatch.context() as m:  # fails after the new version folder is in place
        m.setattr(indexer.folder.store.publishing, "write_atomic", broken)
        with pytest.raises(DiskFullError, match="is full.*nothing was lost"):
            index.save()
    assert _open(flat_index, tiny_encoder).stats().version == 1  # nothing published
    assert "d000" not in _ids(index)  # the writer keeps its changes and can search them
    index.save()  # ... and a second try publishes them
    assert _open(flat_index, tiny_encoder).stats().version == 2
    other = _open(flat_index, tiny_encoder)
    other.delete(["d001"])
    other.save()
    names = sorted(p.name for p in flat_index.iterdir())
    assert names == [".write.lock", "manifest.json", *sorted(n for n in names if n[0] == "v")]
    assert len([n for n in names if n[0] == "v"]) == 2  # the orphan of the failed try is gone


@pytest.mark.parametrize("which", ["flat_index", "hnsw_index"])
@pytest.mark.parametrize("where", ["faiss", "sqlite"])
@pytest.mark.parametrize("change", ["add", "upsert", "delete"])
def test_failure_inside_a_change_leaves_the_index_as_it_was(which, where, change, request,
                                                            tiny_encoder, monkeypatch):
    index = _open(request.getfixturevalue(which), tiny_encoder)
    index.add([{"id": "earlier", "text": "an unsaved earlier change"}])
    before = (_ids(index), len(index), index.vectors.ntotal, index.document("d003").text,
              index.search("cats purr", k=5))

    def broken(*args, **kwargs):
        raise RuntimeError(f"injected {where} failure")

    target = ("train_and_add" if change != "delete" else "_remove") if where == "faiss" else \
        ("insert_chunks" if change != "delete" else "delete_documents")
    if which == "hnsw_index" and target == "_remove":
        target = "add_tombstones"  # HNSW deletes by tombstone: SQL only
        where = "sqlite"
    module = indexer.folder.changes if where == "faiss" else indexer.folder.changes.db
    monkeypatch.setattr(module, target, broken)
    with pytest.raises(RuntimeError, match="injected"):
        if change == "delete":
            index.delete(["d003", "d004"])
        else:
            getattr(index, change)([{"id": "d003", "text": "replacement"}] if change == "upsert"
                                   else [{"id": "brand-new", "text": "a new story"}])
    monkeypatch.undo()
    after = (_ids(index), len(index), index.vectors.ntotal, index.document("d003").text,
             index.search("cats purr", k=5))
    assert after == before
    index.save()
    assert _ids(_open(index.folder, tiny_encoder)) == before[0]


def test_compact_failure_keeps_the_vectors(hnsw_index, tiny_encoder, monkeypatch):
    index = _open(hnsw_index, tiny_encoder)
    index.delete(["d000", "d001"])
    vectors = index.vectors
    monkeypatch.setattr(indexer.folder.changes.db, "clear_tombstones", lambda conn: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        index.compact()
    assert index.vectors is vectors and index.stats().tombstones > 0
    assert np.isin(["d000", "d001"], list(_ids(index))).sum() == 0


def test_a_writer_outpaced_every_time_gives_up_naming_it(flat_index, tiny_encoder, monkeypatch):
    """Other writers publishing before each of its REBASES tries: a named refusal, and the
    changes are still there for the next try."""
    from indexer.folder import writes as index_writes

    index = _open(flat_index, tiny_encoder)
    index.delete(["d000"])
    real = index_writes.store.publish
    tries = []

    def outpaced(folder, staging, fields, base):
        if staging is not index._work.staging:  # the other writer's own save
            return real(folder, staging, fields, base)
        other = _open(folder, tiny_encoder)  # another writer publishes first
        other.delete([f"d{len(tries) + 1:03d}"])
        other.save()
        tries.append(base)
        return real(folder, staging, fields, base)  # stale now: StaleBase

    monkeypatch.setattr(index_writes.store, "publish", outpaced)
    with pytest.raises(ConcurrentWriteError, match=f"other writers kept publishing {flat_index}"
                       f" while this one re-applied its changes {index_writes.REBASES} times"):
        index.save()
    assert len(tries) == index_writes.REBASES
    monkeypatch.undo()
    index.save()
    left = _ids(_open(flat_index, tiny_encoder))
    assert "d000" not in left and len(left) == 60 - 1 - index_writes.REBASES
