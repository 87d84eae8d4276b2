"""The browser tests' Chromium install: test processes that find it absent at the same time
install it once, one after the other, instead of two apt-gets failing on apt's lock (which
skipped the loser's browser files in a full run)."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import browser_setup
import pytest


@pytest.fixture
def no_chromium(tmp_path, monkeypatch) -> Path:
    """Chromium absent (its path in `tmp_path`), apt-get there, root, the lock in `tmp_path`."""
    chromium = tmp_path / "chromium"
    monkeypatch.setattr(browser_setup, "CHROMIUM", chromium)
    monkeypatch.setattr(browser_setup.shutil, "which", lambda name: f"/usr/bin/{name}")
    monkeypatch.setattr(browser_setup.os, "geteuid", lambda: 0)
    monkeypatch.setattr(browser_setup.tempfile, "gettempdir", lambda: str(tmp_path))
    return chromium


def done(code: int, stderr: str = ""):
    return type("Done", (), {"returncode": code, "stderr": stderr})()


def test_concurrent_first_uses_install_once(no_chromium, monkeypatch):
    running, calls = [], []

    def fake_run(cmd, **kwargs):
        assert not running, "two apt-gets at once"
        running.append(cmd)
        calls.append(cmd[1])
        time.sleep(0.2)
        if cmd[1] == "install":
            no_chromium.touch()
        running.pop()
        return done(0)

    monkeypatch.setattr(browser_setup.subprocess, "run", fake_run)
    said: list[str | None] = []
    threads = [threading.Thread(target=lambda: said.append(browser_setup.ensure_chromium()))
               for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert said == [None, None, None]
    assert calls == ["update", "install"]


def test_a_failed_install_says_why(no_chromium, monkeypatch):
    monkeypatch.setattr(browser_setup.subprocess, "run",
                        lambda cmd, **kw: done(100, "E: Could not get lock"))
    assert browser_setup.ensure_chromium() == "`apt-get update -qq` failed: E: Could not get lock"
