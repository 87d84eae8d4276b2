"""Threads opening one index at once (three writers, the service's request threads) never parse
two `.npy` headers at the same time: numpy parses them with `ast.literal_eval`, and CPython 3.11's
`ast` shares one recursion counter between threads (`SystemError: AST constructor recursion depth
mismatch`, cpython gh-106905), which failed the concurrent-writers contract test about once in
30."""

from __future__ import annotations

import ast
import threading
import time

from indexer.folder.store import open_version


def test_threads_opening_one_index_never_parse_headers_at_once(flat_index, monkeypatch):
    inside, overlaps = [0], []
    guard = threading.Lock()
    real = ast.literal_eval

    def watched(text):
        with guard:
            inside[0] += 1
            if inside[0] > 1:
                overlaps.append(text)
        time.sleep(0.002)  # hand the GIL over mid-parse, as a collection's finaliser can
        try:
            return real(text)
        finally:
            with guard:
                inside[0] -= 1

    monkeypatch.setattr(ast, "literal_eval", watched)
    errors: list[BaseException] = []

    def reader() -> None:
        try:
            for _ in range(3):
                open_version(flat_index).conn.close()
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=reader) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not errors and not overlaps
