"""The Ray build (`engine="ray"`) makes the same index as the local build, resumes from its
finished shards after an interruption, and joins a real cluster through `--ray-address`.
Ray runs on 2 CPUs with a tiny random BERT and a small corpus."""

from __future__ import annotations

import contextlib
import json
import logging
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from indexer import IndexerError, SemanticIndex, build_index
from indexer.ray import cluster
from indexer.ray import encode as raybuild

pytestmark = pytest.mark.slow  # starts Ray: not the quick lane

pytest.importorskip("ray")
QUERIES = ["cats purr", "stocks fell on Monday", "rain tomorrow", "the team won", "postman"]


def _content(index: SemanticIndex) -> tuple:
    docs = index.conn.execute("SELECT doc_id, title, text, metadata FROM documents "
                              "ORDER BY doc_id").fetchall()
    chunks = index.conn.execute("SELECT chunk_id, doc_id, chunk_no, start, end, lex FROM chunks "
                                "ORDER BY chunk_id").fetchall()
    return docs, chunks


def _top10(index: SemanticIndex) -> list:
    return [[(h.doc_id, h.chunk_id, round(h.score, 4)) for h in index.search(q, k=10)]
            for q in QUERIES]


def test_ray_build_equals_local_build(tmp_path, tiny_encoder, docs, _built_flat, ray_cpus,
                                      monkeypatch, caplog):
    """Also: more workers than CPUs run as many as there are, said and recorded, on a machine
    (said to have 64 CPUs here) whose Ray, already running in this process, has fewer."""
    import ray

    cluster.start_ray(None, ray_cpus)
    monkeypatch.setattr(cluster, "local_cpus", lambda: 64)
    monkeypatch.setattr(raybuild, "DOCS_PER_SHARD", 16)  # 60 documents: 4 shards
    with caplog.at_level(logging.WARNING):
        built = build_index(docs, tmp_path / "ray", model=tiny_encoder, preset="flat",
                            engine="ray", workers=1000)
    assert "workers=1000, but this machine has 64 CPUs: running 64 Ray workers" in caplog.text
    assert (f"workers=64, but the Ray already running in this process has {ray_cpus} CPUs: "
            f"running {ray_cpus} Ray workers") in caplog.text
    local = SemanticIndex.open(_built_flat, encoder=tiny_encoder)
    assert _content(built) == _content(local)
    assert _top10(built) == _top10(local)
    manifest = json.loads((tmp_path / "ray" / "manifest.json").read_text())
    assert manifest["build"]["engine"] == "ray"
    assert manifest["build"]["workers"] == min(4, ray_cpus) == int(ray.cluster_resources()["CPU"])
    assert manifest["encoder"]["backend"] == tiny_encoder.backend  # the actors ran the driver's
    assert {"encode_s", "shards_s", "index_s", "write_s"} <= set(manifest["build"]["stages"])
    assert local.manifest["build"]["engine"] == "local"
    assert not list((tmp_path / "ray").glob(".build-*"))  # shards removed once published


class Stop(BaseException):
    """Stands for an interruption (Ctrl-C) of the driver."""


@pytest.mark.slow
def test_interrupted_ray_build_resumes(tmp_path, tiny_encoder, docs, _built_flat, ray_cpus,
                                       monkeypatch):
    monkeypatch.setattr(raybuild, "DOCS_PER_SHARD", 16)
    out = tmp_path / "ray"

    def stop_after_first_shard(p):
        if p.stage == "encode" and p.done > 0:
            raise Stop

    with pytest.raises(Stop):
        build_index(docs, out, model=tiny_encoder, preset="flat", engine="ray", workers=1,
                    progress=stop_after_first_shard)
    assert not (out / "manifest.json").exists()
    assert list(out.glob(".build-ray-*/shard-*.npy"))
    seen = []
    built = build_index(docs, out, model=tiny_encoder, preset="flat", engine="ray", workers=1,
                        progress=seen.append)
    assert max(p.resumed for p in seen) >= 16
    local = SemanticIndex.open(_built_flat, encoder=tiny_encoder)
    assert _content(built) == _content(local) and _top10(built) == _top10(local)


BUILD_ON_RAY_THEN_WAIT = """
import sys
from indexer import build_index
from indexer.ray import encode as raybuild
corpus, out, model = sys.argv[1:4]
raybuild.DOCS_PER_SHARD = 16
def wait_after_a_shard(p):
    if p.stage == "encode" and p.done > 0:
        print("ready", flush=True)
        sys.stdin.read()  # blocks until the test kills this process
build_index(corpus, out, model=model, preset="flat", engine="ray", workers=2,
            progress=wait_after_a_shard)
"""


def _session(pid: int) -> list[str]:
    """Command lines of the processes still in session `pid` (the killed driver's)."""
    out = subprocess.run(["ps", "-o", "sid=,args=", "-e"], capture_output=True, text=True).stdout
    return [line.split(None, 1)[1] for line in out.splitlines()
            if line.split(None, 1)[0] == str(pid)]


