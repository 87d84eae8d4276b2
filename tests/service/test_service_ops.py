"""What a team running the service relies on: /docs and /redoc with no request leaving the
machine, /metrics in Prometheus text, /ready, a JSON 429 past --max-concurrent-requests while
/health answers, and connections that send nothing, or stop sending their request, closed."""

from __future__ import annotations

import re
import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest
from conftest import wait_until_ready

from indexer.index_encoder import load_index_encoder
from service import Encoders, ServiceConfig


@pytest.fixture(scope="module")
def api(server):
    with server.client() as client:
        yield client


def test_the_docs_load_everything_from_this_server(api):
    for page in ("/docs", "/redoc"):
        html = api.get(page)
        assert html.status_code == 200 and "<html" in html.text.lower()
        assert not re.search(r"(https?:)?//[a-z0-9]", html.text, re.I), page  # no other host
        assets = re.findall(r'(?:src|href)="([^"]+)"', html.text)
        assert any(a.endswith(".js") for a in assets), page
        for asset in assets:
            assert asset.startswith("/"), (page, asset)
            got = api.get(asset)
            assert got.status_code == 200 and len(got.content) > 1000, (page, asset)
    assert "validatorUrl\": null" in api.get("/docs").text  # Swagger UI's online validator off


def test_metrics_count_requests_by_route_and_report_the_encoders(api):
    from prometheus_client.parser import text_string_to_metric_families

    assert api.post("/v1/indexes/tiny/search", json={"query": "cat", "k": 2}).status_code == 200
    assert api.post("/v1/indexes/nope/search", json={"query": "cat"}).status_code == 404
    assert api.post("/v1/embeddings", json={"model": "tiny-bert",
                                            "input": ["a", "b", "c"]}).status_code == 200
    response = api.get("/metrics")
    assert response.status_code == 200 and response.headers["content-type"].startswith(
        "text/plain")
    samples = [s for family in text_string_to_metric_families(response.text)
               for s in family.samples]

    def value(name: str, **labels) -> float:
        return sum(s.value for s in samples if s.name == name
                   and all(s.labels.get(k) == v for k, v in labels.items()))

    search = "/v1/indexes/{name}/search"
    assert value("bertscope_requests_total", route=search, status="200") >= 1
    assert value("bertscope_requests_total", route=search, status="404") >= 1
    buckets = [s for s in samples if s.name == "bertscope_request_seconds_bucket"
               and s.labels["route"] == search]
    assert buckets and max(s.value for s in buckets) >= 2  # the +Inf bucket holds both
    assert value("bertscope_encode_batch_texts_count", model="tiny-bert") >= 2
    assert value("bertscope_encode_batch_texts_sum", model="tiny-bert") >= 4  # 1 query + 3
    assert value("bertscope_encode_queue_seconds_count") >= 2
    assert value("bertscope_encoder_loaded") >= 1
    assert value("bertscope_index_version", index="tiny") >= 1
    assert value("process_resident_memory_bytes") > 0
    assert not any("/nope/" in s.labels.get("route", "") for s in samples)  # templates only


def test_ready_loads_the_encoders_and_names_a_damaged_index(thread_server):
    url, app = thread_server()
    (app.state.service.config.index_root / "broken").mkdir()
    (app.state.service.config.index_root / "broken" / "manifest.json").write_text("{not json")
    first = httpx.get(f"{url}/ready")
    assert first.status_code == 503 and first.headers["retry-after"]
    body = first.json()
    assert "broken" in body["error"]["message"] and "broken" in body["damaged"]
    assert set(body["loading"]) == {"tiny", "writable"}
    (app.state.service.config.index_root / "broken" / "manifest.json").unlink()
    ready = wait_until_ready(url, timeout=60)
    assert ready["status"] == "ready" and ready["encoders_loaded"] == 1
    assert httpx.get(f"{url}/health").json()["status"] == "ok"


def test_past_max_concurrent_requests_a_json_429_while_health_answers(thread_server):
    release = threading.Event()

    def slow_load(manifest, folder):
        release.wait(30)  # every search waits here, holding its place
        return load_index_encoder(manifest, folder)

    url, app = thread_server(max_concurrent_requests=2,
                             encoders=Encoders(ServiceConfig(), load=slow_load))

    def search(i: int) -> httpx.Response:
        return httpx.post(f"{url}/v1/indexes/tiny/search", json={"query": f"cat {i}"},
                          timeout=60)

    with ThreadPoolExecutor(8) as pool:
        running = [pool.submit(search, i) for i in range(2)]
        deadline = time.monotonic() + 30
        while app.state.service.metrics.in_flight._value.get() < 2:
            assert time.monotonic() < deadline
            time.sleep(0.02)
        refused = list(pool.map(search, range(2, 8)))
        health = httpx.get(f"{url}/health", timeout=5)
        metrics = httpx.get(f"{url}/metrics", timeout=5)
        release.set()
        done = [r.result() for r in running]
    assert [r.status_code for r in done] == [200, 200]
    for r in refused:
        assert r.status_code == 429 and r.headers["retry-after"] == "1"
        assert "--max-concurrent-requests" in r.json()["error"]["message"]
    assert health.status_code == 200 and metrics.status_code == 200
    assert "bertscope_requests_refused_total 6.0" in metrics.text


