"""Every way an index can be damaged opens with a `CorruptIndexError` that names the file:
empty, truncated, missing, overwritten or bit-flipped files of each kind, and every kind of
damaged manifest, including one from a newer BERTScope. Older layouts still open."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from common import file_checksum
from indexer import CorruptIndexError, SemanticIndex


def _manifest(path: Path) -> dict:
    return json.loads((path / "manifest.json").read_text())


def _targets(path: Path) -> list[tuple[str, Path]]:
    """(role path as the manifest names it, file to damage): each file of each role."""
    out = []
    for entry in _manifest(path)["files"].values():
        target = path / entry["path"]
        files = sorted(p for p in target.rglob("*") if p.is_file()) if target.is_dir() else \
            [target]
        out += [(entry["path"], f) for f in files]
    return out


def _damage(file: Path, how: str) -> None:
    data = file.read_bytes()
    if how == "empty":
        file.write_bytes(b"")
    elif how == "truncated":
        file.write_bytes(data[: len(data) // 2])
    elif how == "missing":
        file.unlink()
    elif how == "zeroed":  # same size, nothing readable
        file.write_bytes(b"\0" * len(data))
    else:  # one bit flipped
        flipped = bytearray(data)
        flipped[len(data) // 2] ^= 0x10
        file.write_bytes(bytes(flipped))


@pytest.mark.parametrize("how,verify", [("empty", True), ("empty", False), ("truncated", True),
                                        ("truncated", False), ("missing", True),
                                        ("missing", False), ("zeroed", False),
                                        ("flipped", True)])
def test_each_damaged_file_is_named(flat_index, tmp_path, how, verify):
    targets = _targets(flat_index)
    assert {t[0].rsplit("/", 1)[-1] for t in targets} == {"vectors.faiss", "store.sqlite", "bm25",
                                                           "fields"}
    assert len(targets) >= 4  # the BM25 folder holds several files
    for n, (role_path, file) in enumerate(targets):
        copy = Path(shutil.copytree(flat_index, tmp_path / str(n)))
        _damage(copy / file.relative_to(flat_index), how)
        with pytest.raises(CorruptIndexError) as caught:
            SemanticIndex.open(copy, verify=verify)
        message = str(caught.value)
        assert str(copy / role_path) in message, (file.name, message)
        assert "rebuild it with `python -m indexer build" in message


MANIFEST_DAMAGE = {
    "empty": (lambda m: b"", "is empty"),
    "truncated": (lambda m: json.dumps(m).encode()[:80], "not valid JSON"),
    "not json": (lambda m: b"\xff\xfe garbage", "not valid JSON"),
    "a list": (lambda m: b"[1, 2]", "not a BERTScope index manifest"),
    "foreign": (lambda m: json.dumps({"name": "something else"}).encode(),
                "not a BERTScope index manifest .*open a folder that `python -m indexer build`"),
    "newer format": (lambda m: json.dumps({**m, "format_version": 4}).encode(),
                     "written by a newer BERTScope .* upgrade BERTScope"),
    "older format": (lambda m: json.dumps({**m, "format_version": 0}).encode(),
                     "has index format 0"),
    "no files": (lambda m: json.dumps({k: v for k, v in m.items() if k != "files"}).encode(),
                 "files is missing"),
    "no faiss entry": (lambda m: json.dumps({**m, "files": {
        k: v for k, v in m["files"].items() if k != "faiss"}}).encode(), "names no faiss file"),
    "bad size": (lambda m: json.dumps({**m, "files": {**m["files"], "sqlite": {
        **m["files"]["sqlite"], "bytes": "many"}}}).encode(), "files.sqlite.bytes is 'many'"),
    "escaping path": (lambda m: json.dumps({**m, "files": {**m["files"], "bm25": {
        **m["files"]["bm25"], "path": "../../etc"}}}).encode(),
        "leads outside the index.*rebuild it"),
    "bad version": (lambda m: json.dumps({**m, "version": None}).encode(), "version is missing"),
}


@pytest.mark.parametrize("case", list(MANIFEST_DAMAGE))
def test_each_damaged_manifest_is_named(flat_index, case):
    make, match = MANIFEST_DAMAGE[case]
    (flat_index / "manifest.json").write_bytes(make(_manifest(flat_index)))
    with pytest.raises(CorruptIndexError, match=match) as caught:
        SemanticIndex.open(flat_index)
    assert str(flat_index / "manifest.json") in str(caught.value)


def test_a_folder_instead_of_a_manifest(tmp_path):
    (tmp_path / "manifest.json").mkdir()
    with pytest.raises(CorruptIndexError, match="is a folder"):
        SemanticIndex.open(tmp_path)


def test_no_index_is_not_damage(tmp_path):
    with pytest.raises(FileNotFoundError, match="no index at .*`python -m indexer build"):
        SemanticIndex.open(tmp_path)


def test_flat_layout_of_older_indexes_opens_and_moves_on(flat_index, tiny_encoder):
    """Indexes saved before version folders: files beside the manifest, blake2b checksums."""
    manifest = _manifest(flat_index)
    hits = SemanticIndex.open(flat_index, encoder=tiny_encoder).search("cats", k=5)
    old_names = {"faiss": "vectors-000001.faiss", "sqlite": "store-000001.sqlite",
                 "bm25": "bm25-000001"}
    manifest["files"].pop("fields")  # the filter index came later than version folders
    for role, entry in manifest["files"].items():
        (flat_index / entry["path"]).rename(flat_index / old_names[role])
        entry.pop("algorithm")
        entry.update(path=old_names[role], checksum=file_checksum(
            flat_index / old_names[role], "blake2b-160"))
    shutil.rmtree(next(flat_index.glob("v0*")))
    (flat_index / "manifest.json").write_text(json.dumps(manifest))
    old = SemanticIndex.open(flat_index, encoder=tiny_encoder)  # verified with blake2b
    assert [h.doc_id for h in old.search("cats", k=5)] == [h.doc_id for h in hits]
    old.delete(["d000"])
    old.save()
    names = {p.name for p in flat_index.iterdir()}
    assert set(old_names.values()) <= names  # the previous version stays for its readers
    newer = SemanticIndex.open(flat_index, encoder=tiny_encoder)
    newer.delete(["d001"])
    newer.save()
    assert not set(old_names.values()) & {p.name for p in flat_index.iterdir()}
    assert len(SemanticIndex.open(flat_index)) == 58
