"""The shared corpus readers (`common.corpus`) sit below the indexer and training: they import
neither, `import common` does not load them, and each caller's options pick its error class."""

from __future__ import annotations

import subprocess
import sys
from typing import ClassVar

import pytest

from common.corpus import CorpusError, CorpusOptions, Document, SkippedRow, read_corpus


def test_common_corpus_imports_neither_the_indexer_nor_training():
    code = ("import sys, common; light = 'common.corpus' not in sys.modules; "
            "import common.corpus; "
            "print(light, sorted({m.split('.')[0] for m in sys.modules} & "
            "{'indexer', 'training', 'encoder', 'torch'}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "True []"


class _Mine(ValueError):
    pass


class _Options(CorpusOptions):
    error: ClassVar[type[ValueError]] = _Mine


def test_the_options_class_chooses_the_error(tmp_path):
    with pytest.raises(CorpusError, match="corpus not found"):
        read_corpus(tmp_path / "nope.jsonl")
    with pytest.raises(_Mine, match="corpus not found"):
        read_corpus(tmp_path / "nope.jsonl", _Options())
    with pytest.raises(_Mine, match="Invalid on_error 'ignore'"):
        _Options(on_error="ignore")
    (tmp_path / "e.csv").write_text("")
    with pytest.raises(_Mine, match="e.csv is empty: a CSV/TSV corpus needs a header row"):
        read_corpus(tmp_path / "e.csv", _Options())
    (tmp_path / "bad.jsonl").write_text("not json\n")
    report = read_corpus(tmp_path / "bad.jsonl", _Options())
    assert isinstance(report.unusable("bad.jsonl"), _Mine)
    with pytest.raises(_Mine, match=r"bad.jsonl:1: malformed JSON .*on_error='skip'"):
        read_corpus(tmp_path / "bad.jsonl", _Options(on_error="fail"))


def test_the_indexer_errors_are_indexer_and_corpus_errors(tmp_path):
    import indexer

    assert issubclass(indexer.CorpusError, indexer.IndexerError)
    assert issubclass(indexer.CorpusError, CorpusError)
    with pytest.raises(indexer.CorpusError):
        indexer.read_corpus(tmp_path / "nope.jsonl")
    assert indexer.Document is Document and indexer.SkippedRow is SkippedRow  # one record type
