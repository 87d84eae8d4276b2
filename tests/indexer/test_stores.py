"""The door (indexer/stores.py): each store claims its own addresses, so a folder path never
passes through Milvus code; finding one index by name finds what listing the root finds."""

from __future__ import annotations

import pytest

from indexer import FolderIndex, find_indexes, locate
from indexer.folder import FolderLocation
from indexer.milvus import MilvusLocation
from indexer.milvus import pointer as pointer_module
from indexer.stores import index_named, open_index

ADDRESS = "milvus:///data/news.db?collection=news"


@pytest.fixture
def no_milvus_code(monkeypatch):
    """Milvus's own reading of an address or a pointer fails the test if it runs."""
    def refuse(*a, **k):
        pytest.fail("a folder path went through Milvus code")

    monkeypatch.setattr(MilvusLocation, "claim", classmethod(refuse))
    monkeypatch.setattr(pointer_module, "milvus_target", refuse)
    monkeypatch.setattr(pointer_module, "read_pointer", refuse)


def test_a_folder_path_never_passes_through_milvus_code(flat_index, tiny_encoder,
                                                        no_milvus_code):
    assert isinstance(locate(flat_index), FolderLocation)
    assert isinstance(locate(str(flat_index)), FolderLocation)
    assert isinstance(open_index(flat_index, encoder=tiny_encoder), FolderIndex)
    found = find_indexes(flat_index.parent)
    assert [f.path for f in found] == [flat_index]
    assert isinstance(found[0].location, FolderLocation)
    assert isinstance(index_named(flat_index.parent, flat_index.name).location, FolderLocation)


def test_milvus_claims_its_addresses_and_pointers(tmp_path):
    (tmp_path / "news.milvus").write_text(ADDRESS)
    assert isinstance(locate(ADDRESS), MilvusLocation)
    where = locate(tmp_path / "news.milvus")
    assert isinstance(where, MilvusLocation) and str(where) == ADDRESS
    assert where.pointer == tmp_path / "news.milvus"
    (tmp_path / "dir.milvus").mkdir()  # a folder named like a pointer is a folder
    assert isinstance(locate(tmp_path / "dir.milvus"), FolderLocation)
    with pytest.raises(ValueError, match="without its '//'"):
        locate("milvus:/data/news.db?collection=news")


def test_an_index_is_found_by_name_as_listing_finds_it(tmp_path, monkeypatch):
    """`index_named` (the service's lookup of one name) finds what `find_indexes` lists under
    that name, a folder before a pointer of the same name, reads no pointer doing so, and finds
    nothing for a name that is not there."""
    (tmp_path / "good.milvus").write_text(ADDRESS)
    (tmp_path / "gone.milvus").symlink_to(tmp_path / "absent")
    (tmp_path / "both").mkdir()
    (tmp_path / "both" / "manifest.json").write_text("{}")
    (tmp_path / "both.milvus").write_text(ADDRESS)
    (tmp_path / "plain").mkdir()  # a folder holding no index
    monkeypatch.setattr(pointer_module, "read_pointer",
                        lambda *a: pytest.fail("finding a name read a pointer"))
    listed = {f.name: f for f in find_indexes(tmp_path)}
    assert sorted(listed) == ["both", "gone", "good"]
    assert listed["both"].path == tmp_path / "both"
    for name in listed:
        assert index_named(tmp_path, name) == listed[name]
    assert index_named(tmp_path, "nope") is None and index_named(tmp_path, "plain") is None
