"""A build killed with a real `kill -9` leaves the previous index intact, and a re-run resumes
from the embedding shards already written to the same content as an uninterrupted build."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from indexer import SemanticIndex, build_index

REPO = Path(__file__).resolve().parents[2]
SLOW_BUILD = """
import sys, time
from indexer import build_index
corpus, out, model = sys.argv[1:4]
def slow(p):
    if p.stage == "encode":
        time.sleep(0.4)
build_index(corpus, out, model=model, preset="flat", shard_size=16, progress=slow)
"""


def _content(path: Path, encoder) -> tuple:
    index = SemanticIndex.open(path, encoder=encoder)
    rows = index.conn.execute(
        "SELECT c.chunk_id, c.doc_id, c.start, c.end, d.text FROM chunks c "
        "JOIN documents d USING(doc_id) ORDER BY c.chunk_id").fetchall()
    vectors = np.vstack([index.vectors.reconstruct(r[0]) for r in rows])
    hits = [[(h.doc_id, round(h.score, 5)) for h in q]
            for q in index.search(["cats purr", "rain tomorrow"], k=10)]
    return rows, vectors, hits


def test_kill_9_mid_build_keeps_old_index_and_resumes(tmp_path, tiny_encoder, tiny_model_dir,
                                                      docs):
    out = tmp_path / "index"
    build_index(docs[:10], out, model=tiny_encoder, preset="flat")  # the previous version
    manifest_before = (out / "manifest.json").read_bytes()
    old_hits = _content(out, tiny_encoder)[2]

    corpus = tmp_path / "corpus.jsonl"
    new_docs = [{"id": f"n{i}", "text": f"new story {i}. " * (1 + i % 5)} for i in range(160)]
    corpus.write_text("".join(json.dumps(d) + "\n" for d in new_docs), encoding="utf-8")
    script = tmp_path / "slow_build.py"
    script.write_text(SLOW_BUILD)
    env = {**os.environ, "PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1"}
    proc = subprocess.Popen([sys.executable, str(script), str(corpus), str(out),
                             str(tiny_model_dir)], env=env, cwd=tmp_path)
    deadline = time.monotonic() + 240
    while not list(out.glob(".build-*/shard-000002.npy")):
        assert proc.poll() is None, "the build ended before it could be killed"
        assert time.monotonic() < deadline, "the build never wrote its shards"
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL

    # the previous index is untouched and opens cleanly
    assert (out / "manifest.json").read_bytes() == manifest_before
    assert _content(out, tiny_encoder)[2] == old_hits
    written = len(list(out.glob(".build-*/shard-*.npy")))
    assert 3 <= written < 10  # 160 short docs → 10 shards of 16 chunks

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
