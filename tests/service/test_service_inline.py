"""Light requests answered on the event loop (service/inline.py): only alone, only light, only
once their kind is known to run under the budget; the answers are the thread pool's."""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import ThreadPoolExecutor

import httpx

from service.inline import InFlight, Inline


def _where(inline: Inline, kind: tuple, *, light: bool = True, sleep: float = 0.0) -> str:
    """Which thread ran the work: "loop" (this test's event loop) or "pool"."""

    async def ask() -> str:
        loop_thread = threading.current_thread()

        def work() -> str:
            if sleep:
                threading.Event().wait(sleep)
            return "loop" if threading.current_thread() is loop_thread else "pool"

        return await inline.answer(kind, work, light=light)

    # a loop of its own on a thread of its own: a browser test before this one in the same
    # worker leaves playwright's loop running on the main thread, where asyncio.run refuses
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, ask()).result()


def test_only_a_light_lone_request_of_a_kind_known_to_be_short_runs_on_the_loop():
    in_flight = InFlight()
    in_flight.n = 1  # this request alone
    seen = []
    inline = Inline(in_flight, budget_s=0.05, on_loop=seen.append)
    kind = ("/v1/embeddings", "m")
    assert _where(inline, kind) == "pool"  # its first run: how long it takes is unknown
    assert _where(inline, kind) == "loop"
    assert _where(inline, kind, light=False) == "pool"  # many or long texts
    in_flight.n = 2  # another request under way: it must not wait for this one
    assert _where(inline, kind) == "pool"
    in_flight.n = 1
    assert _where(inline, kind) == "loop"
    assert _where(inline, ("/v1/embeddings", "other")) == "pool"  # kinds are learned apart
    assert _where(inline, kind, sleep=0.08) == "loop"  # over the budget: its kind goes back
    assert _where(inline, kind) == "pool"
    assert _where(inline, kind) == "loop"  # short again on the pool: back on the loop
    assert seen == ["/v1/embeddings"] * 4


def test_light_texts_are_few_and_short():
    assert Inline.light(["rising oil prices"])
    assert not Inline.light(["q"] * 9)
    assert not Inline.light(["x" * 2001])


def test_one_client_s_searches_move_to_the_loop_with_the_same_answers(thread_server):
    url, app = thread_server()
    app.state.service.inline.budget_s = 60.0  # a loaded CI machine may take >20 ms: the policy
    body = {"query": "the cat sleeps", "k": 3}  # test above covers the budget itself
    with httpx.Client(base_url=url, timeout=60) as client:
        answers = [client.post("/v1/indexes/tiny/search", json=body).json() for _ in range(6)]
        embedded = [client.post("/v1/embeddings", json={"model": "tiny-bert", "input": "cat"}
                                ).json()["data"][0]["embedding"] for _ in range(4)]
        metrics = client.get("/metrics").text
    first = [(h["doc_id"], h["chunk_id"], round(h["score"], 5)) for h in answers[0]["hits"]]
    for a in answers[1:]:
        assert [(h["doc_id"], h["chunk_id"], round(h["score"], 5)) for h in a["hits"]] == first
    assert all(e == embedded[0] for e in embedded)
    from prometheus_client.parser import text_string_to_metric_families

    on_loop = {s.labels["route"]: s.value for family in text_string_to_metric_families(metrics)
               for s in family.samples if s.name == "bertscope_requests_on_loop_total"}
    # the first search opens the index (pool); once known short, the rest run on the loop
    assert 3 <= on_loop["/v1/indexes/{name}/search"] <= 5
    assert 2 <= on_loop["/v1/embeddings"] <= 3
