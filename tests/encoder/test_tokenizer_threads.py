"""One encoder shared by threads (the service's requests): counting tokens on one thread while
another encodes a batch must not switch the tokenizer's padding or truncation under it. Before
the tokenizer lock, a count (no padding) between another thread's padding set-up and its
tokenization gave that batch ragged rows ('setting an array element with a sequence')."""

from __future__ import annotations

import threading

TEXTS = [("word " * n).strip() for n in (1, 9, 3, 17, 2, 30, 5, 11)]


def test_counting_and_encoding_from_threads_never_collide(tiny_encoder):
    want_vectors = tiny_encoder.encode(TEXTS)
    want_counts = tiny_encoder.token_lengths(TEXTS)
    errors: list[str] = []
    wrong: list[str] = []

    def count() -> None:
        for i in range(400):
            try:
                if tiny_encoder.token_lengths(TEXTS[i % 8:]) != want_counts[i % 8:]:
                    wrong.append("count")
            except Exception as exc:  # noqa: BLE001 - the race's symptom, collected
                errors.append(repr(exc))

    def encode() -> None:
        for _ in range(150):
            try:
                got = tiny_encoder.encode(TEXTS)
                if abs(got - want_vectors).max() > 1e-5:
                    wrong.append("vectors")
            except Exception as exc:  # noqa: BLE001
                errors.append(repr(exc))

    threads = [threading.Thread(target=f) for f in (count, count, encode, encode)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and wrong == []
