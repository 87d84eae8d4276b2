"""A write onto a real full disk (a small tmpfs, root only) answers 507 saying so, leaves no
staging folder behind, and the index serves its last version; once space is freed, the next
write succeeds."""

from __future__ import annotations

import shutil

import pytest
from conftest import KEY

from tools.bad_input.small_disk import NoSmallDisk, fill, small_disk


@pytest.fixture
def disk(tmp_path):
    try:
        with small_disk(tmp_path / "disk", size="4m") as mounted:
            yield mounted
    except NoSmallDisk as exc:
        pytest.skip(str(exc))


def test_a_full_disk_answers_507_and_leaves_no_staging_folder(disk, _tiny_built):
    from fastapi.testclient import TestClient

    from service import ServiceConfig, create_app

    shutil.copytree(_tiny_built, disk / "root" / "tiny")
    app = create_app(ServiceConfig(index_root=disk / "root", api_key=KEY))
    api = TestClient(app, raise_server_exceptions=False,
                     headers={"Authorization": f"Bearer {KEY}"})
    search = {"query": "cat", "k": 3}
    before = api.post("/v1/indexes/tiny/search", json=search).json()["hits"]
    filler = fill(disk)
    more = {"documents": [{"id": f"n{i}", "text": "new text " * 300} for i in range(100)]}
    for _ in range(2):  # the first write onto the full disk, and another
        full = api.post("/v1/indexes/tiny/documents", json=more)
        assert full.status_code == 507, full.text
        message = full.json()["error"]["message"]
        assert "'tiny' is full" in message and "nothing of this write was kept" in message
        assert not list((disk / "root" / "tiny").glob(".staging-*"))
    assert api.post("/v1/indexes/tiny/search", json=search).json()["hits"] == before
    filler.unlink()
    fine = api.post("/v1/indexes/tiny/documents", json={"documents": more["documents"][:2]})
    assert fine.status_code == 200, fine.text
    assert not list((disk / "root" / "tiny").glob(".staging-*"))
