"""Property (issue 50): random access lists on 1,000 documents and random reader sets; for every
query, the hits a read given `readers` returns equal an exact search over only the documents
those readers may see: dense against exact inner products (numpy, the flat oracle) over the
visible vectors, lexical against the index's own BM25 over every document with the hidden ones
struck out after scoring (what "before top-k" promises: the same scores, none missing). Each
document is one chunk (its vector given), so chunk and document hits coincide. Run on the
published folder version (the access column of its filter index, through the exact path for
few chunks and through FAISS's bitmap selector), on a writer's unsaved copy (SQLite), and on
Milvus with fewer rounds."""

from __future__ import annotations

import numpy as np
import pytest

from indexer import SemanticIndex, build_index
from indexer.access import visible
from indexer.folder import allowed as allowed_module

N_DOCS = 1000
GROUPS = [f"g{i}" for i in range(40)]
WORDS = [f"w{i}" for i in range(300)]


def corpus(rng: np.random.Generator) -> list[dict]:
    docs = []
    for i in range(N_DOCS):
        meta: dict = {"n": i % 7}
        if rng.random() > 0.3:  # 70 % restricted, to one to three groups
            meta["access"] = sorted(rng.choice(GROUPS, size=rng.integers(1, 4),
                                               replace=False).tolist())
        text = " ".join(rng.choice(WORDS, size=8).tolist())
        docs.append({"id": f"p{i:04d}", "text": text, "metadata": meta})
    return docs


def reader_sets(rng: np.random.Generator, n: int) -> list[list[str]]:
    out = [[], ["nobody"]]
    while len(out) < n:
        out.append(rng.choice(GROUPS, size=rng.integers(1, 5), replace=False).tolist())
    return out


@pytest.fixture(scope="module")
def world(tmp_path_factory, tiny_encoder):
    rng = np.random.default_rng(50)
    docs = corpus(rng)
    dim = tiny_encoder.encode(["x"], prompt="query").shape[1]
    vectors = rng.normal(size=(N_DOCS, dim)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    return docs, vectors, rng


def check(index, docs, vectors, rng, rounds: int, k: int = 10) -> None:
    ids = np.asarray([d["id"] for d in docs])
    at = {d["id"]: i for i, d in enumerate(docs)}
    meta = [d["metadata"] for d in docs]
    lexical = getattr(index, "lexical", None)
    for readers in reader_sets(rng, rounds):
        seen = np.asarray([visible(m, frozenset(readers)) for m in meta])
        query = " ".join(rng.choice(WORDS, size=3).tolist())
        # dense: exact inner products over the visible vectors
        qv = index.encoder.encode([query], prompt="query")[0]
        scores = vectors[seen] @ qv
        order = np.argsort(-scores, kind="stable")[:k]
        hits = index.search(query, k=k, readers=readers)
        assert len(hits) == min(k, int(seen.sum())), readers
        assert [h.doc_id for h in hits] == ids[seen][order].tolist(), (readers, query)
        np.testing.assert_allclose([h.score for h in hits], scores[order], atol=1e-4)
        # lexical: BM25 over every document, the hidden struck out after scoring
        got = index.search(query, k=k, mode="lexical", readers=readers)
        assert all(seen[at[h.doc_id]] for h in got), readers
        if lexical is not None:  # chunk c is document p{c} (one chunk each, in corpus order)
            every = lexical.search([query], len(lexical))[0]
            want = [(f"p{c:04d}", s) for c, s in every
                    if f"p{c:04d}" in at and seen[at[f"p{c:04d}"]]][:k]
            assert len(got) == len(want), (readers, query)
            np.testing.assert_allclose([h.score for h in got], [s for _, s in want], rtol=1e-5)
            assert {h.doc_id for h in got if h.score > want[-1][1] + 1e-6} == \
                {d for d, s in want if s > want[-1][1] + 1e-6}
        # hybrid and filtered: only visible documents, k filled when k exist
        mixed = index.search(query, k=k, mode="hybrid", readers=readers, filter={"n": 3})
        allowed = seen & np.asarray([m["n"] == 3 for m in meta])
        assert all(allowed[at[h.doc_id]] for h in mixed)
        assert len(mixed) == min(k, int(allowed.sum())), readers
        assert index.counts(readers=readers)["documents"] == int(seen.sum())


@pytest.mark.parametrize("share", [1.0, 0.0], ids=["exact-for-few", "bitmap-selector"])
def test_folder_hits_equal_an_exact_search_over_the_visible(world, tmp_path, tiny_encoder,
                                                            monkeypatch, share):
    docs, vectors, rng = world
    monkeypatch.setattr(allowed_module, "FEW_SHARE", share)
    build_index(docs, tmp_path / "p", model=tiny_encoder, preset="flat", vectors=vectors)
    index = SemanticIndex.open(tmp_path / "p", encoder=tiny_encoder)
    check(index, docs, vectors, rng, rounds=25)
    # a writer's unsaved copy matches access in SQLite
    index.delete(["p0000"])
    rest = docs[1:]
    check(index, rest, vectors[1:], rng, rounds=8)


def test_milvus_hits_equal_an_exact_search_over_the_visible(world, tmp_path, tiny_encoder):
    pytest.importorskip("milvus_lite")
    docs, vectors, rng = world
    where = f"milvus://{tmp_path}/p.db?collection=p"
    build_index(docs, where, model=tiny_encoder, preset="flat", vectors=vectors)
    index = SemanticIndex.open(where, encoder=tiny_encoder)
    check(index, docs, vectors, rng, rounds=6)
    index.close()
