"""`common.atomic`: a target holds the old content or all the new, never half; no temporary file
is left behind; every writer gets its own temporary name; JSON is strict."""

from __future__ import annotations

import json
import math
import threading

import pytest

from common.atomic import json_text, temporary_name, write_atomic, write_json_atomic


def test_a_failed_write_keeps_the_old_content_and_no_debris(tmp_path):
    target = tmp_path / "f.txt"
    target.write_text("old")
    with pytest.raises(RuntimeError), write_atomic(target, "w", encoding="utf-8") as fh:
        fh.write("half of the new")
        raise RuntimeError("killed mid-write")
    assert target.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f.txt"]


def test_a_finished_write_replaces_the_content(tmp_path):
    target = tmp_path / "f.bin"
    with write_atomic(target) as fh:
        fh.write(b"\x00new")
    assert target.read_bytes() == b"\x00new"
    assert [p.name for p in tmp_path.iterdir()] == ["f.bin"]


def test_concurrent_writers_never_share_a_temporary_file(tmp_path):
    target = tmp_path / "shared.json"
    names = {temporary_name(target) for _ in range(1000)}
    assert len(names) == 1000 and all(n.parent == tmp_path for n in names)

    def write(i: int) -> None:
        for _ in range(20):
            write_json_atomic(target, {"writer": i, "rows": list(range(500))})

    threads = [threading.Thread(target=write, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert json.loads(target.read_text())["rows"] == list(range(500))  # one whole write
    assert [p.name for p in tmp_path.iterdir()] == ["shared.json"]


def test_json_is_strict_at_any_depth():
    text = json_text({"a": math.nan, "b": [1.0, math.inf, {"c": -math.inf}], "d": "中文"})
    assert json.loads(text) == {"a": None, "b": [1.0, None, {"c": None}], "d": "中文"}
    assert "NaN" not in text and "Infinity" not in text and "中文" in text
