"""`python -m service`'s flags: a bad key file or port is one error line before anything starts;
with --workers 2 a write made through one worker is seen by every worker's next search."""

from __future__ import annotations

import os
import subprocess
import sys
from contextlib import contextmanager

import httpx
import pytest
from conftest import KEY, REPO, free_port, wait_ready

from service.cli import main


@pytest.mark.parametrize("argv, says", [
    (["--port", "70000"], "not a port"),
    (["--workers", "0"], "--workers"),
    (["--max-batch", "0"], "--max-batch"),
    (["--faiss-threads", "0"], "--faiss-threads"),
    (["--max-concurrent-requests", "-1"], "--max-concurrent-requests"),
    (["--idle-timeout", "0"], "--idle-timeout"),
    (["--request-timeout", "-3"], "--request-timeout"),
    (["--api-key-file", "{short}"], "at least 16 characters"),
    (["--api-key-file", "{missing}"], "--api-key-file"),
    # issue 52, class 7: each once broke a running server or named neither flag nor value
    (["--batching", "--batch-wait-ms", "inf"], "argument --batch-wait-ms: must be a finite"),
    (["--batch-wait-ms", "5000"], "argument --batch-wait-ms: must be <= 1000"),
    (["--idle-timeout", "1e-9"], "argument --idle-timeout: must be >= 0.5"),
    (["--request-timeout", "nan"], "argument --request-timeout: must be a finite"),
    (["--host", "not a host!"], "argument --host: 'not a host!' is neither"),
    (["--host", "999.1.1.1"], "argument --host"),
    (["--index-root", "{short}"], "--index-root {short} is a file"),
])
def test_bad_flags_are_one_error_line(tmp_path, capsys, argv, says):
    (tmp_path / "short").write_text("abc\n")
    names = {"short": tmp_path / "short", "missing": tmp_path / "none"}
    argv = [a.format(**names) for a in argv]
    with pytest.raises(SystemExit) as stopped:
        main(["--index-root", str(tmp_path), *argv])
    said = str(stopped.value) if stopped.value.code != 2 else capsys.readouterr().err
    assert "error: " in said and says.format(**names) in said, said


@pytest.mark.parametrize("changes, says", [
    ({"max_wait_ms": float("inf")}, "max_wait_ms"),
    ({"idle_timeout_s": 1e-9}, "idle_timeout_s"),
    ({"request_timeout_s": float("nan")}, "request_timeout_s"),
    ({"max_batch_texts": 0}, "max_batch_texts"),
])
def test_a_library_config_no_server_can_run_by_is_refused(changes, says):
    """The same bounds hold for `create_app(ServiceConfig(...))` as for the flags."""
    from service import ServiceConfig

    with pytest.raises(ValueError, match=says):
        ServiceConfig(**changes)


def test_searches_run_on_the_faiss_threads_asked_for(thread_server, monkeypatch):
    """A batch of queries searches on the configured count inside FAISS's call, on the thread
    that runs the request (OpenMP keeps the count per thread: one set at start-up on the main
    thread never reached them)."""
    import faiss

    from indexer.folder import search as search_module

    seen = []
    real = search_module.faiss_threads

    @contextmanager
    def recording(n_queries):
        with real(n_queries):
            seen.append(faiss.omp_get_max_threads())
            yield

    monkeypatch.setattr(search_module, "faiss_threads", recording)
    url, _ = thread_server(faiss_threads=3)  # no machine's default: 2 here, 1 or 4 elsewhere
    queries = [f"cats and dogs {i}" for i in range(20)]  # > 8: the configured count
    with httpx.Client(base_url=url, timeout=60) as api:
        got = api.post("/v1/indexes/tiny/search", json={"queries": queries, "k": 2})
    assert got.status_code == 200, got.text
    assert seen == [3]


def test_faiss_s_thread_count_does_not_reach_the_encoder(thread_server, monkeypatch):
    """The encoder on a request's thread keeps torch's threads: the service once set FAISS's
    count (1) on that thread before each search, and OpenMP's count is torch's too, so from a
    thread's second request on its encodes ran on one thread of two."""
    import torch

    from indexer import SemanticIndex

    seen = []
    search = SemanticIndex.search

    def recording(self, *args, **kwargs):
        seen.append(torch.get_num_threads())
        return search(self, *args, **kwargs)

    monkeypatch.setattr(SemanticIndex, "search", recording)
    before = torch.get_num_threads()  # the tests' one thread: no leak could show under it
    torch.set_num_threads(2)
    try:
        url, _ = thread_server(faiss_threads=1)
        with httpx.Client(base_url=url, timeout=60) as api:
            for i in range(6):
                got = api.post("/v1/indexes/tiny/search", json={"query": f"cats {i}", "k": 2})
                assert got.status_code == 200, got.text
    finally:
        torch.set_num_threads(before)
    assert seen == [2] * 6


@pytest.mark.slow  # two server processes, each importing torch and loading the encoder
def test_every_worker_sees_a_write(index_root, tmp_path):
    (tmp_path / "key").write_text(KEY)
    port = free_port()
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(REPO)}
    process = subprocess.Popen(
        [sys.executable, "-m", "service", "--port", str(port), "--index-root", str(index_root),
         "--api-key-file", str(tmp_path / "key"), "--workers", "2"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_ready(url, lambda: process.poll() is None)
        body = {"query": "quokka", "k": 5, "mode": "bm25"}
        with httpx.Client(base_url=url, timeout=60) as before:  # both workers open the index
            for _ in range(6):
                assert before.post("/v1/indexes/writable/search", json=body).json()["hits"] == []
        with httpx.Client(base_url=url, timeout=60, headers={"Authorization": f"Bearer {KEY}"}
                          ) as writer:
            added = writer.post("/v1/indexes/writable/documents",
                                json={"documents": [{"id": "q1", "text": "a quokka smiled"}]})
            assert added.status_code == 200, added.text
        for _ in range(8):  # a new connection each: spread over the workers
            hits = httpx.post(f"{url}/v1/indexes/writable/search", json=body).json()["hits"]
            assert [h["doc_id"] for h in hits] == ["q1"]
    finally:
        process.terminate()
        process.wait(timeout=30)
