"""Keys with scopes (issue 50, the service's half), over HTTP through the app in-process: three
principals (a reader of index `a`, a writer of index `b`, a `team-a` group member reading
`team-a*`) and an admin of `*`, against every route of the app (a route added without an access
rule or a sample request here fails `test_every_route_has_a_rule_and_a_sample`); a refusal's 403
is the same bytes for an index that exists and one that does not; `/v1/indexes` lists only what
the caller may read; a revoked key is refused within a second with no restart."""

from __future__ import annotations

import time

import pytest
from conftest import make_root
from fastapi.testclient import TestClient

from common.keys.keyfile import write_keys
from common.keys.principals import Keyring, Principal, hash_key
from service import ServiceConfig, create_app
from service.access import ALL_ADMIN, ANY, OPEN, RULES, api_routes, readers_of
from service.keys_cli import main as keys_main

FAST = {"n": 16, "r": 1, "p": 1}  # cheap hashes for tests; the file carries its parameters
KEYS = {"reader": "key-reader-0123456789", "writer": "key-writer-0123456789",
        "member": "key-member-0123456789", "admin": "key-admin-01234567890"}
SCOPES = {"reader": {"a": "read"}, "writer": {"b": "write"}, "member": {"team-a*": "read"},
          "admin": {"*": "admin"}}
INDEXES = ("a", "b", "team-a-x")
NAMES = (*INDEXES, "missing")


def keyring() -> Keyring:
    return Keyring(tuple(Principal(who, (hash_key(KEYS[who], **FAST),),
                                   ("team-a",) if who == "member" else (),
                                   tuple(SCOPES[who].items())) for who in KEYS))


@pytest.fixture(scope="module")
def served(tmp_path_factory, _tiny_built):
    base = tmp_path_factory.mktemp("access")
    root = make_root(base / "root", _tiny_built, names=INDEXES)
    write_keys(base / "keys.toml", keyring())
    app = create_app(ServiceConfig(index_root=root, keys_file=base / "keys.toml",
                                   audit_log=base / "audit.jsonl"))
    return app, base


def client(app, who: str | None) -> TestClient:
    headers = {"Authorization": f"Bearer {KEYS[who]}"} if who else {}
    return TestClient(app, headers=headers, raise_server_exceptions=False)


# one request each route answers; {name}: the index asked for
SAMPLES = {
    "/health": ("GET", "/health", None), "/ready": ("GET", "/ready", None),
    "/docs": ("GET", "/docs", None), "/redoc": ("GET", "/redoc", None),
    "/openapi.json": ("GET", "/openapi.json", None),
    "/docs/oauth2-redirect": ("GET", "/docs/oauth2-redirect", None),
    "/static-offline-docs": ("GET", "/static-offline-docs/swagger-ui.css", None),
    "/metrics": ("GET", "/metrics", None),
    "/v1/indexes": ("GET", "/v1/indexes", None), "/v1/models": ("GET", "/v1/models", None),
    "/v1/embeddings": ("POST", "/v1/embeddings", {"model": "nope", "input": "x"}),
    "/v1/tokenize": ("POST", "/v1/tokenize", {"model": "nope", "input": "x"}),
    "/v1/explain": ("POST", "/v1/explain", {"index": "{name}", "query": "cat",
                                            "passage": "a cat"}),
    "/v1/indexes/{name}/search": ("POST", "/v1/indexes/{name}/search",
                                  {"query": "cat", "k": 2}),
    "/v1/indexes/{name}/context": ("POST", "/v1/indexes/{name}/context", {"query": "cat"}),
    "/v1/indexes/{name}/documents/{doc_id:path}/pages/{page}.png": (
        "GET", "/v1/indexes/{name}/documents/doc01/pages/1.png", None),
    "/v1/indexes/{name}/documents/{doc_id:path}/highlight": (
        "GET", "/v1/indexes/{name}/documents/doc01/highlight?chunk=0", None),
    "/v1/indexes/{name}/documents": ("DELETE", "/v1/indexes/{name}/documents",
                                     {"ids": ["never-there"]}),
}


