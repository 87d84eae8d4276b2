"""An index's BM25 k1 and b: chosen at build, kept in the manifest, used by every later version
(after add / save, on reopening, by rebuild)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from indexer import Bm25Params, SemanticIndex, build_index, rebuild_index

# "apple" once in a one-word document, and three times in a longer one: with no length
# normalisation (b=0) the repeats win, with the default (b=0.75) the short document does
DOCS = [{"id": "short", "text": "apple"},
        {"id": "long", "text": "apple apple apple " + " ".join(f"filler{i}" for i in range(10))},
        *({"id": f"other{i}", "text": f"pear other{i}"} for i in range(6))]


def lexical_ranking(index: SemanticIndex) -> list[str]:
    return [h.doc_id for h in index.search(["apple"], k=2, mode="lexical")[0]]


@pytest.fixture
def no_length_norm(tmp_path, tiny_encoder) -> Path:
    out = tmp_path / "b0"
    build_index(DOCS, out, model=tiny_encoder, preset="flat", bm25=Bm25Params(1.5, 0.0))
    return out


def test_the_build_parameters_rank_and_are_recorded(no_length_norm, tmp_path, tiny_encoder):
    default = build_index(DOCS, tmp_path / "default", model=tiny_encoder, preset="flat")
    assert lexical_ranking(default) == ["short", "long"]
    assert default.manifest["bm25"] == {"k1": 1.5, "b": 0.75}
    index = SemanticIndex.open(no_length_norm, encoder=tiny_encoder)
    assert lexical_ranking(index) == ["long", "short"]
    assert index.manifest["bm25"] == {"k1": 1.5, "b": 0.0}
    assert index.stats().bm25 == {"k1": 1.5, "b": 0.0}  # what `python -m indexer info` shows


def test_later_versions_score_with_the_index_parameters(no_length_norm, tiny_encoder):
    index = SemanticIndex.open(no_length_norm, encoder=tiny_encoder)
    index.add([{"id": "new", "text": "plum"}])  # BM25 is rebuilt from the store on save
    assert lexical_ranking(index) == ["long", "short"]
    index.save()
    reopened = SemanticIndex.open(no_length_norm, encoder=tiny_encoder)
    assert reopened.manifest["bm25"] == {"k1": 1.5, "b": 0.0}
    assert lexical_ranking(reopened) == ["long", "short"]


def test_rebuild_keeps_the_parameters(no_length_norm, tmp_path, other_model_dir):
    rebuilt = rebuild_index(no_length_norm, tmp_path / "rebuilt", model=other_model_dir)
    assert rebuilt.manifest["bm25"] == {"k1": 1.5, "b": 0.0}
    assert lexical_ranking(rebuilt) == ["long", "short"]


def test_an_index_from_before_the_parameters_uses_the_defaults(no_length_norm, tiny_encoder):
    manifest = no_length_norm / "manifest.json"
    data = json.loads(manifest.read_text())
    del data["bm25"]
    manifest.write_text(json.dumps(data))
    index = SemanticIndex.open(no_length_norm, encoder=tiny_encoder)
    index._lexical = None  # as when the saved BM25 files are rebuilt from the store
    assert lexical_ranking(index) == ["short", "long"]


@pytest.mark.parametrize("bm25", [{"k1": 1.2}, {}, (0.6, 0.75)])
def test_build_refuses_what_is_not_bm25_parameters(tmp_path, tiny_encoder, bm25):
    with pytest.raises(TypeError, match="Bm25Params"):
        build_index(DOCS, tmp_path / "o", model=tiny_encoder, bm25=bm25)
    assert not (tmp_path / "o").exists()


def test_cli_build_flags(run_cli, tmp_path, tiny_model_dir):
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("".join(json.dumps(d) + "\n" for d in DOCS))
    out = tmp_path / "cli"
    run = run_cli("indexer", "build", "--corpus", corpus, "--out", out, "--model", tiny_model_dir,
                  "--bm25-k1", "0.6", "--bm25-b", "0.3")
    assert run.code == 0, run
    assert SemanticIndex.open(out).manifest["bm25"] == {"k1": 0.6, "b": 0.3}


@pytest.mark.parametrize("flags, code, message", [
    (["--bm25-k1", "-1"], 2, "--bm25-k1: must be >= 0"),
    (["--bm25-k1", "nan"], 2, "--bm25-k1: must be a finite number"),
    (["--bm25-b", "many"], 2, "--bm25-b: 'many' is not a number"),
    (["--bm25-b", "2"], 1, "0 <= b <= 1"),
])
def test_cli_bad_bm25_flags(run_cli, tmp_path, tiny_model_dir, flags, code, message):
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("".join(json.dumps(d) + "\n" for d in DOCS))
    run = run_cli("indexer", "build", "--corpus", corpus, "--out", tmp_path / "o", "--model",
                  tiny_model_dir, *flags)
    assert run.code == code, run
    assert message in run.error, run
    assert not (tmp_path / "o" / "manifest.json").exists()
