"""A saved write's filter index extended from the published one (`columns_delta.extend`, issue
48) equals `Columns.build` over the same store, array for array: random documents with text,
integer, float and boolean fields and access lists, random adds, upserts, deletes and saves.
The filters and reader masks it answers equal SQLite's matching, and a plain write really takes
the incremental path (so a change that made it always fall back fails here)."""

from __future__ import annotations

import numpy as np
import pytest
from columns_oracle import assert_matches_sqlite

from indexer import SemanticIndex, build_index
from indexer.access import visible
from indexer.folder import columns_delta, db
from indexer.folder.columns import Columns

WORDS = [f"w{i}" for i in range(60)]
GROUPS = [f"g{i}" for i in range(8)]
TAGS = ["red", "green", "blue", "Ünï", "", "zz"]


def random_doc(rng: np.random.Generator, i: int) -> dict:
    meta: dict = {}
    if rng.random() < 0.8:
        meta["tag"] = str(rng.choice(TAGS)) if rng.random() < 0.8 else f"t{rng.integers(1000)}"
    if rng.random() < 0.7:
        meta["n"] = int(rng.integers(-5, 5)) if rng.random() < 0.9 else int(rng.integers(2**62))
    if rng.random() < 0.7:
        meta["x"] = float(rng.normal()) if rng.random() < 0.8 else int(rng.integers(9))
    if rng.random() < 0.6:
        meta["ok"] = bool(rng.random() < 0.5)
    if rng.random() < 0.05:  # a field the published version never had
        meta[f"new{rng.integers(3)}"] = f"v{rng.integers(4)}"
    if rng.random() < 0.5:
        meta["access"] = sorted(rng.choice(GROUPS, size=rng.integers(1, 4), replace=False)
                                .tolist())
    text = " ".join(rng.choice(WORDS, size=int(rng.integers(3, 200))).tolist())
    return {"id": f"r{i:04d}", "text": text, "metadata": meta}


def assert_same(got: Columns, want: Columns) -> None:
    for name in ("doc", "first"):
        a, b = getattr(got, name), getattr(want, name)
        assert a.dtype == b.dtype and np.array_equal(a, b), name
    assert sorted(got.fields) == sorted(want.fields)
    for name, col in want.fields.items():
        mine = got.fields[name]
        assert (mine.kind, list(mine.words)) == (col.kind, list(col.words)), name
        assert mine.values.dtype == col.values.dtype and np.array_equal(mine.values, col.values)
        assert (mine.present is None) == (col.present is None), name
        if col.present is not None:
            assert np.array_equal(mine.present, col.present), name
    for name in ("lists", "ptr", "names"):
        a, b = getattr(got.access, name), getattr(want.access, name)
        assert a.dtype == b.dtype and np.array_equal(a, b), name
    assert list(got.access.words) == list(want.access.words)


def assert_filters(index, rng: np.random.Generator) -> None:
    """The saved columns answer filters and readers as SQLite does."""
    columns = index._columns()
    types = index.field_types()
    specs = [{"tag": str(rng.choice(TAGS))}, {"tag": {"in": TAGS[:3]}}, {"n": {"gte": 0}},
             {"x": {"lt": 0.0}}, {"ok": True}, {"tag": "red", "ok": False}]
    assert_matches_sqlite(index, columns, [s for s in specs if all(k in types for k in s)])
    for name in types:
        if name in columns.fields:  # (a float field's integers: 3.0 here, 3 in SQLite)
            mine = columns.fields[name].distinct(columns.live, 10_000)
            sql = db.field_values(index.conn, name, 10_000)
            if types[name] == "float":
                mine, sql = sorted(map(float, mine)), sorted(map(float, sql))
            assert mine == sql, name
    readers = frozenset(rng.choice(GROUPS, size=2, replace=False).tolist())
    mask = columns.live & columns.access.mask(readers)
    want = [cid for cid, meta in _chunk_meta(index.conn) if visible(meta, readers)]
    assert np.flatnonzero(mask).tolist() == sorted(want)


def _chunk_meta(conn):
    import json
    return [(cid, json.loads(m)) for cid, m in conn.execute(
        "SELECT c.chunk_id, d.metadata FROM chunks c JOIN documents d ON d.doc_id = c.doc_id")]


