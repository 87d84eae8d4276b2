"""bench/kit/benchkit.py: every result file says which commit, command, date and CPU made it."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bench.kit import benchkit

REPO = Path(__file__).resolve().parents[2]

CPUINFO = """processor\t: 0
model name\t: Test CPU 9000 @ 2.0GHz
flags\t\t: fpu sse2 avx avx2 avx512f avx512_vnni amx_int8
"""


def head_commit() -> str:
    return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True,
                          text=True, check=True).stdout.strip()


@pytest.fixture
def fake_machine(monkeypatch, tmp_path):
    """A known CPU (cpuinfo read from a file) and a known command line."""
    info = tmp_path / "cpuinfo"
    info.write_text(CPUINFO)
    real = benchkit.machine
    monkeypatch.setattr(benchkit, "machine", lambda cpuinfo=info: real(cpuinfo))
    monkeypatch.setattr(sys, "argv", [str(REPO / "bench" / "fake.py"), "--n", "3"])


def test_write_results_stamps_commit_command_date_and_cpu_into_both_files(fake_machine,
                                                                          tmp_path):
    before = time.strftime("%Y-%m-%d", time.gmtime())
    json_path, md_path = benchkit.write_results(
        "demo", {"rows": [{"x": 1}]}, "# Demo table\n\n| x |\n|---|\n| 1 |\n",
        folder=tmp_path / "out")
    assert (json_path, md_path) == (tmp_path / "out" / "demo.json", tmp_path / "out" / "demo.md")
    payload = json.loads(json_path.read_text())
    stamp = payload["stamp"]
    assert payload["rows"] == [{"x": 1}]
    assert stamp["commit"].startswith(head_commit())
    assert re.search(r"(^| )-m bench\.fake --n 3$", stamp["command"])
    assert stamp["date"][:10] in (before, time.strftime("%Y-%m-%d", time.gmtime()))
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC", stamp["date"])
    assert stamp["cpu"] == "Test CPU 9000 @ 2.0GHz"
    assert stamp["cpu_flags"] == ["avx2", "avx512f", "avx512_vnni", "amx_int8"]
    assert "node" not in stamp  # no host name in a committed file

    md = md_path.read_text().splitlines()
    assert md[0] == "# Demo table"  # the title stays first, the stamp right under it
    line = md[2]
    for part in (stamp["commit"], stamp["command"], stamp["date"], stamp["cpu"],
                 "avx512_vnni", "amx_int8"):
        assert part in line
    assert md[-1] == "| 1 |"


def test_write_results_writes_to_the_results_folder_by_default(fake_machine, monkeypatch,
                                                               tmp_path):
    monkeypatch.setattr(benchkit, "RESULTS", tmp_path / "results")
    benchkit.write_results("demo", {}, "no title here\n")
    md = (tmp_path / "results" / "demo.md").read_text().splitlines()
    assert md[0].startswith("Run: commit ") and md[-1] == "no title here"


def test_a_kept_stamp_is_written_as_it_was(tmp_path):
    """Re-rendering saved results keeps the stamp of the run that measured them."""
    old = {"commit": "abc1234", "command": "python bench/x.py", "date": "2026-01-01 00:00 UTC",
           "cpu": "Old CPU", "cpu_flags": ["avx2"], "cpus": 2}
    json_path, md_path = benchkit.write_results("demo", {"stamp": {"ignored": 1}, "a": 1},
                                                "# T\n", folder=tmp_path, stamp=old)
    assert json.loads(json_path.read_text())["stamp"] == old
    assert "abc1234" in md_path.read_text() and "Old CPU" in md_path.read_text()


def test_the_commit_is_marked_when_tracked_files_changed(tmp_path):
    def git(*args):
        subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=tmp_path,
                       check=True, capture_output=True)

    git("init", "-q")
    (tmp_path / "a.txt").write_text("1")
    git("add", "a.txt")
    git("commit", "-q", "-m", "one")
    clean = benchkit.git_commit(tmp_path)
    assert re.fullmatch(r"[0-9a-f]{4,}", clean)
    (tmp_path / "untracked.txt").write_text("new")  # untracked files do not count
    assert benchkit.git_commit(tmp_path) == clean
    (tmp_path / "a.txt").write_text("2")
    assert benchkit.git_commit(tmp_path) == clean + " + uncommitted changes"


def test_the_stamped_command_has_no_machine_paths(monkeypatch, tmp_path):
    monkeypatch.setenv("BERTSCOPE_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("BERTSCOPE_DATA", str(tmp_path / "data"))
    command = benchkit.command([str(REPO / "bench" / "scifact_cv.py"),
                                "--cv", str(tmp_path / "home" / "runs" / "scifact"),
                                "--data", str(tmp_path / "data"),
                                "--index", f"minilm={tmp_path / 'home' / 'bench' / 'ix'}",
                                "--out", str(REPO / "bench" / "results"),
                                "--elsewhere", "/some/machine/folder"])
    assert command.endswith(" -m bench.scifact_cv --cv $BERTSCOPE_HOME/runs/scifact "
                            "--data $BERTSCOPE_DATA --index minilm=$BERTSCOPE_HOME/bench/ix "
                            "--out bench/results --elsewhere .../folder")
    assert str(tmp_path) not in command and str(REPO) not in command


def test_machine_reads_the_cpu_model_and_only_the_flags_that_matter(tmp_path):
    info = tmp_path / "cpuinfo"
    info.write_text(CPUINFO)
    got = benchkit.machine(info)
    assert got["cpu"] == "Test CPU 9000 @ 2.0GHz"
    assert got["cpu_flags"] == ["avx2", "avx512f", "avx512_vnni", "amx_int8"]
    assert set(got) == {"cpu", "cpu_flags", "cpus", "python"}
    assert benchkit.machine(tmp_path / "missing")["cpu_flags"] == []