def test_every_route_has_a_rule_and_a_sample(served):
    app, _ = served
    templates = {r.path for r in api_routes(app.routes)}
    assert templates == set(RULES), "a route without an access rule (service/access.py RULES)"
    assert templates == set(SAMPLES), "a route without a sample request in this test"


def allowed(who: str | None, template: str, name: str) -> bool:
    rule = RULES[template]
    if rule == OPEN:
        return True
    if who is None:
        return False
    principal = dict((p.name, p) for p in keyring().principals)[who]
    if rule == ALL_ADMIN:
        return principal.admin_of_all()
    if rule == ANY and template != "/v1/explain":
        return True
    level = "read" if template == "/v1/explain" else rule[0]
    return principal.may(level, name)


def fill(value, name: str):
    if isinstance(value, str):
        return value.replace("{name}", name)
    if isinstance(value, dict):
        return {k: fill(v, name) for k, v in value.items()}
    return value


@pytest.mark.parametrize("who", [None, *KEYS])
@pytest.mark.parametrize("template", list(SAMPLES))
def test_every_route_for_every_principal(served, who, template):
    app, _ = served
    method, path, body = SAMPLES[template]
    names = NAMES if "{name}" in path or (body and "{name}" in str(body)) else ("-",)
    with client(app, who) as api:
        for name in names:
            got = api.request(method, fill(path, name), json=fill(body, name))
            if allowed(who, template, name):
                assert got.status_code not in (401, 403), (who, name, got.text)
                if name == "missing" and "{name}" in path:
                    assert got.status_code == 404, got.text  # only a caller allowed the name
                    assert not any(f"{n}," in got.text or f"{n}'" in got.text
                                   for n in INDEXES), got.text  # and it lists no index
            elif who is None:
                assert got.status_code == 401, got.text
                assert got.headers["www-authenticate"].startswith("Bearer")
            else:
                assert got.status_code == 403, (who, name, got.text)


def test_a_403_is_the_same_bytes_for_an_index_that_exists_and_one_that_does_not(served):
    app, _ = served
    with client(app, "reader") as api:
        for method, path, body in [SAMPLES[t] for t in SAMPLES if "{name}" in SAMPLES[t][1]]:
            there = api.request(method, path.replace("{name}", "b"), json=body)
            gone = api.request(method, path.replace("{name}", "nothing-here"), json=body)
            assert there.status_code == gone.status_code == 403
            assert there.content == gone.content
            assert dict(there.headers) == dict(gone.headers)


def test_indexes_and_models_list_only_what_the_caller_may_read(served):
    app, _ = served
    seen = {}
    for who in KEYS:
        with client(app, who) as api:
            seen[who] = [d["name"] for d in api.get("/v1/indexes").json()["data"]]
            for model in api.get("/v1/models").json()["data"]:
                assert set(model["indexes"]) <= set(seen[who])
    assert seen == {"reader": ["a"], "writer": ["b"], "member": ["team-a-x"],
                    "admin": list(INDEXES)}


def test_a_wrong_key_is_401_and_metrics_count_refusals_by_reason(served):
    app, _ = served
    with TestClient(app, headers={"Authorization": "Bearer not-a-key-at-all"}) as wrong:
        got = wrong.post("/v1/indexes/a/search", json={"query": "cat"})
    assert got.status_code == 401 and "not valid" in got.json()["error"]["message"]
    with client(app, "reader") as api:
        assert api.post("/v1/indexes/b/search", json={"query": "cat"}).status_code == 403
    with client(app, "admin") as api:
        text = api.get("/metrics").text
    counts = {line.split('"')[1]: float(line.split()[-1]) for line in text.splitlines()
              if line.startswith("bertscope_access_refused_total{")}
    assert counts["bad_key"] >= 1 and counts["scope"] >= 1 and counts["no_key"] >= 0


