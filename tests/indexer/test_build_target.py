"""Where a build may go, checked before anything is read, encoded or written: a damaged index
is rebuilt in place (the advice its error gives works), anything else that is not ours is
refused naming the folder, and a build racing another writer is refused without losing work."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from indexer import (
    ConcurrentWriteError,
    CorruptIndexError,
    IndexerError,
    SemanticIndex,
    build_index,
)
from indexer.cli import main


def _listing(path: Path) -> list[str]:
    return sorted(p.name for p in path.iterdir())


def _private(path: Path) -> list[str]:
    return [n for n in _listing(path) if n.startswith((".staging-", ".build-"))]


def _break(path: Path, how: str) -> None:
    manifest = json.loads((path / "manifest.json").read_text())
    if how == "unreadable manifest":
        (path / "manifest.json").write_text("{half a manif")
    elif how == "empty manifest":
        (path / "manifest.json").write_bytes(b"")
    elif how == "missing sqlite":
        (path / manifest["files"]["sqlite"]["path"]).unlink()
    else:  # a damaged FAISS file
        faiss_file = path / manifest["files"]["faiss"]["path"]
        faiss_file.write_bytes(faiss_file.read_bytes()[:64])


@pytest.mark.parametrize("how", ["unreadable manifest", "empty manifest", "missing sqlite",
                                 "truncated faiss"])
def test_a_damaged_index_is_rebuilt_in_place(flat_index, tiny_encoder, docs, how):
    _break(flat_index, how)
    with pytest.raises(CorruptIndexError):
        SemanticIndex.open(flat_index)
    build_index(docs[:7], flat_index, model=tiny_encoder, preset="flat")
    again = SemanticIndex.open(flat_index, encoder=tiny_encoder)
    assert len(again) == 7 and not _private(flat_index)
    assert again.stats().version >= 2  # above every version the folder held


def test_the_advice_of_a_corrupt_index_works(flat_index, tmp_path, tiny_model_dir, capsys):
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("".join(json.dumps({"id": f"x{i}", "text": f"text {i}"}) + "\n"
                              for i in range(4)))
    _break(flat_index, "truncated faiss")
    assert main(["info", str(flat_index)]) == 1
    advice = capsys.readouterr().err
    assert f"python -m indexer build --corpus PATH --out {flat_index}" in advice
    assert main(["build", "--corpus", str(corpus), "--out", str(flat_index), "--model",
                 str(tiny_model_dir)]) == 0
    capsys.readouterr()
    assert main(["info", str(flat_index)]) == 0
    assert json.loads(capsys.readouterr().out)["documents"] == 4


REFUSED = {
    "a foreign manifest.json": (lambda p: (p / "manifest.json").write_text('{"name": "x"}'),
                                "holds a manifest.json that is not a BERTScope index"),
    "an unreadable foreign manifest": (lambda p: (p / "manifest.json").write_text("{oops"),
                                       "holds a manifest.json that is not a BERTScope index"),
    "other files": (lambda p: (p / "notes.txt").write_text("mine"),
                    "is not empty and is not a BERTScope index \\(notes.txt\\)"),
    "a newer index": (lambda p: (p / "manifest.json").write_text(json.dumps(
        {"format": "bertscope-index", "format_version": 99})), "written by a newer BERTScope"),
}


@pytest.mark.parametrize("case", list(REFUSED))
def test_a_folder_that_is_not_ours_is_refused_before_anything_else(tmp_path, case):
    out = tmp_path / "out"
    out.mkdir()
    make, match = REFUSED[case]
    make(out)
    before = _listing(out)
    with pytest.raises(IndexerError, match=match) as caught:  # before the corpus and the model
        build_index(tmp_path / "no-such-corpus.jsonl", out, model="no-such-model")
    assert str(out) in str(caught.value)
    assert _listing(out) == before  # no lock file, no staging or build folder


def test_a_file_as_the_output_is_refused(tmp_path):
    (tmp_path / "out").write_text("x")
    with pytest.raises(IndexerError, match="is a file"):
        build_index(tmp_path / "missing.jsonl", tmp_path / "out", model="no-such-model")


def test_the_cli_refuses_a_non_empty_folder_naming_it(tmp_path, capsys):
    out = tmp_path / "photos"
    out.mkdir()
    (out / "cat.jpg").write_bytes(b"\xff\xd8")
    corpus = tmp_path / "c.jsonl"
    corpus.write_text('{"id": "a", "text": "b"}\n')
    assert main(["build", "--corpus", str(corpus), "--out", str(out), "--model", "nope"]) == 1
    err = capsys.readouterr().err
    assert f"{out} is not empty and is not a BERTScope index (cat.jpg)" in err
    assert _listing(out) == ["cat.jpg"]


def test_a_build_racing_a_save_is_refused_and_resumes(flat_index, tiny_encoder, docs):
    raced = []

    def save_meanwhile(p):
        if p.stage == "encode" and not raced:
            other = SemanticIndex.open(flat_index, encoder=tiny_encoder)
            other.delete(["d000"])
            other.save()
            raced.append(True)

    new_docs = [{"id": f"n{i}", "text": f"new story {i}"} for i in range(40)]
    with pytest.raises(ConcurrentWriteError, match="changed while this build ran.*run the build "
                       "again"):
        build_index(new_docs, flat_index, model=tiny_encoder, preset="flat", shard_size=8,
                    progress=save_meanwhile)
    assert len(SemanticIndex.open(flat_index)) == 59  # the save was not lost
    assert [n for n in _private(flat_index) if n.startswith(".build-")]  # shards kept
    reports = []
    build_index(new_docs, flat_index, model=tiny_encoder, preset="flat", shard_size=8,
                progress=reports.append)
    assert [p for p in reports if p.stage == "encode"][-1].resumed == 40
    assert len(SemanticIndex.open(flat_index)) == 40 and not _private(flat_index)


def test_a_failed_first_build_leaves_no_folder(tmp_path, tiny_encoder, docs, monkeypatch):
    import indexer.build

    def broken(*args, **kwargs):
        raise RuntimeError("injected encoding failure")

    monkeypatch.setattr(indexer.build, "encode_resumable", broken)
    with pytest.raises(RuntimeError, match="injected"):
        build_index(docs, tmp_path / "new", model=tiny_encoder)
    assert not (tmp_path / "new").exists()


def test_a_failed_rebuild_leaves_the_index_and_no_debris(flat_index, tiny_encoder, docs,
                                                         monkeypatch):
    import indexer.folder.publish

    before = _listing(flat_index)
    monkeypatch.setattr(indexer.folder.publish, "add_rows", lambda *a: 1 / 0)  # encoded
    with pytest.raises(ZeroDivisionError):
        build_index(docs[:5], flat_index, model=tiny_encoder, shard_size=10_000)
    assert len(SemanticIndex.open(flat_index)) == 60
    assert [n for n in _listing(flat_index) if n not in before] == \
        [n for n in _listing(flat_index) if n.startswith(".build-")]  # only the shards, kept
    monkeypatch.undo()
    build_index(docs[:5], flat_index, model=tiny_encoder, shard_size=10_000)
    assert not _private(flat_index) and len(SemanticIndex.open(flat_index)) == 5


def test_a_folder_named_like_a_uri_is_a_folder(tmp_path, tiny_encoder, docs):
    """SQLite opens a published store by URI: `?`, `#` and `%` in the folder's name are quoted
    (unquoted, `Q&A #3? 100%` opened a file cut at the `?` and found no tables)."""
    out = tmp_path / "Q&A #3? 100%" / "idx"
    build_index(docs[:5], out, model=tiny_encoder, preset="flat")
    index = SemanticIndex.open(out, encoder=tiny_encoder)
    assert len(index) == 5 and index.search("cats purr", k=1)
