"""`common.publish`: a folder is built aside and published whole, once, under a lock; its
checksums tell a damaged folder from a good one."""

from __future__ import annotations

import json
import threading
from pathlib import Path

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


def test_a_build_killed_outright_leaves_a_staging_folder_the_next_build_removes(tmp_path):
    """kill -9 skips every `finally`: the e5 conversion and the OpenVINO export left hidden
    staging folders (914 MB and 465 MB) that no later run removed."""
    import os
    import signal
    import subprocess
    import sys
    import time

    target, started = tmp_path / "export", tmp_path / "started"
    code = ("import pathlib, sys, time; from common.publish import build_once\n"
            "t, s = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])\n"
            "def build(d):\n    (d / 'big.bin').write_bytes(b'x' * 1000); s.touch(); "
            "time.sleep(60)\n"
            "build_once(t, lambda: 'stale', build)\n")  # it builds, over a good target too
    neighbour = tmp_path / ".export-int8-abcdefgh"  # another target's: never touched
    neighbour.mkdir()
    for rebuilt in (True, False):
        child = subprocess.Popen([sys.executable, "-c", code, str(target), str(started)],
                                 cwd=str(Path(__file__).resolve().parents[2]))
        deadline = time.monotonic() + 60
        while not started.exists():
            assert time.monotonic() < deadline and child.poll() is None
            time.sleep(0.05)
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
        started.unlink()
        left = [p for p in tmp_path.iterdir() if p.name.startswith(".export-") and p != neighbour]
        assert len(left) == 1 and (left[0] / "big.bin").exists()
        # the next run: builds the target (first round), or finds it good (second round)
        build_once(target, lambda: None if target.exists() else "absent",
                   lambda d: write(d, {"a.txt": "made"}))
        assert not left[0].exists() and neighbour.exists()
        assert (target / "a.txt").read_text() == "made"
        if rebuilt:
            target_made = target.stat().st_mtime
    assert target.stat().st_mtime == target_made  # found good: not built again
