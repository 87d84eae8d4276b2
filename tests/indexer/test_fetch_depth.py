"""How deep a folder index's first FAISS fetch goes for `k` documents: 4x k where documents have
several chunks (their chunks crowd the top), k where each has one (4x only made the search, and
an ivfpq-disk re-ranking, 4x as deep). The hits are the same either way: exact search says so."""

from __future__ import annotations

import pytest

from indexer import ChunkingConfig, build_index
from indexer.folder.store import VectorSegments

WORDS = "apple pear river stone cloud market engine violin garden harbour".split()


def _docs(n: int, words: int) -> list[dict]:
    return [{"id": f"d{i}", "text": " ".join(WORDS[(i * 7 + j * 3) % len(WORDS)] + str(j % 5)
                                            for j in range(words))} for i in range(n)]


@pytest.fixture
def fetched(monkeypatch) -> list[int]:
    seen: list[int] = []
    search = VectorSegments.search

    def recording(self, x, k, **kw):
        seen.append(k)
        return search(self, x, k, **kw)

    monkeypatch.setattr(VectorSegments, "search", recording)
    return seen


@pytest.mark.parametrize(("words", "factor"), [(6, 1), (300, 4)])
def test_the_first_fetch_follows_the_chunks_per_document(tiny_encoder, tmp_path, fetched,
                                                         words, factor):
    index = build_index(_docs(60, words), tmp_path / "ix", model=tiny_encoder, preset="flat",
                        chunking=ChunkingConfig(chunk_tokens=32, overlap=0))
    counts = index.counts()
    assert (counts["chunks"] == counts["documents"]) == (factor == 1)
    query = "river stone violin"
    hits = index.search(query, k=20, mode="dense")
    assert fetched[0] == factor * 20
    exact = index.search(query, k=20, mode="dense", per_chunk=True)  # flat: exact chunks
    if factor == 1:  # one chunk each: the per-chunk ranking is the per-document one
        assert [h.chunk_id for h in hits] == [h.chunk_id for h in exact]
    assert len({h.doc_id for h in hits}) == len(hits) == 20
