"""A build killed with a real `kill -9` leaves the previous index intact, and a re-run resumes
from the embedding shards already written to the same content as an uninterrupted build."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from indexer import SemanticIndex, build_index
from indexer.folder import db

REPO = Path(__file__).resolve().parents[2]
BUILD_THEN_WAIT = """
import sys
from pathlib import Path
from indexer import build_index
corpus, out, model = sys.argv[1:4]
def wait_when_three_shards_are_written(p):
    if p.stage == "encode" and list(Path(out).glob(".build-*/shard-000002.npy")):
        print("ready", flush=True)
        sys.stdin.read()  # blocks until the test kills this process
build_index(corpus, out, model=model, preset="flat", shard_size=16,
            progress=wait_when_three_shards_are_written)
"""


def _content(path: Path, encoder) -> tuple:
    index = SemanticIndex.open(path, encoder=encoder)
    chunk_ids = [c for c, _ in zip(*db.lexical_rows(index.conn), strict=True)]
    rows = sorted(db.chunk_rows(index.conn, chunk_ids).items())
    vectors = np.vstack([index.vectors.reconstruct(c) for c, _ in rows])
    hits = [[(h.doc_id, round(h.score, 5)) for h in q]
            for q in index.search(["cats purr", "rain tomorrow"], k=10)]
    return rows, vectors, hits


@pytest.mark.slow
def test_kill_9_mid_build_keeps_old_index_and_resumes(tmp_path, tiny_encoder, tiny_model_dir,
                                                      docs):
    out = tmp_path / "index"
    build_index(docs[:10], out, model=tiny_encoder, preset="flat")  # the previous version
    manifest_before = (out / "manifest.json").read_bytes()
    old_hits = _content(out, tiny_encoder)[2]

    corpus = tmp_path / "corpus.jsonl"
    new_docs = [{"id": f"n{i}", "text": f"new story {i}. " * (1 + i % 5)} for i in range(160)]
    corpus.write_text("".join(json.dumps(d) + "\n" for d in new_docs), encoding="utf-8")
    script = tmp_path / "build_then_wait.py"
    script.write_text(BUILD_THEN_WAIT)
    env = {**os.environ, "PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1", "OMP_NUM_THREADS": "1"}
    proc = subprocess.Popen([sys.executable, str(script), str(corpus), str(out),
                             str(tiny_model_dir)], env=env, cwd=tmp_path, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "ready", "the build ended before it could be killed"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL

    # the previous index is untouched and opens cleanly
    assert (out / "manifest.json").read_bytes() == manifest_before
    assert _content(out, tiny_encoder)[2] == old_hits
    written = len(list(out.glob(".build-*/shard-*.npy")))
    assert written == 3  # of 10: 160 short docs, shards of 16 chunks

    # re-run: reuses the shards, ends like an uninterrupted build
    reports = []
    build_index(corpus, out, model=tiny_encoder, preset="flat", shard_size=16,
                progress=reports.append)
    encode = [p for p in reports if p.stage == "encode"]
    assert encode[-1].resumed >= written * 16 // 5  # ≥ one doc per 5 chunks came from shards
    assert encode[-1].done == encode[-1].total == 160
    assert not list(out.glob(".build-*"))

    fresh = tmp_path / "fresh"
    build_index(corpus, fresh, model=tiny_encoder, preset="flat", shard_size=16)
    got, want = _content(out, tiny_encoder), _content(fresh, tiny_encoder)
    assert got[0] == want[0]
    np.testing.assert_allclose(got[1], want[1], rtol=0, atol=1e-6)
    assert got[2] == want[2]


def test_progress_is_reported_within_a_shard(tmp_path, tiny_encoder, docs):
    reports = []
    build_index(docs, tmp_path / "index", model=tiny_encoder, preset="flat", batch_size=2,
                shard_size=10_000, progress=reports.append)  # one shard, reports every 8 chunks
    encode = [p for p in reports if p.stage == "encode"]
    done = [p.done for p in encode]
    assert len(encode) > 5 and done == sorted(done) and done[-1] == encode[-1].total == len(docs)
    assert all(p.rate > 0 and p.eta_s is not None for p in encode if p.done < p.total)
