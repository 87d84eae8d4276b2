"""Readers and writers at once, step by step: a reader that opens the index at any line of a
save (or a build over the index) gets the old or the new version, whole; a reader whose version
is pruned while it opens it reads the newer one."""

from __future__ import annotations

from pathlib import Path

import pytest
from stepping import run_stepwise

import common.atomic
import indexer.folder.store.publishing
import indexer.folder.store.version
from indexer import SemanticIndex, build_index

# where a save changes the folder; every line before is private to the writer
TRACED = [indexer.folder.store.publishing.__file__, common.atomic.__file__]


def _reader_check(path: Path, encoder, expected: dict[int, set[str]], seen: set[int]):
    def check(step: int) -> None:
        index = SemanticIndex.open(path, encoder=encoder)
        version = index.stats().version
        dense = {h.doc_id for h in index.search("story", k=1000)}
        lexical = {h.doc_id for h in index.search("story", k=1000, mode="lexical")}
        assert dense == lexical == expected[version], (step, version)
        seen.add(version)

    return check


@pytest.mark.slow
@pytest.mark.parametrize("which", ["flat_index", "hnsw_index"])
def test_a_reader_at_every_line_of_a_save_sees_one_whole_version(which, request,
                                                                  tiny_encoder, docs):
    path = request.getfixturevalue(which)
    writer = SemanticIndex.open(path, encoder=tiny_encoder)
    writer.delete(["d000", "d001"])
    writer.upsert([{"id": "d002", "text": "a story rewritten"}])
    every = {d["id"] for d in docs}
    expected = {1: every, 2: every - {"d000", "d001"}}
    seen: set[int] = set()
    steps = run_stepwise(writer.save, TRACED, _reader_check(path, tiny_encoder, expected, seen))
    assert steps > 50 and seen == {1, 2}  # readers met both sides of the switch


@pytest.mark.slow
def test_a_reader_during_a_build_over_the_index(flat_index, tiny_encoder, docs):
    new = [{"id": f"n{i}", "text": f"another story {i}"} for i in range(12)]
    expected = {1: {d["id"] for d in docs}, 2: {d["id"] for d in new}}
    seen: set[int] = set()
    run_stepwise(lambda: build_index(new, flat_index, model=tiny_encoder, preset="flat"), TRACED,
                 _reader_check(flat_index, tiny_encoder, expected, seen))
    assert seen == {1, 2}


def test_a_version_pruned_while_it_is_opened_is_read_again(flat_index, tiny_encoder,
                                                           monkeypatch):
    real = indexer.folder.store.version.read_manifest
    calls = []

    def read_then_two_saves(folder):
        result = real(folder)
        if not calls:  # the reader holds version 1's manifest; two saves prune version 1
            calls.append(folder)
            for doc_id in ("d000", "d001"):
                writer = SemanticIndex.open(folder, encoder=tiny_encoder)
                writer.delete([doc_id])
                writer.save()
        return result

    monkeypatch.setattr(indexer.folder.store.version, "read_manifest", read_then_two_saves)
    index = SemanticIndex.open(flat_index, encoder=tiny_encoder)
    assert index.stats().version == 3 and len(index) == 58
    assert not list(flat_index.glob("v000001-*"))  # it really was pruned under the reader


@pytest.mark.slow
def test_a_thousand_searches_across_twenty_saves(flat_index, tiny_encoder, docs):
    """Readers between the lines of 20 successive saves (every 8th line): no error, no mix."""
    ids = [d["id"] for d in docs]
    expected = {1 + n: set(ids[n:]) for n in range(21)}  # version v lacks d000 .. d(v-2)
    seen: set[int] = set()
    checks = []
    check = _reader_check(flat_index, tiny_encoder, expected, seen)

    def each(step: int) -> None:
        check(step)
        checks.append(step)

    for n in range(20):
        writer = SemanticIndex.open(flat_index, encoder=tiny_encoder)
        writer.delete([ids[n]])
        run_stepwise(writer.save, TRACED, each, every=8)
    assert 2 * len(checks) >= 1000  # two searches a check
    assert seen == set(range(1, 22))  # every version was read, none mixed with another
