"""Building into Milvus (milvus-lite in tmp_path): the folder build's encoding, resumable from its
shards kept in a work folder under $BERTSCOPE_HOME; a failed build leaves the previous index."""

from __future__ import annotations

import pytest

from indexer import BuildProgress, SemanticIndex, build_index
from indexer.milvus import parse_address, work_folder

pytest.importorskip("pymilvus")
pytest.importorskip("milvus_lite")


class Stop(Exception):
    pass


def test_a_failed_build_keeps_the_index_and_resumes_from_its_vectors(tmp_path, tiny_encoder,
                                                                     docs, monkeypatch):
    monkeypatch.setenv("BERTSCOPE_HOME", str(tmp_path / "home"))
    address = f"milvus://{tmp_path}/b.db?collection=b"
    build_index(docs[:10], address, model=tiny_encoder, preset="flat")

    def stop_at_index(p: BuildProgress) -> None:
        if p.stage == "index" and p.done > 0:  # after encoding, while rows go in
            raise Stop

    with pytest.raises(Stop):
        build_index(docs, address, model=tiny_encoder, preset="flat", shard_size=16,
                    progress=stop_at_index)
    kept = SemanticIndex.open(address, encoder=tiny_encoder)
    assert len(kept) == 10 and kept.missing(["d000", "d059"]) == ["d059"]
    work = work_folder(parse_address(address))
    assert list(work.glob(".build-*/shard-*.npy"))  # the vectors encoded, kept for a re-run
    seen: list[BuildProgress] = []
    built = build_index(docs, address, model=tiny_encoder, preset="flat", shard_size=16,
                        progress=seen.append)
    encoded = [p for p in seen if p.stage == "encode"]
    assert encoded and encoded[-1].resumed == len(docs)  # nothing encoded again
    assert len(built) == 60 and built.stats().documents == 60
    assert not work.exists()  # published: the work folder is gone
    assert built.manifest["build"]["engine"] == "local"
