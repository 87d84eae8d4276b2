"""`common.publish`: a folder is built aside and published whole, once, under a lock; its
checksums tell a damaged folder from a good one."""

from __future__ import annotations

import json
import threading

import pytest

from common.publish import build_once, file_checksums, files_problem, publish_folder


def write(folder, files: dict[str, str]) -> None:
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)


def test_a_failed_build_leaves_the_old_folder_and_no_staging(tmp_path):
    target = tmp_path / "model"
    publish_folder(target, lambda d: write(d, {"a.txt": "old"}))

    def broken(staging):
        write(staging, {"a.txt": "half"})
        raise RuntimeError("killed mid-build")

    with pytest.raises(RuntimeError):
        publish_folder(target, broken)
    assert (target / "a.txt").read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model"]


def test_checksums_find_missing_extra_and_damaged_files(tmp_path):
    write(tmp_path, {"a.txt": "a", "sub/b.bin": "b", "meta.json": "{}"})
    sums = file_checksums(tmp_path, leave_out=["meta.json"])
    assert set(sums) == {"a.txt", "sub/b.bin"}
    assert files_problem(tmp_path, sums, leave_out=["meta.json"]) is None
    (tmp_path / "sub" / "b.bin").write_text("B")
    assert "sub/b.bin is damaged" in files_problem(tmp_path, sums, leave_out=["meta.json"])
    (tmp_path / "extra").write_text("x")
    assert files_problem(tmp_path, sums, leave_out=["meta.json"]) == "files missing or unexpected"
    assert files_problem(tmp_path, {}) == "files missing or unexpected"
    assert set(file_checksums(tmp_path, keep=lambda rel: not rel.startswith("sub/"))) == \
        {"a.txt", "meta.json", "extra"}


def test_build_once_builds_once_among_racing_builders_and_says_when_it_replaces(tmp_path):
    target = tmp_path / "export"
    builds, stale = [], []

    def problem():
        try:
            return None if json.loads((target / "done.json").read_text())["ok"] else "bad"
        except FileNotFoundError:
            return "missing"

    def build(staging):
        builds.append(1)
        write(staging, {"done.json": json.dumps({"ok": True})})

    threads = [threading.Thread(target=build_once, args=(target, problem, build),
                                kwargs={"on_stale": stale.append}) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(builds) == 1 and problem() is None and not stale
    (target / "done.json").write_text(json.dumps({"ok": False}))  # damaged
    build_once(target, problem, build, on_stale=stale.append)
    assert len(builds) == 2 and stale == ["bad"] and problem() is None
