"""An IVF index (ivf, ivfpq, ivfpq-disk) emptied by deletes, or cut below what its training
needs, compacts and then takes new documents: it keeps its trained quantiser instead of failing
with FAISS's "number of training points ... should be at least ..." or a missing lists file."""

from __future__ import annotations

import pytest

from indexer import SemanticIndex, build_index

PRESETS = ["ivf", "ivfpq", "ivfpq-disk", "sq8"]
NEW = [{"id": f"n{i}", "text": t} for i, t in enumerate(
    ["penguins swim in cold water", "a violin concerto in D", "tax forms are due in April"])]


@pytest.fixture(scope="module", params=PRESETS)
def _built(request, tmp_path_factory, tiny_encoder, docs):
    out = tmp_path_factory.mktemp(request.param) / "index"
    build_index(docs, out, model=tiny_encoder, preset=request.param)
    return out


@pytest.fixture
def ivf_index(_built, tmp_path):
    import shutil

    return shutil.copytree(_built, tmp_path / "index")


def _reopen(folder, tiny_encoder):
    return SemanticIndex.open(folder, encoder=tiny_encoder)


def test_an_emptied_index_compacts_and_takes_new_documents(ivf_index, tiny_encoder, docs):
    index = _reopen(ivf_index, tiny_encoder)
    assert index.delete([d["id"] for d in docs]) == len(docs)
    index.compact()
    index.save()
    index = _reopen(ivf_index, tiny_encoder)
    assert len(index) == 0
    index.add(NEW)
    index.save()
    index = _reopen(ivf_index, tiny_encoder)
    assert len(index) == 3
    assert {h.doc_id for h in index.search("penguins", k=3)} == {"n0", "n1", "n2"}


def test_compacting_below_what_training_needs_keeps_the_documents(ivf_index, tiny_encoder,
                                                                    docs):
    index = _reopen(ivf_index, tiny_encoder)
    index.delete([d["id"] for d in docs[2:]])
    index.compact()
    index.save()
    index = _reopen(ivf_index, tiny_encoder)
    assert {h.doc_id for h in index.search("cats", k=5)} == {docs[0]["id"], docs[1]["id"]}
    index.add(NEW)
    index.save()
    assert len(_reopen(ivf_index, tiny_encoder)) == 5


def test_cli_compact_and_add_on_an_emptied_index(ivf_index, tmp_path, docs, run_cli):
    import json

    assert run_cli("indexer", "delete", ivf_index, *[d["id"] for d in docs]).code == 0
    done = run_cli("indexer", "compact", ivf_index)
    assert done.code == 0, done.err
    corpus = tmp_path / "new.jsonl"
    corpus.write_text("".join(json.dumps(d) + "\n" for d in NEW))
    done = run_cli("indexer", "add", ivf_index, "--corpus", corpus)
    assert done.code == 0, done.err
    assert run_cli("indexer", "search", ivf_index, "penguins").code == 0


def test_an_index_that_lost_its_training_says_how_many_chunks_it_needs(
        ivf_index, tiny_encoder, docs, monkeypatch):
    """An index compacted empty by an older version was saved untrained: adding too few
    documents to train it is one sentence, not FAISS's."""
    from indexer import presets
    from indexer.folder import changes

    index = _reopen(ivf_index, tiny_encoder)
    if presets.training_needs(index.vectors) <= len(NEW):
        pytest.skip("this preset trains on any number of vectors")
    monkeypatch.setattr(changes, "emptied", lambda v: presets.create(index.spec, v.d))
    index.delete([d["id"] for d in docs])
    index.compact()
    index.save()
    index = _reopen(ivf_index, tiny_encoder)
    with pytest.raises(ValueError, match=r"too few to train one \(it takes \d+: .*add at least"):
        index.add(NEW)
