"""`python -m indexer sync FOLDER INDEX`: the first run builds, later runs add, re-encode and
remove only what changed (nothing re-encoded for unchanged or merely touched files), print
`added A, updated U, removed R, unchanged N` and the failed files; after a real kill -9 in the
middle of a sync, a rerun leaves the index equal to a fresh build. On both stores."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bench.kit.docwriters import write_docx, write_html, write_markdown, write_pdf
from indexer import ChunkingConfig, SemanticIndex, build_index
from indexer.sync import sync_folder

pytest.importorskip("reportlab")

REPO = Path(__file__).resolve().parents[2]
CHUNKING = ChunkingConfig(chunk_tokens=64, overlap=8)
WORDS = ["cats purr on the sofa", "stocks fell on Monday", "the team won the final",
         "penguins huddle in winter", "rain is expected tomorrow"]


def passages(seed: int, n: int = 2) -> list[tuple[str, str]]:
    return [(f"Part {seed}.{i}", " ".join(f"{WORDS[(seed + i + j) % 5]} ({seed}, {j})."
                                         for j in range(10))) for i in range(n)]


def make_folder(root: Path, n: int = 8, salt: int = 0) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "sub").mkdir(exist_ok=True)
    writers = [lambda p, s: write_pdf(p.with_suffix(".pdf"), passages(s)),
               lambda p, s: write_docx(p.with_suffix(".docx"), passages(s), title=f"D{s}"),
               lambda p, s: write_html(p.with_suffix(".html"), passages(s), title=f"H{s}"),
               lambda p, s: write_markdown(p.with_suffix(".md"), passages(s), title=f"M{s}")]
    for i in range(n):
        writers[i % 4](root / ("sub" if i % 3 else ".") / f"f{i}", i + salt)
    return root


def content(target, encoder) -> tuple:
    """What an index holds: documents whole, and every chunk (document, span, metadata)."""
    index = SemanticIndex.open(target, encoder=encoder)
    try:
        docs = sorted((d.id, d.title, d.text, sorted(d.metadata.items(), key=str))
                      for d in index.all_documents())
        n = index.counts()["chunks"]
        chunks = sorted((h.doc_id, h.start, h.end, sorted(h.metadata.items(), key=str))
                        for h in index.search("cats stocks penguins", k=n, per_chunk=True))
        return docs, chunks
    finally:
        if hasattr(index, "close"):
            index.close()


def same_content(target, fresh, encoder) -> None:
    (docs, chunks), (want_docs, want_chunks) = content(target, encoder), content(fresh, encoder)
    assert [d[0] for d in docs] == [d[0] for d in want_docs]
    for got, want in zip(docs, want_docs, strict=True):
        assert got == want, got[0]
    assert chunks == want_chunks


def count_passages(monkeypatch, encoder) -> list[int]:
    """[passages the encoder encodes from now on] (its encode wrapped for this test)."""
    seen = [0]
    encode = encoder.encode

    def counting(texts, *args, **kwargs):
        if kwargs.get("prompt") == "passage":
            seen[0] += len(texts)
        return encode(texts, *args, **kwargs)

    monkeypatch.setattr(encoder, "encode", counting)
    return seen


@pytest.mark.parametrize("store", ["folder", "milvus"])
def test_sync_adds_updates_removes_and_equals_a_fresh_build(tmp_path, tiny_encoder, store,
                                                            monkeypatch):
    if store == "milvus":
        pytest.importorskip("milvus_lite")
        target, fresh = (f"milvus://{tmp_path}/s.db?collection={c}" for c in ("s", "fresh"))
    else:
        target, fresh = str(tmp_path / "idx"), str(tmp_path / "fresh")
    root = make_folder(tmp_path / "docs")
    (root / "scan.pdf").write_bytes(b"%PDF-1.4 no pages\n%%EOF")
    first = sync_folder(root, target, model=tiny_encoder, preset="flat", chunking=CHUNKING)
    assert first.created and len(first.added) == 8
    assert [rel for rel, _ in first.failed] == ["scan.pdf"]

    encoded = count_passages(monkeypatch, tiny_encoder)
    again = sync_folder(root, target, model=tiny_encoder)
    assert (again.summary(), encoded[0]) == (
        "added 0, updated 0, removed 0, unchanged 8", 0)
    assert [rel for rel, _ in again.failed] == ["scan.pdf"]

    write_markdown(root / "new.md", passages(20), title="New")              # added
    write_markdown(root / "sub" / "f7.md", passages(21), title="Changed")   # updated
    (root / "sub" / "f2.html").unlink()                                      # removed
    touched = root / "f0.pdf"                                                # same content
    os.utime(touched, ns=(touched.stat().st_atime_ns, touched.stat().st_mtime_ns + 10**9))
    report = sync_folder(root, target, model=tiny_encoder)
    assert report.summary() == "added 1, updated 1, removed 1, unchanged 6"
    assert (report.added, report.updated, report.removed) == (["new.md"], ["sub/f7.md"],
                                                              ["sub/f2.html"])
    assert encoded[0] > 0

    os.utime(touched, ns=(touched.stat().st_atime_ns, touched.stat().st_mtime_ns - 10**9))
    build_index(str(root), fresh, model=tiny_encoder, preset="flat", chunking=CHUNKING)
    same_content(target, fresh, tiny_encoder)


SYNC_THEN_WAIT = """
import sys
from indexer import ChunkingConfig
from indexer.folder.writes import FolderWrites
from indexer.milvus.index import MilvusIndex
from indexer.sync import sync_folder
folder, target, model, where = sys.argv[1:5]
def waiting(method):
    calls = []
    def wrapped(self, *args, **kwargs):
        calls.append(1)
        if len(calls) == 2:  # the second batch: the first one is saved
            print("ready", flush=True)
            sys.stdin.read()  # blocks until the test kills this process
        return method(self, *args, **kwargs)
    return wrapped
