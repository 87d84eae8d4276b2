"""The Ray build's `ivfpq-disk` path: trained once on a sample, each shard added by a Ray worker
into its own IVF shard file, the lists merged on disk (merge_ondisk). It gives the same index as
the local build, agrees with exact search, reopens identically and resumes after an interruption
from the IVF shards already written. Ray runs on 2 CPUs with a tiny random BERT."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from test_diskivf import _docs
from test_raybuild import Stop, _content

from indexer import SemanticIndex, build_index
from indexer.diskivf import DiskIVFPQ
from indexer.ray import encode as raybuild
from indexer.ray import ivf as rayivf

pytestmark = pytest.mark.slow  # starts Ray: not the quick lane

pytest.importorskip("ray")
QUERIES = ["cats on the sofa", "stocks fell", "rain tomorrow", "the final", "dogs bark"]
DOCS = 400  # one chunk each


@pytest.fixture(scope="module")
def local_disk(tmp_path_factory, tiny_encoder) -> Path:
    out = tmp_path_factory.mktemp("local") / "index"
    build_index(_docs(DOCS), out, model=tiny_encoder, preset="ivfpq-disk")
    return out


@pytest.fixture(scope="module")
def flat(tmp_path_factory, tiny_encoder) -> Path:
    out = tmp_path_factory.mktemp("flat") / "index"
    build_index(_docs(DOCS), out, model=tiny_encoder, preset="flat")
    return out


@pytest.fixture
def merged(monkeypatch) -> list[int]:
    """Shard files counted each time `DiskIVFPQ.merge` runs."""
    calls, real = [], DiskIVFPQ.merge.__func__

    def spy(cls, trained, shards, rows, folder, seconds=None):
        calls.append(len(shards))
        return real(cls, trained, shards, rows, folder, seconds)

    monkeypatch.setattr(DiskIVFPQ, "merge", classmethod(spy))
    return calls


def _hits(index: SemanticIndex, **knobs) -> list:
    return [[(h.doc_id, h.chunk_id, round(h.score, 4)) for h in index.search(q, k=10, **knobs)]
            for q in QUERIES]


def test_sample_draws_rows_in_order_or_all():
    parts = [np.arange(i * 10, i * 10 + n, dtype=np.float32)[:, None] for i, n in
             enumerate([3, 0, 5, 4])]
    every = np.vstack(parts)
    assert np.array_equal(rayivf.sample(parts, 12, 0), every)  # no more than asked: all
    got = rayivf.sample(parts, 5, 0)
    assert len(got) == 5 and np.all(np.diff(got[:, 0]) > 0) and set(got[:, 0]) <= set(every[:, 0])
    assert np.array_equal(got, rayivf.sample(parts, 5, 0))  # seeded


@pytest.mark.slow
def test_ray_ivfpq_disk_trained_on_a_sample_agrees_with_exact_search(
        tmp_path, tiny_encoder, flat, merged, ray_cpus, monkeypatch):
    monkeypatch.setattr(raybuild, "DOCS_PER_SHARD", 200)
    monkeypatch.setattr(rayivf, "train_sample_size", lambda nlist: 150)  # of ~400 vectors
    built = build_index(_docs(DOCS), tmp_path / "ray", model=tiny_encoder, preset="ivfpq-disk",
                        engine="ray", workers=ray_cpus)
    assert merged == [2] and built.vectors.ntotal == built.stats().chunks
    exact = SemanticIndex.open(flat, encoder=tiny_encoder)
    assert _content(built) == _content(exact)
    everything = {"nprobe": built.vectors.nlist, "rerank": DOCS}
    assert [[h[0] for h in q] for q in _hits(built, **everything)] == \
        [[h[0] for h in q] for q in _hits(exact)]
    found = [{h[0] for h in q} for q in _hits(built)]  # default knobs
    want = [{h[0] for h in q} for q in _hits(exact)]
    assert np.mean([len(f & w) / 10 for f, w in zip(found, want, strict=True)]) >= 0.9


@pytest.mark.slow
def test_ray_ivfpq_disk_resumes_from_the_ivf_shards_and_equals_local_build(
        tmp_path, tiny_encoder, local_disk, flat, merged, ray_cpus, monkeypatch):
    """Stopped after its first IVF shard (one worker), then run again on every worker: the
    shards written are not added again, and the index is the local build's."""
    monkeypatch.setattr(raybuild, "DOCS_PER_SHARD", 100)
    out = tmp_path / "ray"

    def stop_after_first_ivf_shard(p):
        if p.stage == "index" and 0 < p.done < p.total:
            raise Stop

    with pytest.raises(Stop):
        build_index(_docs(DOCS), out, model=tiny_encoder, preset="ivfpq-disk", engine="ray",
                    workers=1, progress=stop_after_first_ivf_shard)
    assert not (out / "manifest.json").exists() and merged == []
    assert len(list(out.glob(".build-ray-*/trained-*.faiss"))) == 1
    assert len(list(out.glob(".build-ray-*/ivf-*.faiss"))) >= 1
    seen = []
    built = build_index(_docs(DOCS), out, model=tiny_encoder, preset="ivfpq-disk", engine="ray",
                        workers=ray_cpus, progress=seen.append)
    index = [p.done for p in seen if p.stage == "index"]  # [0, resumed, ..., total, total]
    assert index[1] > 0  # the IVF shards written before were not added again
    assert merged == [4]  # four IVF shard files merged on disk
    local = SemanticIndex.open(local_disk, encoder=tiny_encoder)
    assert _content(built) == _content(local)  # same documents, chunks, chunk ids
    # trained on every vector (fewer than the sample size), as the local build: same hits
    assert _hits(built) == _hits(local)
    exact = SemanticIndex.open(flat, encoder=tiny_encoder)
    everything = {"nprobe": built.vectors.nlist, "rerank": DOCS}
    assert [[h[0] for h in q] for q in _hits(built, **everything)] == \
        [[h[0] for h in q] for q in _hits(exact)]
    assert _hits(SemanticIndex.open(out, encoder=tiny_encoder)) == _hits(built)
    stages = json.loads((out / "manifest.json").read_text())["build"]["stages"]
    assert {"train_s", "add_s", "merge_lists_s", "merge_rows_s"} <= set(stages)
    assert not list(out.glob(".build-*"))