def _closed_within(sock: socket.socket, seconds: float) -> tuple[bytes, float]:
    """What the server sent before closing `sock`, and after how long."""
    started = time.monotonic()
    sock.settimeout(seconds)
    got = b""
    while True:
        chunk = sock.recv(65536)
        if not chunk:
            return got, time.monotonic() - started
        got += chunk


def test_idle_sockets_and_stalled_requests_are_closed_in_time(thread_server):
    url, _ = thread_server(idle_timeout_s=0.5, request_timeout_s=1.0)
    host, port = url.removeprefix("http://").split(":")
    address = (host, int(port))
    idle = [socket.create_connection(address) for _ in range(20)]
    assert httpx.get(f"{url}/health", timeout=5).status_code == 200  # beside 20 idle sockets
    for sock in idle:
        got, after = _closed_within(sock, 10)
        assert got == b"" and after < 5
        sock.close()
    # headers that never finish, and a body that stops arriving: 408 in JSON, then closed
    stalls = {"headers": b"POST /v1/indexes/tiny/search HTTP/1.1\r\nHost: x\r\nContent-",
              "body": b"POST /v1/indexes/tiny/search HTTP/1.1\r\nHost: x\r\ncontent-type: "
                      b"application/json\r\ncontent-length: 100\r\n\r\n{\"query\": "}
    for what, sent in stalls.items():
        with socket.create_connection(address) as sock:
            sock.sendall(sent)
            got, after = _closed_within(sock, 10)
        assert got.startswith(b"HTTP/1.1 408 "), (what, got)
        assert b'"request_timeout"' in got and b"--request-timeout" in got, what
        assert 0.8 < after < 6, (what, after)
    with socket.create_connection(address) as sock:  # a negative Content-Length: JSON too
        sock.sendall(b"POST /v1/indexes/tiny/search HTTP/1.1\r\nHost: x\r\n"
                     b"content-length: -5\r\n\r\n")
        got, _ = _closed_within(sock, 10)
    assert got.startswith(b"HTTP/1.1 400 ") and b"application/json" in got
    assert b"Content-Length" in got and b'"error"' in got
    assert httpx.get(f"{url}/health", timeout=5).status_code == 200


def test_tokenize_agrees_with_the_encoder_s_tokenizer(api, tiny_encoder):
    texts = ["The cats sat on a mat.", "rain"]
    got = api.post("/v1/tokenize", json={"model": "tiny-bert", "input": texts})
    assert got.status_code == 200, got.text
    data = got.json()["data"]
    for text, row in zip(texts, data, strict=True):
        ids = tiny_encoder.tokenizer(text)["input_ids"]
        assert [t["id"] for t in row["tokens"]] == ids
        assert row["count"] == len(ids) and row["model_reads"] == len(ids)
        first, last = row["tokens"][0], row["tokens"][-1]
        assert first["special"] and last["special"] and first["start"] is None
        for token in row["tokens"][1:-1]:
            assert not token["special"]
            piece = text[token["start"]:token["end"]].lower()
            assert piece == token["text"].removeprefix("##").lower()
    one = api.post("/v1/tokenize", json={"model": "tiny-bert", "input": "rain",
                                         "add_special_tokens": False}).json()["data"]
    assert [t["id"] for t in one[0]["tokens"]] == tiny_encoder.tokenizer(
        "rain", add_special_tokens=False)["input_ids"]
    refused = api.post("/v1/tokenize", json={"model": "tiny-bert", "input": [" "]})
    assert refused.status_code == 422 and "input[0]" in refused.json()["error"]["message"]


def test_ready_names_an_index_whose_encoder_cannot_load(thread_server):
    def broken(manifest, folder):
        raise RuntimeError("the model files are gone")

    url, _ = thread_server(encoders=Encoders(ServiceConfig(), load=broken))
    deadline = time.monotonic() + 30
    while True:
        body = httpx.get(f"{url}/ready").json()
        if body["damaged"]:
            break
        assert time.monotonic() < deadline, body
        time.sleep(0.05)
    assert "the model files are gone" in body["error"]["message"]
    assert set(body["damaged"]) == {"tiny", "writable"}
