"""Service fixtures: an index root holding copies of the tiny flat index, and the real server
(`python -m service`) on a free loopback port, or one run in a thread of this process (where a
test needs to reach inside: a counting loader, batching counters)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

REPO = Path(__file__).resolve().parents[2]
KEY = "test-key-0123456789abcdef"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_ready(url: str, alive=lambda: True, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not alive():
            raise RuntimeError("the server exited before it answered /health")
        try:
            if httpx.get(f"{url}/health", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise TimeoutError(f"{url} did not answer /health in {timeout} s")


def wait_until_ready(url: str, timeout: float = 120) -> dict:
    """Poll /ready until it answers 200 (its first call starts loading the encoders); its
    answers on the way must be 503s with Retry-After."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        response = httpx.get(f"{url}/ready", timeout=10)
        if response.status_code == 200:
            return response.json()
        assert response.status_code == 503 and response.headers["retry-after"], response.text
        time.sleep(0.1)
    raise TimeoutError(f"{url}/ready did not answer 200 in {timeout} s")


SUBJECTS = ["the cat sleeps on a warm sofa", "interest rates rose again this spring",
            "the striker scored twice in the final", "heavy rain flooded the valley roads",
            "a new phone was launched with a folding screen"]


def corpus() -> list[dict]:
    """Twenty documents, four per subject, with a `kind` and a `year` to filter on; the long
    ones are chunked in several pieces."""
    return [{"id": f"doc{i:02d}", "title": f"Note {i}",
             "text": " ".join([SUBJECTS[i % 5] + f", note {i}."] * (1 + 3 * (i % 4))),
             "metadata": {"kind": ["pets", "money", "sport", "weather", "tech"][i % 5],
                          "year": 2020 + i % 3}}
            for i in range(20)]


@pytest.fixture(scope="session")
def _tiny_built(tmp_path_factory, tiny_encoder) -> Path:
    from indexer import build_index

    out = tmp_path_factory.mktemp("service-built") / "tiny"
    build_index(corpus(), out, model=tiny_encoder, preset="flat")
    return out


def make_root(folder: Path, built: Path, names=("tiny", "writable")) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        shutil.copytree(built, folder / name)
    return folder


@pytest.fixture(scope="session")
def index_root(tmp_path_factory, _tiny_built) -> Path:
    """`tiny` (searched, never written) and `writable` (the write tests' own: each asserts only
    on what it wrote, so they share it)."""
    return make_root(tmp_path_factory.mktemp("root"), _tiny_built)


class Server:
    def __init__(self, url: str, root: Path, log: Path, process=None) -> None:
        self.url, self.root, self.log, self.process = url, root, log, process

    def client(self, key: str | None = None) -> httpx.Client:
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        return httpx.Client(base_url=self.url, headers=headers, timeout=60)

    def log_text(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")


@contextmanager
def running_server(root: Path, folder: Path):
    """`python -m service --api-key-file` over `root`, a real process on a free loopback port."""
    (folder / "key").write_text(KEY + "\n")
    port = free_port()
    log = folder / "server.log"
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(REPO)}
    with log.open("wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "service", "--port", str(port), "--index-root",
             str(root), "--api-key-file", str(folder / "key")],
            stdout=out, stderr=subprocess.STDOUT, env=env, cwd=folder)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_ready(url, lambda: process.poll() is None)
        yield Server(url, root, log, process)
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()


@pytest.fixture(scope="session")
def server(index_root, tmp_path_factory) -> Server:
    """One real server for the session's service tests (its start imports torch: seconds)."""
    with running_server(index_root, tmp_path_factory.mktemp("server")) as running:
        yield running


def serve_in_thread(app) -> tuple[str, object, threading.Thread]:
    """The app served as `python -m service` serves it (its connection timeouts included)."""
    import uvicorn

    from service import ServiceConfig
    from service.server import uvicorn_config

    port = free_port()
    ours = getattr(app.state, "service", None)  # or another app (a stand-in chat endpoint)
    srv = uvicorn.Server(uvicorn_config(app, ours.config if ours else ServiceConfig(),
                                        host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{port}"
    wait_ready(url, thread.is_alive, timeout=30)
    return url, srv, thread


@pytest.fixture
def thread_server(tmp_path, _tiny_built):
    """start(config_changes, encoders=None) -> url: the app in a thread of this process."""
    started = []

    def start(**changes):
        from service import ServiceConfig, create_app

        encoders = changes.pop("encoders", None)
        root = make_root(tmp_path / f"root{len(started)}", _tiny_built)
        config = ServiceConfig(index_root=root, **changes)
        app = create_app(config, encoders=encoders)
        url, srv, thread = serve_in_thread(app)
        started.append((srv, thread))
        return url, app

    yield start
    for srv, thread in started:
        srv.should_exit = True
        thread.join(timeout=10)