@pytest.mark.parametrize("seed,preset", [(1, "flat"), (2, "hnsw"), (3, "flat")])
def test_extended_columns_equal_a_full_build(tmp_path, tiny_encoder, seed, preset):
    rng = np.random.default_rng(seed)
    docs = [random_doc(rng, i) for i in range(30)]
    build_index(docs, tmp_path / "i", model=tiny_encoder, preset=preset)
    index = SemanticIndex.open(tmp_path / "i", encoder=tiny_encoder)
    ids, made = {d["id"] for d in docs}, len(docs)
    for _step in range(14):
        for _ in range(int(rng.integers(1, 4))):
            op = rng.choice(["add", "upsert", "delete"])
            if op == "delete" and ids:
                gone = rng.choice(sorted(ids), size=min(len(ids), int(rng.integers(1, 6))),
                                  replace=False).tolist()
                index.delete([*gone, "never-there"])
                ids -= set(gone)
                continue
            fresh = [random_doc(rng, made + j) for j in range(int(rng.integers(1, 6)))]
            made += len(fresh)
            if op == "upsert" and ids:
                for d in fresh[: int(rng.integers(0, len(fresh) + 1))]:
                    d["id"] = str(rng.choice(sorted(ids)))
                fresh = list({d["id"]: d for d in fresh}.values())
                index.upsert(fresh)
            else:
                index.add(fresh)
            ids |= {d["id"] for d in fresh}
        index.save()
        assert_same(index._version.columns, Columns.build(index.conn, index.field_types()))
        reopened = SemanticIndex.open(tmp_path / "i", encoder=tiny_encoder)
        assert_same(reopened._columns(), Columns.build(reopened.conn, reopened.field_types()))
        assert_filters(reopened, rng)
        hits = reopened.search("w1 w2", k=5, filter={"ok": True}, readers=list(GROUPS[:3]))
        assert hits == index.search("w1 w2", k=5, filter={"ok": True}, readers=list(GROUPS[:3]))


def _no_build(*_a, **_k):
    raise AssertionError("Columns.build ran where the columns should have been extended")


def test_a_plain_write_extends_the_columns_without_building(flat_index, tiny_encoder,
                                                            monkeypatch, docs):
    index = SemanticIndex.open(flat_index, encoder=tiny_encoder)
    monkeypatch.setattr(Columns, "build", _no_build)
    calls = []
    real = columns_delta.extend
    monkeypatch.setattr("indexer.folder.writes.extend",
                        lambda *a: calls.append(1) or real(*a))
    extra = {**docs[0], "id": "extra", "metadata": {**docs[0]["metadata"], "group": "c"}}
    index.add([extra])
    index.save()
    index.upsert([{**docs[1], "metadata": {**docs[1]["metadata"], "score": 0.25}}])
    index.delete([docs[2]["id"]])
    index.save()
    assert len(calls) == 2
    monkeypatch.undo()
    assert_same(index._version.columns, Columns.build(index.conn, index.field_types()))


@pytest.mark.parametrize("change", ["compact", "kind", "rebase"])
def test_it_falls_back_to_a_build_where_extending_cannot_be_exact(hnsw_index, tiny_encoder,
                                                                  monkeypatch, docs, change):
    index = SemanticIndex.open(hnsw_index, encoder=tiny_encoder)
    built = []
    real = Columns.build.__func__
    monkeypatch.setattr(Columns, "build",
                        classmethod(lambda cls, *a: built.append(1) or real(cls, *a)))
    if change == "compact":
        index.delete([docs[0]["id"]])
        index.compact()
    elif change == "kind":  # an int field turned float by a new value
        index.add([{"id": "z", "text": "a new one", "metadata": {"topic": 2.5}}])
    else:  # another writer published first: this one's changes are replayed on its version
        other = SemanticIndex.open(hnsw_index, encoder=tiny_encoder)
        index.add([{"id": "z", "text": "a new one", "metadata": {"group": "z"}}])
        other.add([{"id": "y", "text": "another", "metadata": {"group": "y"}}])
        other.save()
        built.clear()
    index.save()
    assert built
    monkeypatch.undo()
    assert_same(index._version.columns, Columns.build(index.conn, index.field_types()))
