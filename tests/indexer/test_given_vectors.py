"""Bring your own vectors (`build_index(..., vectors=array)`, `build --vectors FILE.npy`): row i is
document i, each document one chunk, the model encodes queries only; every bad array is refused
in words before anything is written; on both stores."""

from __future__ import annotations

import json

import numpy as np
import pytest
from test_contract import STORES, target

from indexer import CorpusError, SemanticIndex, build_index, locate


def short_docs(docs: list[dict]) -> list[dict]:
    """Documents short enough for one chunk each under the tiny model (64 tokens)."""
    return [{**d, "text": d["text"].split(",")[0] + "."} for d in docs[:30]]


@pytest.fixture(scope="module")
def encoded(tiny_encoder, docs, tmp_path_factory):
    """A normal build of short documents, and its stored vectors in corpus order."""
    corpus = short_docs(docs)
    out = tmp_path_factory.mktemp("normal") / "idx"
    index = build_index(corpus, out, model=tiny_encoder, preset="flat")
    ids = [d["id"] for d in corpus]
    stored = index.stored(ids)
    assert [c[0] for c in stored.chunks] == ids  # one chunk per document
    return corpus, out, stored.vectors


@pytest.mark.parametrize("store", STORES)
def test_a_vectors_build_searches_as_the_build_whose_encoder_made_them(store, encoded,
                                                                       tiny_encoder, tmp_path):
    corpus, _, vectors = encoded
    reference = build_index(corpus, target(store, tmp_path, "normal"), model=tiny_encoder,
                            preset="flat")
    given = build_index(corpus, target(store, tmp_path), model=tiny_encoder, preset="flat",
                        vectors=vectors * 3.0)
    assert given.counts()["chunks"] == len(corpus) == len(given)
    assert given.manifest["build"]["vectors"].startswith("given")
    np.testing.assert_allclose(given.stored([corpus[4]["id"]]).vectors[0], vectors[4], atol=1e-6)
    for mode in ("dense", "lexical", "hybrid"):
        for query in ("cats purr on the sofa", "stocks fell", "story 7"):
            a = reference.search(query, k=10, mode=mode)
            b = given.search(query, k=10, mode=mode)
            assert [(h.doc_id, h.start, h.end, h.text) for h in a] == \
                [(h.doc_id, h.start, h.end, h.text) for h in b], (mode, query)
            np.testing.assert_allclose([h.score for h in a], [h.score for h in b], atol=1e-5)


def bad_arrays(n: int, dim: int):
    ok = np.random.default_rng(0).normal(size=(n, dim)).astype(np.float32)
    nan, zero = ok.copy(), ok.copy()
    nan[7, 3] = np.nan
    zero[5] = 0
    return [
        (ok[:, 0], "must be 2-D"),
        (ok[:, :-1], f"have {dim - 1} dimensions but"),
        (ok[:-1], f"have {n - 1} rows but the corpus has {n} documents"),
        (ok.astype(np.int32), "must be floats"),
        (nan, "row 7 holds NaN"),
        (zero, "row 5 is all zeros"),
    ]


@pytest.mark.parametrize("store", STORES)
def test_every_bad_array_is_refused_before_anything_is_written(store, encoded, tiny_encoder,
                                                               tmp_path):
    corpus = encoded[0]
    where = target(store, tmp_path)
    for array, said in bad_arrays(len(corpus), tiny_encoder.dim):
        with pytest.raises(CorpusError, match=said):
            build_index(corpus, where, model=tiny_encoder, vectors=array)
        assert not locate(where).exists()
    assert not (tmp_path / "idx").exists()
    with pytest.raises(TypeError, match="numpy array"):
        build_index(corpus, where, model=tiny_encoder, vectors=[[1.0] * tiny_encoder.dim])
    with pytest.raises(ValueError, match="local engine"):
        build_index(corpus, where, model=tiny_encoder, vectors=encoded[2], engine="ray")


def test_a_corpus_that_skipped_or_merged_rows_is_refused(encoded, tiny_encoder, tmp_path):
    corpus = encoded[0]
    path = tmp_path / "c.jsonl"
    rows = [*corpus, {"id": corpus[0]["id"], "text": "again"}]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    vectors = np.ones((len(corpus) + 1, tiny_encoder.dim), np.float32)
    with pytest.raises(CorpusError, match="1 duplicate ids"):
        build_index(path, tmp_path / "idx", model=tiny_encoder, vectors=vectors)
    assert not (tmp_path / "idx").exists()


def test_the_cli_builds_from_a_npy_file_and_refuses_in_words(encoded, tiny_model_dir, tmp_path,
                                                             run_cli):
    corpus, _, vectors = encoded
    path = tmp_path / "c.jsonl"
    path.write_text("\n".join(json.dumps({"id": d["id"], "title": d["title"],
                                          "text": d["text"], **d["metadata"]})
                              for d in corpus) + "\n")
    npy = tmp_path / "v.npy"
    np.save(npy, vectors)
    out = tmp_path / "idx"
    done = run_cli("indexer", "build", "--corpus", path, "--vectors", npy, "--model",
                   tiny_model_dir, "--out", out)
    assert done.code == 0, done.err
    assert f"{len(corpus)} documents, {len(corpus)} chunks" in done.out
    hit = SemanticIndex.open(out).search("cats purr on the sofa", k=1, mode="hybrid")[0]
    assert hit.metadata["topic"] == 0

    np.save(tmp_path / "short.npy", vectors[:-2])
    (tmp_path / "text.npy").write_text("not numpy")
    for file, said in ((tmp_path / "short.npy", "rows but the corpus has"),
                       (tmp_path / "text.npy", "is not a .npy file"),
                       (tmp_path / "absent.npy", "no such file")):
        bad = run_cli("indexer", "build", "--corpus", path, "--vectors", file, "--model",
                      tiny_model_dir, "--out", tmp_path / "bad")
        assert bad.code != 0 and said in bad.error, bad.err
        assert not (tmp_path / "bad").exists()
    clash = run_cli("indexer", "build", "--corpus", path, "--vectors", npy, "--chunk-tokens",
                    "32", "--out", tmp_path / "bad")
    assert clash.code == 2 and "--vectors makes each document one chunk" in clash.err


@pytest.mark.parametrize("store", STORES)
def test_add_and_upsert_take_vectors_made_elsewhere(store, encoded, tiny_encoder, tmp_path):
    corpus, _, vectors = encoded
    index = build_index(corpus[:20], target(store, tmp_path), model=tiny_encoder, preset="flat",
                        vectors=vectors[:20])
    new = corpus[20:23]
    with pytest.raises(CorpusError, match="have 2 rows but the corpus has 3"):
        index.add(new, vectors=vectors[20:22])
    assert len(index) == 20
    assert index.add(new, vectors=vectors[20:23] * 2) == 3 and len(index) == 23
    index.save()
    again = SemanticIndex.open(index.location, encoder=tiny_encoder)
    np.testing.assert_allclose(again.stored([new[1]["id"]]).vectors[0], vectors[21], atol=1e-6)
    flipped = -vectors[0:1]
    assert again.upsert([corpus[0]], vectors=flipped) == 1
    np.testing.assert_allclose(again.stored([corpus[0]["id"]]).vectors[0], flipped[0], atol=1e-6)
