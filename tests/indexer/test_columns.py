"""The folder store's filter index (`indexer.folder.columns`) matches exactly what SQLite's JSON
matching matches, for every operator and kind of field, and lists the same distinct values."""

from __future__ import annotations

import itertools

import pytest
from columns_oracle import assert_matches_sqlite

from indexer import SemanticIndex
from indexer.folder import db
from indexer.folder.columns import Columns


def specs(docs: list[dict]) -> list[dict]:
    out = []
    for name in ("topic", "group", "score", "flag"):
        values = sorted({d["metadata"][name] for d in docs}, key=str)
        out += [{name: values[0]}, {name: {"in": values[:2]}}]
        if name in ("topic", "score"):
            mid = values[len(values) // 2]
            out += [{name: {op: mid}} for op in ("gt", "gte", "lt", "lte", "eq")]
            out.append({name: {"gte": values[1], "lt": mid}})
    out += [{"group": "nope"}, {"topic": 2.0}, {"score": 999}, {"topic": {"in": [1, 3.0]}}]
    return out + [dict(itertools.chain(a.items(), b.items()))
                  for a, b in zip(out[:6], out[6:12], strict=True) if a.keys() != b.keys()]


@pytest.mark.parametrize("preset", ["flat", "hnsw"])
def test_every_filter_matches_the_chunks_sqlite_matches(preset, flat_index, hnsw_index, docs,
                                                       tiny_encoder):
    path = flat_index if preset == "flat" else hnsw_index
    index = SemanticIndex.open(path, encoder=tiny_encoder)
    index.delete([docs[3]["id"], docs[40]["id"]])  # dead chunks in FAISS (hnsw keeps them)
    index.save()
    index = SemanticIndex.open(path, encoder=tiny_encoder)
    columns = index._columns()
    assert columns is not None and (path / index.manifest["files"]["fields"]["path"]).is_dir()
    assert_matches_sqlite(index, columns, specs(docs))
    types = index.field_types()
    for name in types:
        assert columns.fields[name].distinct(columns.live, 50) == \
            db.field_values(index.conn, name, 50), name
    assert columns.fields["topic"].distinct(columns.live, 3) is None


def test_a_version_without_the_filter_index_still_filters(flat_index, tiny_encoder, docs):
    import json
    import shutil

    manifest = json.loads((flat_index / "manifest.json").read_text())
    shutil.rmtree(flat_index / manifest["files"].pop("fields")["path"])
    (flat_index / "manifest.json").write_text(json.dumps(manifest))
    index = SemanticIndex.open(flat_index, encoder=tiny_encoder)
    hits = index.search("cats purr", k=5, filter={"group": "b"})
    assert len(hits) == 5 and all(h.metadata["group"] == "b" for h in hits)
    assert isinstance(index._columns(), Columns)


def test_a_field_with_an_integer_beyond_64_bits_is_left_to_sqlite():
    """Writes refuse such integers, but an index written before that check may hold one (the
    Milvus migration test forges one): its field gets no column, so SQLite matches it."""
    from indexer.folder.columns import column as _column

    assert _column("int", {0: 2**70, 1: 3}, 2) is None
    column = _column("int", {0: -2**63, 1: 3}, 3)
    assert column.mask("gte", [3]).tolist() == [False, True, False]
