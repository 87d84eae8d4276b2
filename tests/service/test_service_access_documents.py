"""Per-document access through the service (issue 50): with `--keys`, every read route passes
the caller's name and groups to the index, which filters before top-k. A reader outside `hr`
never gets an `hr` document (not by its exact words, not in a context, not as a page or its
boxes, which answer as for a document that does not exist) and counts only what it may see in
`/v1/indexes`; an `hr` member gets them; k is filled from what the caller may see."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from common.keys.keyfile import write_keys
from common.keys.principals import Keyring, Principal, hash_key
from service import ServiceConfig, create_app

FAST = {"n": 16, "r": 1, "p": 1}
KEYS = {"reader": "key-reader-0123456789", "member": "key-member-0123456789"}
SECRET = "zanzibar quarterly salary bands for the whole payroll"
PUBLIC, HIDDEN = 14, 6


def docs() -> list[dict]:
    out = [{"id": f"pub{i:02d}", "title": f"Public note {i}",
            "text": f"a public note number {i} about payroll and the weather"}
           for i in range(PUBLIC)]
    out += [{"id": f"hr{i:02d}", "title": f"HR secret {i}", "text": f"{SECRET} {i}",
             "metadata": {"access": ["hr"]}} for i in range(HIDDEN)]
    return out


@pytest.fixture(scope="module")
def app(tmp_path_factory, tiny_encoder):
    from indexer import build_index

    base = tmp_path_factory.mktemp("access-docs")
    build_index(docs(), base / "root" / "team", model=tiny_encoder, preset="flat")
    ring = Keyring((Principal("reader", (hash_key(KEYS["reader"], **FAST),), (),
                              (("team", "read"),)),
                    Principal("member", (hash_key(KEYS["member"], **FAST),), ("hr",),
                              (("team", "read"),))))
    write_keys(base / "keys.toml", ring)
    return create_app(ServiceConfig(index_root=base / "root", keys_file=base / "keys.toml",
                                    audit_log=base / "audit.jsonl"))


def api(app, who: str) -> TestClient:
    return TestClient(app, headers={"Authorization": f"Bearer {KEYS[who]}"},
                      raise_server_exceptions=False)


@pytest.mark.parametrize("mode", ["dense", "lexical", "hybrid"])
def test_a_hidden_document_s_exact_words_find_nothing_of_it(app, mode):
    with api(app, "reader") as reader, api(app, "member") as member:
        got = reader.post("/v1/indexes/team/search",
                          json={"query": SECRET, "k": 10, "mode": mode, "highlight": True})
        assert got.status_code == 200, got.text
        hits = got.json()["hits"]
        assert len(hits) == 10 and all(h["doc_id"].startswith("pub") for h in hits)
        assert "zanzibar" not in got.text and "HR secret" not in got.text
        seen = member.post("/v1/indexes/team/search",
                           json={"query": SECRET, "k": 10, "mode": mode}).json()["hits"]
        assert any(h["doc_id"].startswith("hr") for h in seen)


def test_the_context_holds_only_what_the_caller_may_see(app):
    with api(app, "reader") as reader, api(app, "member") as member:
        got = reader.post("/v1/indexes/team/context", json={"query": SECRET, "k": 20})
        assert got.status_code == 200, got.text
        assert "zanzibar" not in got.text and got.json()["chunks"]
        assert "zanzibar" in member.post("/v1/indexes/team/context",
                                         json={"query": SECRET, "k": 20}).text


def test_timings_are_whole_milliseconds_for_a_caller_with_a_key(app):
    """The server's own clock, to the microsecond, showed an index's size to a caller timing
    it (bench/results/access_timing.md): with --keys it says whole milliseconds."""
    with api(app, "reader") as reader:
        for route, body in (("search", {"query": SECRET, "k": 5}),
                            ("context", {"query": SECRET, "k": 5})):
            got = reader.post(f"/v1/indexes/team/{route}", json=body).json()["timings"]
            assert set(got) == {"encode_ms", "search_ms", "total_ms"}
            assert all(float(v).is_integer() and v >= 0 for v in got.values()), got


def test_counts_in_the_index_list_are_the_caller_s(app):
    with api(app, "reader") as reader, api(app, "member") as member:
        mine = reader.get("/v1/indexes").json()["data"][0]
        theirs = member.get("/v1/indexes").json()["data"][0]
    assert (mine["documents"], theirs["documents"]) == (PUBLIC, PUBLIC + HIDDEN)
    assert mine["chunks"] < theirs["chunks"]


@pytest.mark.parametrize("page", [True, False])
def test_a_hidden_document_s_page_answers_as_a_missing_one(app, page):
    with api(app, "reader") as reader, api(app, "member") as member:
        hits = member.post("/v1/indexes/team/search",
                           json={"query": SECRET, "k": 20, "mode": "lexical"}).json()["hits"]
        chunk = next(h["chunk_id"] for h in hits if h["doc_id"] == "hr00")
        path = "pages/1.png" if page else f"highlight?chunk={chunk}"
        hidden = reader.get(f"/v1/indexes/team/documents/hr00/{path}")
        missing = reader.get(f"/v1/indexes/team/documents/hr99/{path}")
        assert hidden.status_code == missing.status_code == 404
        assert hidden.text == missing.text.replace("hr99", "hr00")
        # to a member it is there (a document of rows: it has no pages, a 422 saying so)
        assert member.get(f"/v1/indexes/team/documents/hr00/{path}").status_code == 422
