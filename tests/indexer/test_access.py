"""Per-document access (issue 50) on both stores: a document's `access` names who may see it,
and every read given `readers` keeps only the documents whose access is absent or names a
reader, inside the index before top-k: hits in every mode (with and without a filter), k filled
from visible documents, a hidden document's own words find nothing of it, `document` of a hidden
id is a missing one, counts and field values leave hidden documents out. The published folder
version (its filter index) and a writer's unsaved copy (SQLite) are both covered."""

from __future__ import annotations

import pytest

from indexer import SemanticIndex, build_index

STORES = ["folder", "milvus"]
MODES = ("dense", "lexical", "hybrid")
SECRET = ("zanzibar quetzal marmalade xylophone", "Payroll zanzibar")


def target(store: str, tmp_path, name: str = "acl") -> str:
    if store == "milvus":
        pytest.importorskip("milvus_lite")
        return f"milvus://{tmp_path}/{name}.db?collection={name}"
    return str(tmp_path / name)


def corpus() -> list[dict]:
    """30 documents: 12 public, 10 for hr, 8 for eng or ops; one hr one holds rare words and
    a field value no visible document has."""
    docs = []
    for i in range(30):
        meta: dict = {"n": i, "team": "pub" if i < 12 else "hr" if i < 22 else "eng"}
        if 12 <= i < 22:
            meta["access"] = "hr"  # one name, kept as ["hr"]
        elif i >= 22:
            meta["access"] = ["ops", "eng"]
        docs.append({"id": f"a{i:02d}", "title": f"Note {i}", "metadata": meta,
                     "text": f"cats purr and dogs bark in note {i}, sentence after sentence."})
    docs[15]["text"], docs[15]["title"] = SECRET
    docs[15]["metadata"]["colour"] = "ultraviolet"
    docs[0]["metadata"]["colour"] = "red"
    return docs


@pytest.fixture(params=STORES)
def index(request, tmp_path, tiny_encoder):
    where = target(request.param, tmp_path)
    build_index(corpus(), where, model=tiny_encoder, preset="flat")
    index = SemanticIndex.open(where, encoder=tiny_encoder)
    yield index
    index.close()


def ids(hits) -> set[str]:
    return {h.doc_id for h in hits}


PUBLIC = {f"a{i:02d}" for i in range(12)}
HR = {f"a{i:02d}" for i in range(12, 22)}
ENG = {f"a{i:02d}" for i in range(22, 30)}


def check_reads(index) -> None:
    assert index.document("a15").metadata["access"] == ["hr"]  # stored as a list
    for readers, seen in (([], PUBLIC), (["hr"], PUBLIC | HR), (["eng", "x"], PUBLIC | ENG),
                          (["ops", "hr"], PUBLIC | HR | ENG), (None, set(index.doc_ids()))):
        for mode in MODES:
            for per_chunk in (False, True):
                hits = index.search("cats purr dogs bark", k=50, mode=mode, per_chunk=per_chunk,
                                    readers=readers)
                assert ids(hits) <= seen, (readers, mode, per_chunk)
                if mode != "lexical" and not per_chunk:  # every visible one ranks
                    assert ids(hits) == seen, (readers, mode)
                # k is filled from visible documents
                top = index.search("cats purr dogs bark", k=10, mode=mode, readers=readers)
                assert len(top) == 10 and ids(top) <= seen, (readers, mode)
                filtered = index.search("cats purr", k=50, mode=mode, readers=readers,
                                        filter={"n": {"gte": 10, "lt": 24}})
                want = {d for d in seen if 10 <= int(d[1:]) < 24}
                assert ids(filtered) <= want, (readers, mode)
                if mode != "lexical":
                    assert ids(filtered) == want, (readers, mode)
        counts = index.counts(readers=readers)
        assert counts["documents"] == len(seen), (readers, counts)
        assert index.stats(readers=readers).documents == len(seen)
        assert set(index.documents(index.doc_ids(), readers=readers)) == seen
        assert set(index.missing(["a00", "a15", "a25", "zz"], readers=readers)) == \
            {"a00", "a15", "a25", "zz"} - seen
        teams = index.field_values("team", readers=readers)
        assert teams == sorted({index.document(d).metadata["team"] for d in seen}), readers
    # a hidden document's own words: nothing of it, in any mode
    for mode in MODES:
        for query in SECRET:
            for readers in ([], ["eng"]):
                hits = index.search(query, k=30, mode=mode, per_chunk=True, readers=readers)
                assert "a15" not in ids(hits) and all(
                    "zanzibar" not in (h.text + h.title).lower() for h in hits), (mode, query)
            assert "a15" in ids(index.search(query, k=3, mode=mode, readers=["hr"]))
    assert index.field_values("colour", readers=["eng"]) == ["red"]
    assert index.field_values("colour", readers=["hr"]) == ["red", "ultraviolet"]
    with pytest.raises(KeyError) as hidden:
        index.document("a15", readers=["eng"])
    with pytest.raises(KeyError) as absent:
        index.document("nope", readers=["eng"])
    assert str(hidden.value).replace("a15", "X") == str(absent.value).replace("nope", "X")
    assert index.chunk_spans("a15", readers=["eng"]) == [] and index.chunk_spans("a15")
    hit = index.search(SECRET[0], k=1, readers=["hr"])[0]
    with pytest.raises(KeyError):
        index.explain_work(SECRET[0], hit, readers=["eng"])
    assert index.explain_work(SECRET[0], hit, readers=["hr"]) > 0