if where == "upsert":
    FolderWrites.upsert = waiting(FolderWrites.upsert)
    MilvusIndex.upsert = waiting(MilvusIndex.upsert)
else:  # Milvus, between a document's chunk rows and its document rows
    MilvusIndex._insert = waiting(MilvusIndex._insert)
sync_folder(folder, target, model=model, preset="flat", batch_files=2,
            chunking=ChunkingConfig(chunk_tokens=64, overlap=8))
print("finished", flush=True)
"""


def _kill_at(tmp_path, folder, target, model_dir, where: str) -> None:
    script = tmp_path / "sync_then_wait.py"
    script.write_text(SYNC_THEN_WAIT)
    env = {**os.environ, "PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1", "OMP_NUM_THREADS": "1"}
    proc = subprocess.Popen([sys.executable, str(script), str(folder), target, str(model_dir),
                             where], env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True)
    assert proc.stdout.readline().strip() == "ready", "the sync ended before it could be killed"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL


@pytest.mark.slow
@pytest.mark.parametrize("store", ["folder", "milvus"])
def test_kill_9_mid_sync_then_rerun_equals_a_fresh_build(tmp_path, tiny_encoder, tiny_model_dir,
                                                        run_cli, store):
    if store == "milvus":
        pytest.importorskip("milvus_lite")
        target, fresh = (f"milvus://{tmp_path}/k.db?collection={c}" for c in ("k", "fresh"))
    else:
        target, fresh = str(tmp_path / "idx"), str(tmp_path / "fresh")
    root = make_folder(tmp_path / "docs", n=4)
    model = str(tiny_model_dir)
    flags = ("--model", model, "--index", "flat", "--chunk-tokens", "64", "--overlap", "8")
    # processes of their own throughout: milvus-lite serves one process per .db file
    assert run_cli("indexer", "sync", str(root), target, *flags, process=True).code == 0
    shutil.rmtree(root)
    make_folder(root, n=10, salt=50)  # the 4 files with other content, and 6 new ones
    for i in range(4):
        write_markdown(root / f"extra{i}.md", passages(30 + i), title=f"E{i}")
    _kill_at(tmp_path, root, target, model, "upsert")          # mid-sync, first batch saved
    if store == "milvus":  # a document's chunk rows written, its document rows not
        _kill_at(tmp_path, root, target, model, "insert")
    # a kill at a moment the clock picks, on the real command line
    proc = subprocess.Popen([sys.executable, "-m", "indexer", "sync", str(root), target,
                             *flags], env={**os.environ, "PYTHONPATH": str(REPO),
                                           "HF_HUB_OFFLINE": "1"},
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(6)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    rerun = run_cli("indexer", "sync", str(root), target, *flags, process=True)
    assert rerun.code == 0, rerun
    assert rerun.out.startswith("added "), rerun
    done = run_cli("indexer", "sync", str(root), target, *flags, process=True)
    assert done.out.strip() == "added 0, updated 0, removed 0, unchanged 14", done
    build_index(str(root), fresh, model=tiny_encoder, preset="flat", chunking=CHUNKING)
    same_content(target, fresh, tiny_encoder)


def test_cli_sync_summary_failures_and_cited_search(tmp_path, tiny_model_dir, run_cli):
    root = make_folder(tmp_path / "docs", n=4)
    (root / "empty.md").write_bytes(b"")
    out = tmp_path / "idx"
    flags = ("--model", str(tiny_model_dir), "--chunk-tokens", "64")
    first = run_cli("indexer", "sync", str(root), str(out), *flags)
    assert first.code == 0, first
    assert first.out.strip() == f"added 4, updated 0, removed 0, unchanged 0 (built {out})"
    assert "failed empty.md: empty file (0 bytes)" in first.err
    again = run_cli("indexer", "sync", str(root), str(out))
    assert again.out.strip() == "added 0, updated 0, removed 0, unchanged 4"
    assert again.err.strip().splitlines()[-1] == "failed empty.md: empty file (0 bytes)"
    found = run_cli("indexer", "search", str(out), "penguins huddle", "--per-chunk",
                    "--mode", "lexical")
    assert found.code == 0 and "f0.pdf, p. " in found.out and "§ " in found.out, found
    other = run_cli("indexer", "sync", str(root), str(out), "--model", "e5-multilingual")
    assert other.code == 1 and "was built with" in other.error


def test_an_unreadable_subfolder_keeps_its_documents(tmp_path, tiny_encoder, monkeypatch):
    import common.documents.folder as folder

    root = make_folder(tmp_path / "docs", n=4)
    out = tmp_path / "idx"
    sync_folder(root, out, model=tiny_encoder, chunking=CHUNKING)
    real = folder.os.scandir

    def refusing(path):
        if str(path).endswith("/sub"):
            raise PermissionError(13, "Permission denied")
        return real(path)

    monkeypatch.setattr(folder.os, "scandir", refusing)
    report = sync_folder(root, out, model=tiny_encoder)
    assert report.summary() == "added 0, updated 0, removed 0, unchanged 2"
    assert report.failed[0][0] == "sub" and "check its permissions" in report.failed[0][1]
    assert len(SemanticIndex.open(out, encoder=tiny_encoder)) == 4
    def refusing_the_root(path):
        if str(path) == str(root):
            raise PermissionError(13, "Permission denied")
        return real(path)

    monkeypatch.setattr(folder.os, "scandir", refusing_the_root)
    with pytest.raises(ValueError, match="cannot read the folder"):
        sync_folder(root, out, model=tiny_encoder)
    monkeypatch.setattr(folder.os, "scandir", real)
    with pytest.raises(ValueError, match="would remove all 4 documents"):  # a glob's typo
        sync_folder(root, out, model=tiny_encoder, include=["*.dox"])
    assert len(SemanticIndex.open(out, encoder=tiny_encoder)) == 4


def test_a_file_the_index_refuses_is_a_failed_line(tmp_path, tiny_encoder):
    from indexer.validation import MAX_TEXT_CHARS

    root = tmp_path / "docs"
    root.mkdir()
    (root / "a.md").write_text("---\nversion: 3\n---\n# A\n\nfirst note\n")
    (root / "b.md").write_text("---\nversion: three\n---\n# B\n\nsecond note\n")
    out = tmp_path / "idx"
    first = sync_folder(root, out, model=tiny_encoder, chunking=CHUNKING)
    # one type a metadata field: the second file's version is reported, the first indexed
    assert first.added == ["a.md"] and first.failed[0][0] == "b.md"
    assert "metadata field 'version'" in first.failed[0][1]
    (root / "a.md").write_text("# A\n\n" + "long words here. " * (MAX_TEXT_CHARS // 16))
    (root / "c.md").write_text("# C\n\nthird note\n")
    report = sync_folder(root, out, model=tiny_encoder)
    assert report.summary() == "added 1, updated 0, removed 0, unchanged 0"
    failed = dict(report.failed)
    assert "a.md" in failed and f"{MAX_TEXT_CHARS:,}" in failed["a.md"] and "b.md" in failed
    assert sorted(SemanticIndex.open(out, encoder=tiny_encoder).doc_ids()) == ["a.md", "c.md"]
    # a long report (150,000 characters: over the service's 100,000 a write) updates as any file
    (root / "a.md").write_text("# A\n\n" + "a long report. " * 10_000)
    report = sync_folder(root, out, model=tiny_encoder)
    assert report.updated == ["a.md"] and "a.md" not in dict(report.failed)
