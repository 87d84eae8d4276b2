"""Readers and a writer at once: a process saving new versions while this one opens and
searches never makes a reader fail or see a mix of two versions."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from indexer import SemanticIndex

REPO = Path(__file__).resolve().parents[2]
WRITER = """
import sys
from indexer import SemanticIndex
path, n = sys.argv[1], int(sys.argv[2])
for i in range(n):
    index = SemanticIndex.open(path)
    index.delete([f"d{i:03d}"])
    index.save()
print("done", flush=True)
"""


def test_reader_during_concurrent_saves_never_errors(flat_index, tiny_encoder, docs, tmp_path):
    saves = 25
    script = tmp_path / "writer.py"
    script.write_text(WRITER)
    env = {**os.environ, "PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1"}
    writer = subprocess.Popen([sys.executable, str(script), str(flat_index), str(saves)],
                              env=env, cwd=tmp_path, stdout=subprocess.PIPE, text=True)
    all_ids = [d["id"] for d in docs]
    seen_versions: set[int] = set()
    reads = 0
    deadline = time.monotonic() + 300
    while writer.poll() is None and time.monotonic() < deadline:
        index = SemanticIndex.open(flat_index, encoder=tiny_encoder)
        version = index.stats().version
        found = {h.doc_id for h in index.search("story", k=1000)}
        lexical = {h.doc_id for h in index.search("story", k=1000, mode="lexical")}
        # version v (from 1) has deleted d000 .. d(v-2): the whole of one version, never a mix
        assert found == set(all_ids[version - 1 :]) == lexical, version
        seen_versions.add(version)
        reads += 1
    assert writer.wait(timeout=60) == 0 and writer.stdout.read().strip() == "done"
    assert len(seen_versions) >= 3, seen_versions  # the reader really overlapped the saves
    final = SemanticIndex.open(flat_index, encoder=tiny_encoder)
    assert len(final) == 60 - saves and final.stats().version == 1 + saves
    files = {p.name for p in flat_index.iterdir()}
    assert len([f for f in files if f.startswith("vectors-")]) <= 2  # old versions pruned
