"""Filters as Milvus expressions, run on the real embedded engine (milvus-lite): the rows a filter
keeps are exactly those the folder store keeps on the indexer's filter cases, and a key or value
written to break out of its string literal is compared as data."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from indexer import SemanticIndex, build_index
from indexer.filters import compile_filter
from indexer.milvus.expr import literal, quote, to_expr

pymilvus = pytest.importorskip("pymilvus")
parser = pytest.importorskip("milvus_lite.search.filter.parser")
ast = pytest.importorskip("milvus_lite.search.filter.ast")

HOSTILE = ['x" or 1==1 or "', "x' or 1==1 or '", 'a\\', '\\"', '"]) or (metadata["n', "two\nlines",
           "cr\rlf", "tab\t", "nul\x00byte", "[1, 2]", "é字 🍎", "", " ", "true", "1", "$meta",
           'metadata["group"] == "a"', "\\n", "\u2028sep", "}\"{", "x\" and not (1==1) or \""]
ODD_KEYS = ['say "hi"', "C:\\path", "a.b", "x[0]", "$", "tab\there", "é字", "'", '\\"', "end\\",
            '"] == "v1" or metadata["n']
_names = (f"c{i}" for i in itertools.count())


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    return pymilvus.MilvusClient(str(tmp_path_factory.mktemp("milvus") / "expr.db"))


def collection(client, metadatas: list[dict]) -> str:
    """A new collection of one row per metadata dict, `id` its position."""
    name = next(_names)
    schema = pymilvus.MilvusClient.create_schema(auto_id=False)
    schema.add_field("id", pymilvus.DataType.INT64, is_primary=True)
    schema.add_field("vec", pymilvus.DataType.FLOAT_VECTOR, dim=2)
    schema.add_field("metadata", pymilvus.DataType.JSON)
    params = client.prepare_index_params()
    params.add_index("vec", index_type="FLAT", metric_type="IP")
    client.create_collection(name, schema=schema, index_params=params)
    client.insert(name, [{"id": i, "vec": [1.0, 0.0], "metadata": m}
                         for i, m in enumerate(metadatas)])
    return name


def kept(client, name: str, expr: str) -> set[int]:
    return {r["id"] for r in client.query(name, filter=expr, output_fields=["id"])}


def test_expressions_read_as_written():
    conds = [("topic", "eq", [3]), ("group", "in", ["a", 'b"']), ("score", "gte", [1.5]),
             ("score", "lt", [-2]), ("flag", "eq", [1])]
    assert to_expr(conds, {"flag": "bool"}) == (
        'metadata["topic"] == 3 and (metadata["group"] == "a" or metadata["group"] == "b\\"") '
        'and metadata["score"] >= 1.5 and metadata["score"] < -2 and metadata["flag"] == true')
    assert to_expr([("k", "in", ["v"])], field="meta") == 'meta["k"] == "v"'
    assert to_expr([]) == ""


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), None, [1], {"a": 1}, b"x"])
def test_values_that_are_no_literal_are_refused(bad):
    with pytest.raises((TypeError, ValueError)):
        to_expr([("k", "eq", [bad])])


def test_a_field_name_that_is_no_identifier_is_refused():
    with pytest.raises(ValueError, match="not an identifier"):
        to_expr([("k", "eq", [1])], field='metadata["x"] or 1==1 or metadata')


@settings(max_examples=300, deadline=None)
@given(key=st.text(), value=st.one_of(st.text(), st.integers(-2**62, 2**62),
                                      st.floats(allow_nan=False, allow_infinity=False)))
def test_milvus_lite_reads_back_one_comparison_of_the_same_key_and_value(key, value):
    """Whatever the key and value, the expression parses to one `==` of metadata[key] and the
    value itself (for a string, character for character)."""
    tree = parser.parse_expr(to_expr([(key, "eq", [value])]))
    assert isinstance(tree, ast.CmpOp) and tree.op == "=="
    assert isinstance(tree.left, ast.PathAccess) and tree.left.path == (key,)
    assert tree.left.base.name == "metadata"
    # a negative number is one folded literal, not `0 - x`
    assert tree.right.value == value and type(tree.right.value) is type(value)


def test_injected_values_are_compared_as_data(client):
    rows = [{"v": s, "n": i} for i, s in enumerate(HOSTILE)] + [{"v": "other", "n": 99}]
    name = collection(client, rows)
    for i, s in enumerate(HOSTILE):
        assert kept(client, name, to_expr([("v", "eq", [s])])) == {i}, repr(s)
        assert kept(client, name, to_expr([("v", "in", [s, "nothing"]), ("n", "lte", [i])])) == {i}
    everything = to_expr([("v", "in", HOSTILE)])
    assert kept(client, name, everything) == set(range(len(HOSTILE)))  # "other" stays out
    assert quote("a\nb") == '"a\\nb"' and literal(True) == "true"


def test_injected_keys_are_compared_as_data(client):
    rows = [{k: f"v{i % 2}" for k in ODD_KEYS} | {"n": i} for i in range(6)]
    rows.append({"n": 6, "v1": "v1"})  # a key named like a value, to catch a key leaking out
    name = collection(client, rows)
    for key in ODD_KEYS:
        assert kept(client, name, to_expr([(key, "eq", ["v1"])])) == {1, 3, 5}, key
        assert kept(client, name, to_expr([(key, "in", ["v0"]), ("n", "gte", [2])])) == {2, 4}


FILTER_CASES = [{"topic": 3}, {"group": {"in": ["b"]}, "flag": True}, {"flag": False},
                {"score": {"gte": 1.0, "lt": 2.05}}, {"topic": 3, "score": {"lt": 0.9}},
                {"topic": {"in": [0, 4]}, "score": {"gt": 3}}, {"score": {"eq": 0.3}},
                {"mixed": "1"}, {"mixed": 1}, {"mixed": {"in": [1, "1", 2.5]}},
                {"label": 'x" or 1==1 or "'}, {"label": "é字 🍎"}, {"label": "two\nlines"},
                {"topic": {"lte": -1}}, {'say "hi"': "v1"}, {"C:\\path": {"in": ["v0"]}}]


def metadata_of(i: int) -> dict:
    return {"topic": i % 5, "group": "a" if i < 30 else "b", "score": i / 10,
            "flag": i % 3 == 0, "mixed": ["1", 1, 2.5, True][i % 4],
            "label": HOSTILE[i % len(HOSTILE)], 'say "hi"': f"v{i % 2}",
            "C:\\path": f"v{i % 2}"}


@pytest.fixture(scope="module")
def folder(tmp_path_factory, tiny_encoder):
    docs = [{"id": f"d{i:03d}", "text": f"story {i} about cats", "metadata": metadata_of(i)}
            for i in range(60)]
    out = tmp_path_factory.mktemp("expr") / "index"
    with pytest.MonkeyPatch.context() as patch:  # "mixed": an index written before a field
        patch.setattr("indexer.build.check_field_kinds", lambda docs, fields: {})  # kept a type
        build_index(docs, out, model=tiny_encoder, preset="flat")
    return SemanticIndex.open(out, encoder=tiny_encoder)


@pytest.fixture(scope="module")
def same_rows(client) -> str:
    return collection(client, [metadata_of(i) for i in range(60)])


@pytest.mark.parametrize("spec", FILTER_CASES, ids=str)
def test_the_same_documents_as_the_folder_store(client, folder, same_rows, spec):
    types = folder.field_types()
    expected = {int(h.doc_id[1:]) for h in folder.search("cats", k=500, filter=spec)}
    assert kept(client, same_rows, to_expr(compile_filter(spec, types), types)) == expected
    assert expected or spec == {"topic": {"lte": -1}}  # only the case meant to keep nothing does
