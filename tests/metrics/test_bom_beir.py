"""BEIR files saved with a UTF-8 byte-order mark read like those without."""

from __future__ import annotations

from metrics import load_beir, read_queries

BOM = b"\xef\xbb\xbf"


def test_a_beir_folder_of_files_with_a_bom(tmp_path):
    (tmp_path / "qrels").mkdir()
    (tmp_path / "corpus.jsonl").write_bytes(BOM + b'{"_id": "d1", "text": "cats"}\n'
                                            b'{"_id": "d2", "text": "dogs"}\n')
    (tmp_path / "queries.jsonl").write_bytes(BOM + b'{"_id": "q1", "text": "cat?"}\n')
    (tmp_path / "qrels" / "test.tsv").write_bytes(BOM + b"query-id\tcorpus-id\tscore\n"
                                                  b"q1\td1\t1\n")
    corpus, queries, qrels = load_beir(tmp_path, "test")
    assert set(corpus) == {"d1", "d2"} and queries == {"q1": "cat?"}
    assert qrels == {"q1": {"d1": 1}}
    assert read_queries(tmp_path / "queries.jsonl") == {"q1": "cat?"}
