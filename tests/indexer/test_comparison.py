"""`indexer.compare`: one query on two indexes, each side's hits with their documents and time,
and the second's rank movements against the first, through the index contract alone (a folder
index beside a Milvus one compares as beside another folder)."""

from __future__ import annotations

import shutil

import pytest

from indexer import Comparison, SemanticIndex, build_index, compare, rank_movements, search_run

QUERY = "cats purr on the sofa"


@pytest.fixture
def pair(flat_index, tiny_encoder, tmp_path):
    """The flat index, and a copy of it lacking the first index's best hybrid hit."""
    first = SemanticIndex.open(flat_index, encoder=tiny_encoder)
    copy = shutil.copytree(flat_index, tmp_path / "smaller")
    second = SemanticIndex.open(copy, encoder=tiny_encoder)
    second.delete([first.search(QUERY, k=1, mode="hybrid")[0].doc_id])
    second.save()
    return first, SemanticIndex.open(copy, encoder=tiny_encoder)


def test_both_sides_their_documents_and_the_movements(pair):
    first, second = pair
    got = compare(first, second, QUERY, k=5, mode="hybrid")
    assert isinstance(got, Comparison)
    want_one = first.search(QUERY, k=5, mode="hybrid")
    want_two = second.search(QUERY, k=5, mode="hybrid")
    assert [h.doc_id for h in got.first.hits] == [h.doc_id for h in want_one]
    assert [h.doc_id for h in got.second.hits] == [h.doc_id for h in want_two]
    for run in (got.first, got.second):
        assert set(run.documents) == {h.doc_id for h in run.hits} and run.seconds > 0
        assert all(run.documents[h.doc_id].id == h.doc_id for h in run.hits)
    assert got.moves == rank_movements([h.doc_id for h in want_one],
                                       [h.doc_id for h in want_two])
    assert got.gone and got.gone[0].doc_id == want_one[0].doc_id  # deleted from the second
    assert got.titles[got.gone[0].doc_id] == want_one[0].title
    assert sum(got.counts.values()) == len(got.moves) and got.counts["gone"] == len(got.gone)
    assert list(got.counts) == ["new", "up", "down", "same", "gone"]
    assert "different documents" in got.difference  # 60 documents against 59
    assert (got.first_stats.documents, got.second_stats.documents) == (60, 59)


def test_an_index_against_itself_is_all_same_with_no_note(flat_index, tiny_encoder):
    index = SemanticIndex.open(flat_index, encoder=tiny_encoder)
    got = compare(index, index, QUERY, k=4, filter={"group": "a"})
    assert [m.kind for m in got.moves] == ["same"] * 4 and got.difference is None
    assert all(d.metadata["group"] == "a" for d in got.second.documents.values())


def test_a_folder_index_against_a_milvus_one(flat_index, tiny_encoder, docs, tmp_path):
    """The same documents in the other store: the same ranking, and no store asked about."""
    pytest.importorskip("milvus_lite")
    where = f"milvus://{tmp_path}/m.db?collection=m"
    build_index(docs, where, model=tiny_encoder, preset="flat")
    folder = SemanticIndex.open(flat_index, encoder=tiny_encoder)
    milvus = SemanticIndex.open(where, encoder=tiny_encoder)
    got = compare(folder, milvus, QUERY, k=5, mode="dense")
    assert {m.kind for m in got.moves} == {"same"} and got.difference is None
    assert got.second_stats.store == "milvus" and got.first_stats.store == "folder"


def test_no_hits_is_an_empty_run(flat_index, tiny_encoder):
    index = SemanticIndex.open(flat_index, encoder=tiny_encoder)
    run = search_run(index, QUERY, k=3, mode="lexical", filter={"group": "nowhere"})
    assert run.hits == [] and run.documents == {}


def test_bad_input_names_the_fix(flat_index, tiny_encoder):
    index = SemanticIndex.open(flat_index, encoder=tiny_encoder)
    with pytest.raises(TypeError, match="one query at a time"):
        compare(index, index, [QUERY, QUERY])
    with pytest.raises(ValueError):
        compare(index, index, QUERY, k=0)


def test_readers_see_nothing_of_a_hidden_document_on_either_side(flat_index, tiny_encoder,
                                                                 tmp_path):
    """`readers=` reaches both searches, their documents and the counts: a reader outside 'hr'
    finds nothing of an hr document by its exact words, and the counts leave it out."""
    text = "payroll committee minutes on salaries"
    index = SemanticIndex.open(flat_index, encoder=tiny_encoder)
    index.add([{"id": "secret", "title": "Payroll", "text": text,
                "metadata": {"access": ["hr"]}}])
    index.save()
    copy = shutil.copytree(flat_index, tmp_path / "copy")
    first = SemanticIndex.open(flat_index, encoder=tiny_encoder)
    second = SemanticIndex.open(copy, encoder=tiny_encoder)
    assert search_run(first, text, k=3, mode="lexical", readers=["hr"]).hits[0].doc_id == "secret"
    outside = search_run(first, text, k=70, mode="hybrid", readers=["alice"])
    assert outside.hits and "secret" not in {h.doc_id for h in outside.hits}
    assert "secret" not in outside.documents
    got = compare(first, second, text, k=5, mode="hybrid", readers=iter(["alice"]))  # once
    for run in (got.first, got.second):
        assert len(run.hits) == 5 and "secret" not in {h.doc_id for h in run.hits}
    assert (got.first_stats.documents, got.second_stats.documents) == (60, 60)
    assert got.difference is None
    seen = compare(first, second, text, k=5, mode="hybrid", readers=["hr"])
    assert seen.first.hits[0].doc_id == seen.second.hits[0].doc_id == "secret"
    assert seen.first_stats.documents == 61
