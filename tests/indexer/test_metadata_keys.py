"""Metadata keys of any spelling: every field `info` lists filters and lists its values, including
keys holding characters that JSON paths treat specially (quotes, backslashes, dots, brackets)."""

from __future__ import annotations

import pytest

from indexer import SemanticIndex, build_index

KEYS = ['say "hi"', "C:\\path", "a.b", "x[0]", "$", "tab\there", "é字", "'", '\\"', "end\\"]


@pytest.fixture(scope="module")
def odd_index(tmp_path_factory, tiny_encoder):
    docs = [{"id": f"d{i}", "text": f"document number {i} about cats",
             "metadata": {k: f"v{i % 2}" for k in KEYS} | {"n": i}} for i in range(6)]
    out = tmp_path_factory.mktemp("odd") / "index"
    build_index(docs, out, model=tiny_encoder, preset="flat")
    return out


def test_info_lists_every_key(odd_index, tiny_encoder):
    index = SemanticIndex.open(odd_index, encoder=tiny_encoder)
    assert set(index.field_types()) == set(KEYS) | {"n"}


@pytest.mark.parametrize("key", KEYS)
def test_every_listed_key_has_values_and_filters(odd_index, tiny_encoder, key):
    index = SemanticIndex.open(odd_index, encoder=tiny_encoder)
    assert index.field_values(key) == ["v0", "v1"]
    hits = index.search("cats", k=10, filter={key: "v1"})
    assert sorted(h.doc_id for h in hits) == ["d1", "d3", "d5"]
    hits = index.search("cats", k=10, filter={key: {"in": ["v0"]}, "n": {"gte": 2}})
    assert sorted(h.doc_id for h in hits) == ["d2", "d4"]
