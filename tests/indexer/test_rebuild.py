"""`rebuild_index` / `python -m indexer rebuild`: the same documents, metadata and chunking
encoded by another model into another folder; resumable; bad inputs refused in one line."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from indexer import IndexerError, SemanticIndex, build_index, rebuild_index
from indexer.folder import db


@pytest.fixture(scope="module")
def other_encoder(other_model_dir):
    from encoder import load_encoder

    return load_encoder(other_model_dir)


@pytest.fixture
def source(tmp_path, tiny_encoder, docs) -> Path:
    """An index with a skipped row, a deleted document and one upserted after the build."""
    corpus = tmp_path / "corpus.jsonl"
    rows = [json.dumps({"id": d["id"], "title": d["title"], "text": d["text"], **d["metadata"]})
            for d in docs[:20]]
    corpus.write_text("\n".join([*rows, '{"id": "bad", "text": ""}']) + "\n", encoding="utf-8")
    out = tmp_path / "source"
    build_index(corpus, out, model=tiny_encoder, preset="flat")
    index = SemanticIndex.open(out, encoder=tiny_encoder)
    index.delete(["d003"])
    index.upsert([{"id": "d001", "text": "cats purr, replaced", "metadata": {"topic": 9}}])
    index.save()
    return out


def _documents(path: Path) -> list:
    return list(db.all_documents(SemanticIndex.open(path).conn))


def test_rebuild_keeps_documents_metadata_chunking_and_changes_the_fingerprint(
        source, tmp_path, other_encoder, tiny_encoder):
    out = tmp_path / "rebuilt"
    new = rebuild_index(source, out, model=other_encoder)
    old = SemanticIndex.open(source)
    assert _documents(out) == _documents(source)  # ids, titles, texts, metadata, order
    assert "d003" not in {d.id for d in _documents(out)} and len(new) == 19
    a, b = old.manifest, new.manifest
    for key in ("chunking", "source", "rows", "duplicates", "skipped", "preset",
                "metadata_fields"):
        assert b[key] == a[key], key
    assert b["skipped"] and b["skipped"][0]["reason"]  # the source's bad row, still reported
    assert a["encoder"]["fingerprint"] == tiny_encoder.fingerprint
    assert b["encoder"]["fingerprint"] == other_encoder.fingerprint != tiny_encoder.fingerprint
    assert (a["dim"], b["dim"]) == (32, 48)
    hits = SemanticIndex.open(out).search("cats purr", k=3)  # the new encoder, loaded by path
    assert hits and all(h.text == new.document(h.doc_id).text[h.start:h.end] for h in hits)
    assert old.manifest == SemanticIndex.open(source).manifest  # the source is only read


def test_rebuild_resumes_after_an_interruption(source, tmp_path, other_encoder):
    out = tmp_path / "rebuilt"

    def stop_after_two_shards(p):
        if p.stage == "encode" and len(list(out.glob(".build-*/shard-*.npy"))) >= 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        rebuild_index(source, out, model=other_encoder, shard_size=4,
                      progress=stop_after_two_shards)
    assert not (out / "manifest.json").exists()
    written = len(list(out.glob(".build-*/shard-*.npy")))
    assert written >= 2

    reports = []
    rebuild_index(source, out, model=other_encoder, shard_size=4, progress=reports.append)
    encode = [p for p in reports if p.stage == "encode"]
    assert encode[-1].resumed >= 1 and encode[-1].chunks == encode[-1].chunks_total
    assert not list(out.glob(".build-*"))

    fresh = rebuild_index(source, tmp_path / "fresh", model=other_encoder, shard_size=4)
    resumed = SemanticIndex.open(out, encoder=other_encoder)
    ids = db.live_chunk_ids(fresh.conn)
    assert ids == db.live_chunk_ids(resumed.conn)
    np.testing.assert_array_equal(np.vstack([resumed.vectors.reconstruct(i) for i in ids]),
                                  np.vstack([fresh.vectors.reconstruct(i) for i in ids]))


def test_rebuild_keeps_the_chunk_spans_even_past_the_new_window_and_says_so(
        tmp_path, tiny_encoder, other_encoder, docs, caplog):
    """The source's chunks are kept span for span (a compare view sets the same chunks side by
    side); a chunk longer than the new model reads is kept whole and counted; `chunk_tokens`
    re-chunks instead, within the new window only."""
    src = tmp_path / "src"
    long = [{**d, "text": " ".join([d["text"]] * 6)} for d in docs[:5]]
    old = build_index(long, src, model=tiny_encoder, preset="flat",
                      chunking=__import__("indexer").ChunkingConfig(chunk_tokens=64))
    kept = rebuild_index(src, tmp_path / "kept", model=other_encoder)
    ids = old.doc_ids()
    assert kept.stored(ids).chunks and \
        [c[:4] for c in kept.stored(ids).chunks] == [c[:4] for c in old.stored(ids).chunks]
    over = kept.manifest["build"]["chunks_truncated"]
    assert over > 0 and f"{over} of {len(old.stored(ids).chunks)} kept chunks" in caplog.text
    assert kept.manifest["chunking"]["chunk_tokens"] == 48  # what the model reads, for adds
    with pytest.raises(IndexerError, match="chunk_tokens=64 is more than .* reads \\(48\\)"):
        rebuild_index(src, tmp_path / "out", model=other_encoder, chunk_tokens=64)
    assert not (tmp_path / "out").exists()
    new = rebuild_index(src, tmp_path / "out", model=other_encoder, chunk_tokens=48)
    assert new.manifest["chunking"] == {"chunk_tokens": 48, "overlap": 32,
                                        "title_in_chunk": True}
    assert new.counts()["chunks"] > kept.counts()["chunks"]
    assert "chunks_truncated" not in new.manifest["build"]


def test_rebuild_cli(run_cli, flat_index, tmp_path, other_model_dir):
    out = tmp_path / "rebuilt"
    run = run_cli("indexer", "rebuild", flat_index, "--model", other_model_dir, "--out", out,
                  "--index", "hnsw", "--threads", "1")
    assert run.code == 0, run
    assert f"rebuilt {flat_index} into {out}: 60 documents" in run.out
    assert "preset hnsw" in run.out and " -> " in run.out
    assert "encode" in run.err  # the progress bar
    assert SemanticIndex.open(out).manifest["preset"] == "hnsw"


@pytest.mark.parametrize("argv, code, message", [
    (["{SRC}", "--model", "{MODEL}", "--out", "{SRC}"], 1, "is the source index itself"),
    (["{SRC}", "--model", "{MODEL}", "--out", "{SRC}/inner"], 1, "inside the source index"),
    (["{TMP}/nope", "--model", "{MODEL}", "--out", "{TMP}/o"], 1, "nope"),
    (["{TMP}", "--model", "{MODEL}", "--out", "{TMP}/o"], 1, "manifest.json"),
    (["{SRC}", "--model", "{TMP}/no-model", "--out", "{TMP}/o"], 1, "no-model"),
    (["{SRC}", "--out", "{TMP}/o"], 2, "--model"),
    (["{SRC}", "--model", "{MODEL}"], 2, "--out"),
    (["{SRC}", "--model", "{MODEL}", "--out", "{TMP}/o", "--index", "fast"], 2, "--index"),
    (["{SRC}", "--model", "{MODEL}", "--out", "{TMP}/o", "--chunk-tokens", "0"], 2,
     "--chunk-tokens"),
    (["{SRC}", "--model", "{MODEL}", "--out", "{TMP}/o", "--chunk-tokens", "500"], 1,
     "chunk_tokens <= 48"),
    (["{SRC}", "--model", "{MODEL}", "--out", "{SRC}/manifest.json"], 1, "inside the source"),
    (["{SRC}", "--model", "{MODEL}", "--out", "{TMP}/file.txt"], 1, "is a file"),
])
def test_rebuild_cli_bad_input(run_cli, flat_index, tmp_path, other_model_dir, argv, code,
                               message):
    (tmp_path / "file.txt").write_text("a file, not a folder\n")
    args = [a.replace("{SRC}", str(flat_index)).replace("{TMP}", str(tmp_path))
            .replace("{MODEL}", str(other_model_dir)) for a in argv]
    run = run_cli("indexer", "rebuild", *args)
    assert run.code == code, run
    assert message in run.error, run
    assert not (tmp_path / "o" / "manifest.json").exists()
