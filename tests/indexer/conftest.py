"""Indexer fixtures: small corpora and indexes built with the tiny random encoder."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

TOPICS = ["cats purr on the sofa", "dogs bark at the postman", "stocks fell on Monday",
          "rain is expected tomorrow", "the team won the final"]


def make_docs(n: int = 60) -> list[dict]:
    """Seeded synthetic documents with metadata of three types."""
    docs = []
    for i in range(n):
        topic = TOPICS[i % len(TOPICS)]
        body = " ".join(f"{topic} in story {i}, sentence {j}." for j in range(1 + i % 9))
        docs.append({"id": f"d{i:03d}", "title": f"Story {i}", "text": body,
                     "metadata": {"topic": i % len(TOPICS), "group": "a" if i < n // 2 else "b",
                                  "score": i / 10, "flag": i % 3 == 0}})
    return docs


@pytest.fixture(scope="session")
def docs() -> list[dict]:
    return make_docs()


@pytest.fixture(scope="session")
def _built_flat(tmp_path_factory, tiny_encoder, docs) -> Path:
    from indexer import build_index

    out = tmp_path_factory.mktemp("flat") / "index"
    build_index(docs, out, model=tiny_encoder, preset="flat")
    return out


@pytest.fixture(scope="session")
def _built_hnsw(tmp_path_factory, tiny_encoder, docs) -> Path:
    from indexer import build_index

    out = tmp_path_factory.mktemp("hnsw") / "index"
    build_index(docs, out, model=tiny_encoder, preset="hnsw")
    return out


@pytest.fixture
def flat_index(_built_flat, tmp_path) -> Path:
    """A private copy of a flat index over `docs` (tests may change it)."""
    return Path(shutil.copytree(_built_flat, tmp_path / "flat"))


@pytest.fixture
def hnsw_index(_built_hnsw, tmp_path) -> Path:
    return Path(shutil.copytree(_built_hnsw, tmp_path / "hnsw"))


@pytest.fixture(scope="session")
def ray_cpus():
    """Ray builds share one Ray on 2 CPUs for the whole session (the first starts it; starting
    one per module cost seconds each), stopped at the end. `make test` keeps every Ray test on
    one worker (tests/conftest.py)."""
    ray = pytest.importorskip("ray")
    yield 2
    if ray.is_initialized():
        ray.shutdown()
