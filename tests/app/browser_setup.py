"""What the browser test needs around it: Debian's Chromium (installed when absent), a free
port, and `streamlit run` on it until the test ends."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from common import FileLock

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
]
APT_PACKAGES = ["chromium", "fonts-noto-cjk"]  # the fonts: Chinese glyphs are boxes without them


def ensure_chromium() -> str | None:
    """Install Debian's Chromium where it is absent; return why not where that cannot work.
    One test process installs at a time (a machine-wide lock): the others wait for it and then
    find Chromium there. Two apt-gets at once fail on apt's own lock, and the browser files of
    the loser were skipped."""
    if CHROMIUM.exists():
        return None
    if not shutil.which("apt-get"):
        return "no /usr/bin/chromium and no apt-get to install it"
    if os.geteuid() != 0:
        return "no /usr/bin/chromium, and installing it needs root (apt-get install chromium)"
    with FileLock(Path(tempfile.gettempdir()) / "bertscope-tests-apt.lock"):
        return None if CHROMIUM.exists() else _apt_install()


def _apt_install() -> str | None:
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    # without Chromium's recommends (printing, samba, upower...): 19 packages set up instead
    # of 107, which headless tests never use (from apt's cache: 6.0 s against 10.8 s)
    install = ["apt-get", "install", "-y", "-qq", "--no-install-recommends", *APT_PACKAGES]
    for cmd in (["apt-get", "update", "-qq"], install):
        done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=900)
        if done.returncode != 0:
            return f"`{' '.join(cmd)}` failed: {done.stderr.strip()[-300:]}"
    if not CHROMIUM.exists():
        return "apt-get installed chromium but /usr/bin/chromium is absent"
    return None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_streamlit(repo: Path, port: int, env: dict[str, str], log: Path) -> subprocess.Popen:
    """`streamlit run app/Home.py` as `make app` runs it, on 127.0.0.1:`port`."""
    cmd = [sys.executable, "-m", "streamlit", "run", str(repo / "app" / "Home.py"),
           "--server.port", str(port), "--server.address", "127.0.0.1",
           "--server.headless", "true", "--browser.gatherUsageStats", "false"]
    out = log.open("w")
    return subprocess.Popen(cmd, cwd=repo, env={**os.environ, **env}, stdout=out,
                            stderr=subprocess.STDOUT)


def wait_healthy(url: str, proc: subprocess.Popen, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"streamlit exited with {proc.returncode}")
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            time.sleep(0.5)
    raise TimeoutError(f"streamlit did not answer at {url} within {timeout:.0f} s")


@contextmanager
def streamlit_server(repo: Path, env: dict[str, str], log: Path) -> Iterator[str]:
    """The app served on a free port with `env` (offline, quiet tokenizers), its URL while the
    block runs; stopped after, its log's tail printed (pytest shows it when a test failed)."""
    port = free_port()
    proc = start_streamlit(repo, port, {"HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false",
                                        **env}, log)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(url, proc)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
        print(log.read_text()[-3000:])
