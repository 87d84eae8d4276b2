"""A writer keeps the documents per (field, JSON type) as it writes, so a save reads the next
version's field kinds from those counts, not from a scan of every document's metadata (at 1M
chunks that scan was the largest part of a save). The kinds must stay exactly what a scan says."""

from __future__ import annotations

import json
import random

from indexer import SemanticIndex
from indexer.folder import field_kinds


def _doc(i: int, rng: random.Random) -> dict:
    meta = {}
    if rng.random() < 0.7:
        meta["year"] = rng.choice([2001, 2002, 2003.5])
    if rng.random() < 0.3:
        meta["tag"] = rng.choice(["a", "b", 7])  # str, sometimes an int: "mixed"
    if rng.random() < 0.2:
        meta[f"rare{i % 3}"] = True
    return {"id": f"k{i}", "text": f"document {i} about kinds", "metadata": meta}


def test_field_kinds_follow_writes_as_a_scan_says(flat_index, tiny_encoder, monkeypatch):
    rng = random.Random(5)
    index = SemanticIndex.open(flat_index, encoder=tiny_encoder)
    scans = []
    real = field_kinds.kind_counts
    monkeypatch.setattr(field_kinds, "kind_counts", lambda conn, doc_ids=None: (
        scans.append(doc_ids is None), real(conn, doc_ids))[1])
    live: list[str] = []
    for step in range(12):
        ids = [f"k{step * 10 + j}" for j in range(rng.randint(1, 5))]
        try:
            index.upsert([_doc(int(i[1:]), rng) for i in ids])
        except Exception:  # noqa: BLE001 - a value changing a field's kind is refused
            pass
        else:
            live += ids
        if live and rng.random() < 0.6:
            gone = rng.sample(live, min(len(live), rng.randint(1, 4)))
            index.delete(gone)
            live = [i for i in live if i not in gone]
        # unsaved, as a scan says
        assert index.field_types() == field_kinds.kinds_of(real(index.conn))
        index.save()
        manifest = json.loads((flat_index / "manifest.json").read_text())
        reopened = SemanticIndex.open(flat_index, encoder=tiny_encoder)
        assert manifest["metadata_fields"] == field_kinds.kinds_of(real(reopened.conn))
        assert field_kinds.counts_from_json(manifest["metadata_kind_counts"]) == real(reopened.conn)
    assert not any(scans), "a write scanned every document's metadata"


def test_the_last_holder_deleted_takes_its_field_away(flat_index, tiny_encoder):
    index = SemanticIndex.open(flat_index, encoder=tiny_encoder)
    index.add([{"id": "only", "text": "the one with a rare field", "metadata": {"solo": "x"}}])
    index.save()
    assert SemanticIndex.open(flat_index).field_types()["solo"] == "str"
    index = SemanticIndex.open(flat_index, encoder=tiny_encoder)
    index.delete(["only"])
    index.save()
    assert "solo" not in SemanticIndex.open(flat_index).field_types()


def test_a_version_without_counts_is_counted_once_and_then_kept(flat_index, tiny_encoder):
    path = flat_index / "manifest.json"
    manifest = json.loads(path.read_text())
    manifest.pop("metadata_kind_counts")
    path.write_text(json.dumps(manifest))
    index = SemanticIndex.open(flat_index, encoder=tiny_encoder)
    index.add([{"id": "late", "text": "added to an older index", "metadata": {"year": 1999}}])
    index.save()
    kept = json.loads(path.read_text())["metadata_kind_counts"]
    scanned = field_kinds.kind_counts(SemanticIndex.open(flat_index).conn)
    assert field_kinds.counts_from_json(kept) == scanned


def test_damaged_counts_are_counted_again():
    assert field_kinds.counts_from_json([["year", "integer", 0]]) is None
    assert field_kinds.counts_from_json([["year", "date", 3]]) is None
    assert field_kinds.counts_from_json({"year": 3}) is None
    assert field_kinds.counts_from_json([["year", "integer", True]]) is None
    assert field_kinds.counts_from_json([["year", "integer", 3]]) == {("year", "integer"): 3}
