"""Training files saved with a UTF-8 byte-order mark (pairs, MLM text, recipes) read like
those without: the first row is kept."""

from __future__ import annotations

import pytest

from training.data_read import read_records
from training.mlm.texts import read_documents
from training.recipe import read_recipe_file

BOM = b"\xef\xbb\xbf"


@pytest.mark.parametrize("name,body", [
    ("p.jsonl", b'{"sentence1": "a", "sentence2": "b", "score": 1}\n'
                b'{"sentence1": "c", "sentence2": "d", "score": 0}\n'),
    ("p.csv", b"sentence1,sentence2,score\na,b,1\nc,d,0\n"),
    ("p.tsv", b"sentence1\tsentence2\tscore\na\tb\t1\nc\td\t0\n"),
])
def test_pairs_keep_their_first_row(tmp_path, name, body):
    path = tmp_path / name
    path.write_bytes(BOM + body)
    rows = [r for _, r in read_records(str(path), "train")]
    assert [r["sentence1"] for r in rows] == ["a", "c"]
    assert float(rows[0]["score"]) == 1


def test_mlm_text_loses_the_mark(tmp_path):
    path = tmp_path / "t.txt"
    path.write_bytes(BOM + "苹果好吃。\n\n苹果发布会。\n".encode())
    assert read_documents(path).texts == ["苹果好吃。", "苹果发布会。"]


@pytest.mark.parametrize("name,body", [("r.json", b'{"model": "minilm"}'),
                                       ("r.yaml", b"model: minilm\n")])
def test_a_recipe_with_a_bom_reads(tmp_path, name, body):
    path = tmp_path / name
    path.write_bytes(BOM + body)
    assert read_recipe_file(path)["model"] == "minilm"


def test_a_held_out_split_of_a_file_with_a_bom(tmp_path):
    import json

    from training.holdout import HoldoutSpec, materialise

    source = tmp_path / "d" / "dev.jsonl"
    source.parent.mkdir()
    rows = [{"sentence1": f"s{i}", "sentence2": f"t{i}", "score": i % 2} for i in range(20)]
    source.write_bytes(BOM + "".join(json.dumps(r) + "\n" for r in rows).encode())
    files = materialise(source, HoldoutSpec(1, {"heldout": 5}), tmp_path / "cache")
    got = [json.loads(x) for f in files.values() for x in f.read_text().splitlines()]
    assert sorted(r["sentence1"] for r in got) == sorted(r["sentence1"] for r in rows)