def test_readers_restrict_every_read(index):
    check_reads(index)


def test_readers_restrict_a_writers_unsaved_copy_and_the_next_version(index):
    index.upsert([{"id": "w1", "text": "penguins waddle on the ice",
                   "metadata": {"access": ["zoo"], "team": "zoo"}}])
    assert ids(index.search("penguins waddle", k=5, mode="lexical", readers=["eng"])) & \
        {"w1"} == set()
    assert "w1" in ids(index.search("penguins waddle", k=5, mode="lexical", readers=["zoo"]))
    assert index.counts(readers=["zoo"])["documents"] == 13
    assert index.field_values("team", readers=["eng"]) == ["eng", "pub"]
    check_reads(index)
    index.save()
    again = SemanticIndex.open(index.location, encoder=index.encoder)
    assert again.counts(readers=["zoo"])["documents"] == 13
    assert again.field_values("team", readers=["zoo"]) == ["pub", "zoo"]
    check_reads(again)
    again.close()


@pytest.mark.parametrize("bad, said", [
    ([], "empty list"), ([""], "is empty"), ([" hr"], "spaces around"), (["a" * 201], "200"),
    ([3], "must be a group"), ({"hr": 1}, "or a list of them"), (["x"] * 257, "at most 256")])
def test_a_bad_access_is_refused_in_words(tmp_path, tiny_encoder, bad, said):
    where = target("folder", tmp_path)
    with pytest.raises((TypeError, ValueError), match=said):
        build_index([{"id": "a", "text": "cats", "metadata": {"access": bad}}], where,
                    model=tiny_encoder, preset="flat")


def test_readers_must_be_a_list_of_names(tmp_path, tiny_encoder):
    index = build_index(corpus()[:3], target("folder", tmp_path), model=tiny_encoder,
                        preset="flat")
    with pytest.raises(TypeError, match=r"not a single string: use \['hr'\]"):
        index.search("cats", readers="hr")
    with pytest.raises(TypeError, match="readers\\[1\\] must be a string"):
        index.documents(["a00"], readers=["hr", 3])
    assert index.search("cats", k=3, readers=set()) and len(index.search("cats", k=3)) == 3


def test_context_and_retrievers_see_only_what_readers_may(index):
    from rag import context_for

    hidden = context_for(index, SECRET[0], 4096, k=30, readers=["eng"])
    assert hidden.chunks and all(c.doc_id != "a15" for c in hidden.chunks)
    assert "zanzibar" not in hidden.prompt.lower()
    assert "a15" in {c.doc_id for c in context_for(index, SECRET[0], k=5, readers=["hr"]).chunks}
    pytest.importorskip("langchain_core")
    from rag.langchain import BertscopeRetriever

    docs = BertscopeRetriever.from_index(index, k=30, mode="hybrid",
                                         readers=["eng"]).invoke(SECRET[0])
    assert docs and all(d.metadata["doc_id"] != "a15" for d in docs)
    pytest.importorskip("llama_index.core")
    from rag.llamaindex import BertscopeRetriever as LlamaRetriever

    nodes = LlamaRetriever(index, k=30, mode="hybrid", readers=["eng"]).retrieve(SECRET[0])
    assert nodes and all(not n.node.id_.startswith("a15#") for n in nodes)


def test_the_access_column_masks_chunks_by_reader_set(tmp_path):
    from indexer.folder.access_column import AccessColumn

    # chunk 1's document holds a value no name reads (written before access was checked)
    col = AccessColumn.build(5, [(0, ["a"]), (1, []), (2, ["b", "a"])])
    assert col.mask(frozenset({"a"})).tolist() == [True, False, True, True, True]
    assert col.mask(frozenset({"b", "zz"})).tolist() == [False, False, True, True, True]
    assert col.mask(frozenset()).tolist() == [False, False, False, True, True]
    col.save(tmp_path)
    again = AccessColumn.load(tmp_path)
    assert again.mask(frozenset({"a"})).tolist() == [True, False, True, True, True]
    assert AccessColumn.load(tmp_path / "none") is None  # a version saved before access