@pytest.fixture(scope="session")
def reaped_by_session_end() -> Iterator[list[int]]:
    """Sessions of killed drivers that must be empty when the test session ends: Ray's agents
    outlive a killed driver by about 60 s (they report the raylet's death to the dead GCS with a
    fixed 60 s timeout), so the check waits while the other tests run, not before them."""
    sessions: list[int] = []
    yield sessions
    for _ in range(120):
        if not any(_session(pid) for pid in sessions):
            break
        time.sleep(1)
    left = {pid: _session(pid) for pid in sessions if _session(pid)}
    for pid in left:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pid, signal.SIGKILL)
    assert left == {}, "Ray left these processes of a killed driver running"


@pytest.mark.slow
def test_kill_9_of_the_ray_driver_keeps_old_index_and_resumes(
        tmp_path, tiny_encoder, tiny_model_dir, docs, ray_cpus, monkeypatch,
        reaped_by_session_end):
    out = tmp_path / "index"
    build_index(docs[:10], out, model=tiny_encoder, preset="flat")  # the previous version
    manifest_before = (out / "manifest.json").read_bytes()
    old_hits = _top10(SemanticIndex.open(out, encoder=tiny_encoder))
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("".join(json.dumps(d) + "\n" for d in docs), encoding="utf-8")
    script = tmp_path / "build_on_ray_then_wait.py"
    script.write_text(BUILD_ON_RAY_THEN_WAIT)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2]),
           "HF_HUB_OFFLINE": "1", "OMP_NUM_THREADS": "1", "RAY_USAGE_STATS_ENABLED": "0"}
    proc = subprocess.Popen([sys.executable, str(script), str(corpus), str(out),
                             str(tiny_model_dir)], env=env, cwd=tmp_path, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True, start_new_session=True)
    try:
        assert proc.stdout.readline().strip() == "ready", "the build ended before the kill"
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        assert proc.returncode == -signal.SIGKILL
        # the previous index is untouched and opens cleanly (checksums verified)
        assert (out / "manifest.json").read_bytes() == manifest_before
        assert _top10(SemanticIndex.open(out, encoder=tiny_encoder)) == old_hits
        assert list(out.glob(".build-ray-*/shard-*.npy"))

        # the re-run (the same model, loaded as the killed driver loaded it) resumes
        monkeypatch.setattr(raybuild, "DOCS_PER_SHARD", 16)
        seen = []
        built = build_index(corpus, out, model=str(tiny_model_dir), preset="flat", engine="ray",
                            workers=ray_cpus, progress=seen.append)
        assert max(p.resumed for p in seen) >= 16
        fresh = build_index(corpus, tmp_path / "fresh", model=str(tiny_model_dir), preset="flat")
        assert _content(built) == _content(fresh) and _top10(built) == _top10(fresh)
        assert not list(out.glob(".build-*"))
        reaped_by_session_end.append(proc.pid)  # Ray stops what the killed driver started
    except BaseException:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        raise


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.slow
def test_build_through_ray_address_of_a_real_head(tmp_path, tiny_model_dir, docs):
    corpus = tmp_path / "docs.jsonl"
    corpus.write_text("".join(json.dumps(d) + "\n" for d in docs))
    port = _free_port()
    ray = Path(sys.executable).with_name("ray")
    env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0"}
    head = subprocess.Popen([str(ray), "start", "--head", "--block", f"--port={port}",
                             "--num-cpus=2", "--include-dashboard=false",
                             f"--temp-dir=/tmp/ray-{port}"], env=env, start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        cmd = [sys.executable, "-m", "indexer", "build", "--corpus", str(corpus),
               "--out", str(tmp_path / "index"), "--model", str(tiny_model_dir),
               "--index", "flat", "--engine", "ray", "--workers", "1",
               "--ray-address", f"127.0.0.1:{port}"]
        for _ in range(3):  # the head may still be starting
            done = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=env)
            if done.returncode == 0 or "cannot reach" not in done.stderr:
                break
            time.sleep(5)
        assert done.returncode == 0, done.stderr[-2000:]
        index = SemanticIndex.open(tmp_path / "index")
        assert index.manifest["build"]["engine"] == "ray"
        assert index.stats().documents == len(docs)
    finally:  # the head's whole session goes at once (a SIGTERM'd `ray start` takes ~30 s)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(head.pid, signal.SIGKILL)
        head.wait()
        for _ in range(30):
            if not _session(head.pid):
                break
            time.sleep(1)
        shutil.rmtree(f"/tmp/ray-{port}", ignore_errors=True)


def test_unreachable_address_is_one_clear_error(tmp_path, tiny_encoder, docs):
    with pytest.raises(IndexerError, match="cannot reach a Ray cluster .*ray start --head"):
        build_index(docs, tmp_path / "index", model=tiny_encoder, engine="ray",
                    ray_address=f"127.0.0.1:{_free_port()}")
    assert not (tmp_path / "index").exists()
