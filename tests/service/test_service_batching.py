"""One encoder per model per process, loaded once under a lock; concurrent encodings batched
into one call, each request getting its own rows; batching can be switched off."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import httpx
import numpy as np
import pytest

from indexer.index_encoder import load_index_encoder
from service import BatchedEncoder, Batcher, Encoders, ServiceConfig


def test_eight_concurrent_first_requests_load_the_encoder_once(thread_server):
    loads = []

    def slow_load(manifest, folder):
        loads.append(folder)
        time.sleep(0.5)  # every request arrives while the first load is under way
        return load_index_encoder(manifest, folder)

    encoders = Encoders(ServiceConfig(), load=slow_load)
    url, app = thread_server(encoders=encoders)
    gate = threading.Barrier(8)

    def search(i: int) -> int:
        gate.wait()
        with httpx.Client(base_url=url, timeout=60) as client:
            index = "tiny" if i % 2 else "writable"  # two indexes, one model
            return client.post(f"/v1/indexes/{index}/search",
                               json={"query": f"cat {i}", "k": 2}).status_code

    with ThreadPoolExecutor(8) as pool:
        codes = list(pool.map(search, range(8)))
    assert codes == [200] * 8
    assert len(loads) == 1 and encoders.loads == 1
    assert app.state.service.indexes.opens == 2  # each index opened once


def test_concurrent_submits_share_encode_calls_and_get_their_own_rows():
    calls = []

    def encode(texts, *, prompt, normalize):
        calls.append(list(texts))
        time.sleep(0.05)
        return np.array([[float(t.split()[-1]), len(texts)] for t in texts])

    batcher = Batcher(encode, max_texts=64, max_wait_s=0.01)
    gate = threading.Barrier(16)

    def submit(i: int) -> np.ndarray:
        gate.wait()
        return batcher.submit([f"text {i}", f"text {i + 100}"], prompt=None, normalize=True)

    with ThreadPoolExecutor(16) as pool:
        rows = list(pool.map(submit, range(16)))
    for i, got in enumerate(rows):
        assert got[:, 0].tolist() == [i, i + 100]  # each request its own rows, in order
    assert len(calls) < 16 and batcher.requests == 16 and batcher.calls == len(calls)
    assert max(len(c) for c in calls) > 2  # requests really were merged


def test_a_lone_request_on_an_idle_batcher_does_not_wait_for_company():
    batcher = Batcher(lambda texts, **_: np.zeros((len(texts), 2)), max_wait_s=5)
    started = time.monotonic()
    batcher.submit(["alone"], prompt=None, normalize=True)
    assert time.monotonic() - started < 2.5  # not the 5 s window: no other batch was running


def test_a_lone_request_on_an_idle_batcher_is_encoded_on_its_own_thread():
    threads = []

    def encode(texts, **_):
        threads.append(threading.current_thread())
        return np.zeros((len(texts), 2))

    batcher = Batcher(encode)
    for _ in range(3):
        batcher.submit(["alone"], prompt=None, normalize=True)
    assert threads == [threading.current_thread()] * 3  # no hop to a worker and back
    assert batcher.calls == batcher.requests == 3


def test_a_failing_batch_fails_its_requests_and_the_batcher_goes_on():
    def encode(texts, *, prompt, normalize):
        if "boom" in texts:
            raise RuntimeError("boom")
        return np.zeros((len(texts), 2))

    batcher = Batcher(encode, max_wait_s=0)
    with pytest.raises(RuntimeError, match="boom"):
        batcher.submit(["boom"], prompt=None, normalize=True)
    assert batcher.submit(["fine"], prompt=None, normalize=True).shape == (1, 2)


@pytest.mark.parametrize("batching", [True, False])
def test_the_batched_encoder_encodes_as_the_encoder_does(tiny_encoder, batching):
    enc = BatchedEncoder(tiny_encoder, batching=batching)
    texts = ["a cat", "a dog on a mat", "rain"]
    with ThreadPoolExecutor(3) as pool:
        got = list(pool.map(lambda t: enc.encode([t], prompt="query")[0], texts))
    np.testing.assert_allclose(np.array(got), tiny_encoder.encode(texts, prompt="query"),
                               atol=1e-5)
    assert (enc.batcher is not None) == batching
    with pytest.raises(ValueError):
        enc.encode(["fine", ""])  # a bad text fails its own request before any batch


def test_a_batch_runs_in_sub_batches_the_encoder_sorts_by_length():
    from service.batching import SUB_BATCH

    seen = []

    class Stub:
        name = "stub"

        def encode(self, texts, **options):
            seen.append((list(texts), options))
            return np.zeros((len(texts), 2))

    enc = BatchedEncoder(Stub(), batching=True)
    # no worker until all 12 requests wait (threads racing a 2 ms window on a loaded CI machine
    # had merged no batch past 8), then one takes them all
    enc.batcher = Batcher(enc._encode_now, max_texts=12, workers=0)

    with ThreadPoolExecutor(12) as pool:
        done = [pool.submit(enc.encode, ["word " * (1 + i % 5)]) for i in range(12)]
        deadline = time.monotonic() + 30
        while enc.batcher.pending() < 12:
            assert time.monotonic() < deadline
            time.sleep(0.01)
        enc.batcher.start(1)
        [d.result(timeout=30) for d in done]
    assert [len(texts) for texts, _ in seen] == [12]  # merged past one sub-batch ...
    assert {options["batch_size"] for _, options in seen} == {SUB_BATCH}  # ... run in 8s
