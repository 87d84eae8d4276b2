"""The page routes (issue 51), through the app in-process: a hit's page as image/png with its
chunk marked, the chunk's boxes as JSON (a document id with "/" in it, written as it is), and
each way they fail answered in words with its status: no such document, chunk or page (404),
a document with no pages (422), a file changed since it was indexed (409)."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from bench.kit.richwriters import write_outlined_pdf

pytest.importorskip("reportlab")
TEXT = " ".join(f"Rising oil prices in region {n} pushed inflation above the target while "
                f"output slowed in sector {n}." for n in range(40))


@pytest.fixture(scope="module")
def served(tmp_path_factory, tiny_encoder):
    from indexer import ChunkingConfig, sync_folder
    from service import ServiceConfig, create_app

    base = tmp_path_factory.mktemp("pages")
    folder = base / "docs"
    (folder / "manuals").mkdir(parents=True)
    write_outlined_pdf(folder / "manuals" / "guide.pdf", [("1 Options", [("1.1 Keys", TEXT)])])
    (folder / "notes.md").write_text("# Setup\n\nInstall it first.\n", encoding="utf-8")
    sync_folder(folder, base / "root" / "docs", model=tiny_encoder, preset="flat",
                chunking=ChunkingConfig(chunk_tokens=40, overlap=4))
    return TestClient(create_app(ServiceConfig(index_root=base / "root"))), folder


def first_hit(client) -> dict:
    got = client.post("/v1/indexes/docs/search",
                      json={"query": "oil prices region", "k": 5, "mode": "bm25"})
    assert got.status_code == 200, got.text
    return next(h for h in got.json()["hits"] if h["doc_id"] == "manuals/guide.pdf")


def test_a_hit_s_page_and_boxes(served):
    client, _ = served
    hit = first_hit(client)
    page = hit["metadata"]["page"]
    assert hit["metadata"]["section"] == "1 Options > 1.1 Keys"
    png = client.get(f"/v1/indexes/docs/documents/manuals/guide.pdf/pages/{page}.png",
                     params={"highlight": hit["chunk_id"]})
    assert png.status_code == 200 and png.headers["content-type"] == "image/png"
    assert png.content.startswith(b"\x89PNG") and len(png.content) > 10_000
    boxes = client.get("/v1/indexes/docs/documents/manuals/guide.pdf/highlight",
                       params={"chunk": hit["chunk_id"]})
    assert boxes.status_code == 200, boxes.text
    pages = boxes.json()["pages"]
    assert pages[0]["page"] == page and pages[0]["text"] == hit["text"]
    for left, top, right, bottom in pages[0]["boxes"]:
        assert 0 <= left < right <= pages[0]["width"] and 0 <= top < bottom <= pages[0]["height"]
    plain = client.get(f"/v1/indexes/docs/documents/manuals/guide.pdf/pages/{page}.png")
    assert plain.status_code == 200 and plain.content != png.content


def test_each_failure_is_said_with_its_status(served):
    client, folder = served
    hit = first_hit(client)
    base = "/v1/indexes/docs/documents"
    cases = [
        (f"{base}/nope.pdf/pages/1.png", 404, "no document 'nope.pdf'"),
        (f"{base}/manuals/guide.pdf/pages/40.png", 404, "has 2 pages, not 40"),
        (f"{base}/manuals/guide.pdf/pages/0.png", 422, "page"),
        (f"{base}/manuals/guide.pdf/pages/one.png", 422, "page"),
        (f"{base}/manuals/guide.pdf/highlight?chunk=999999999", 404, "has no chunk"),
        (f"{base}/manuals/guide.pdf/highlight", 422, "chunk"),
        (f"{base}/notes.md/pages/1.png", 422, "has no pages"),
        ("/v1/indexes/nope/documents/a.pdf/pages/1.png", 404, "nope"),
    ]
    for url, status, said in cases:
        got = client.get(url)
        assert got.status_code == status, (url, got.text)
        assert said in got.json()["error"]["message"], (url, got.text)
    pdf = folder / "manuals" / "guide.pdf"
    kept = pdf.read_bytes()
    try:
        pdf.write_bytes(kept + b"\n% saved again\n")  # one byte more: another sha256
        got = client.get(f"{base}/manuals/guide.pdf/highlight", params={"chunk": hit["chunk_id"]})
        assert got.status_code == 409 and "changed since it was indexed" in got.text
    finally:
        pdf.write_bytes(kept)
