"""What the browser test needs around it: Debian's Chromium (installed when absent), a free
port, and `streamlit run` on it until the test ends."""

from __future__ import annotations

import os
import shutil  # noqa: F401  (the install test patches shutil.which through here)
import socket
import subprocess
import sys
import tempfile  # noqa: F401  (the install test patches tempfile.gettempdir here)
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
]
APT_PACKAGES = ["chromium", "fonts-noto-cjk"]  # the fonts: Chinese glyphs are boxes without them


def ensure_chromium() -> str | None:
    """Install Debian's Chromium where it is absent (`common.debian`: root only, one installer
    on the machine at a time, so test processes that find it absent together install it once);
    return why not where that cannot work."""
    from common.debian import ensure_packages

    return ensure_packages(APT_PACKAGES, lambda: CHROMIUM.exists())


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