def test_readers_of_is_the_principal_and_its_groups(served):
    from starlette.requests import Request

    app, _ = served
    member = keyring().principals[2]
    request = Request({"type": "http", "app": app, "state": {"principal": member}})
    assert readers_of(request) == {"member", "team-a"}
    open_app = create_app(ServiceConfig(index_root=served[1] / "root"))
    assert readers_of(Request({"type": "http", "app": open_app, "state": {}})) is None


def test_a_revoked_key_is_refused_within_a_second_without_a_restart(served, tmp_path):
    app, base = served
    path = tmp_path / "keys.yaml"
    write_keys(path, keyring())
    revocable = create_app(ServiceConfig(index_root=base / "root", keys_file=path))
    with client(revocable, "member") as api:
        assert api.post("/v1/indexes/team-a-x/search", json={"query": "cat"}).status_code == 200
        assert keys_main(["remove", "member", "--keys", str(path)]) == 0
        revoked = time.monotonic()
        while api.get("/v1/indexes").status_code != 401:
            assert time.monotonic() - revoked < 1.0, "the revoked key still works after 1 s"
            time.sleep(0.02)
    with client(revocable, "reader") as api:  # the others' keys still work
        assert api.get("/v1/indexes").status_code == 200


def test_a_bad_file_on_reload_keeps_the_last_good_keys(served, tmp_path, caplog):
    app, base = served
    path = tmp_path / "keys.toml"
    write_keys(path, keyring())
    guarded = create_app(ServiceConfig(index_root=base / "root", keys_file=path))
    path.write_text("[[principals]]\nname = 'x'\nkeys = 'oops'\n")
    time.sleep(0.25)
    with client(guarded, "reader") as api:
        assert api.get("/v1/indexes").status_code == 200
    assert "last good keys" in caplog.text and "keys" in caplog.text


def test_health_and_ready_answer_without_a_key_and_name_no_index(served):
    app, _ = served
    with client(app, None) as anonymous:
        for _ in range(300):
            ready = anonymous.get("/ready")
            body = ready.text
            assert not any(f'"{name}"' in body or f"'{name}'" in body for name in INDEXES)
            assert isinstance(ready.json()["loading"], int)
            if ready.status_code == 200:
                break
            time.sleep(0.05)
        assert ready.status_code == 200, body
        assert anonymous.get("/health").json()["indexes"] == len(INDEXES)


def test_the_schema_declares_the_key_on_every_route_that_needs_one(served):
    app, _ = served
    with client(app, None) as anonymous:
        schema = anonymous.get("/openapi.json").json()
    assert schema["components"]["securitySchemes"]["bearer"]["scheme"] == "bearer"
    for path, operations in schema["paths"].items():
        for operation in operations.values():
            keyed = path not in ("/health", "/ready")
            assert ("security" in operation) == keyed, path
            if keyed:
                assert {"401", "403", "429"} <= set(operation["responses"]), path


def test_an_index_name_as_a_model_is_unknown_to_a_caller_who_may_not_read_it(served):
    app, _ = served
    body = lambda model: {"model": model, "input": "a cat"}  # noqa: E731
    with client(app, "reader") as api:
        assert api.post("/v1/embeddings", json=body("a")).status_code == 200
        hidden = api.post("/v1/embeddings", json=body("b"))
        missing = api.post("/v1/embeddings", json=body("not-an-index"))
        assert hidden.status_code == missing.status_code == 404
        assert hidden.json()["error"]["message"] == \
            missing.json()["error"]["message"].replace("not-an-index", "b")
        assert api.post("/v1/tokenize", json=body("b")).status_code == 404


def test_behind_a_root_path_the_rules_hold(served):
    """A server mounted under a prefix (uvicorn --root-path) matches routes without it: so
    must the rules, or every route would fall to 'any key'."""
    app, _ = served
    with TestClient(app, root_path="/api", raise_server_exceptions=False,
                    headers={"Authorization": f"Bearer {KEYS['reader']}"}) as api:
        assert api.post("/api/v1/indexes/b/search", json={"query": "cat"}).status_code == 403
        assert api.post("/api/v1/indexes/a/search", json={"query": "cat"}).status_code == 200
