"""Where the app listens (issue 52, class 10): `make app` and `bertscope app` start Streamlit on
this machine only (127.0.0.1; Streamlit's own default is every interface), and exposing it is
said on the command line (`make app HOST=0.0.0.0`, `bertscope app --host 0.0.0.0`), never taken
from a shell's `HOST`. One test starts the command `bertscope app` runs and reads the socket it
listens on from /proc."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from pathlib import Path

import pytest

from bertscope import cli

REPO = Path(__file__).resolve().parents[1]


def _make_app(*args: str, env: dict | None = None) -> str:
    done = subprocess.run(["make", "-n", "-C", str(REPO), "app", *args], capture_output=True,
                          text=True, env={**os.environ, **(env or {})}, timeout=60)
    assert done.returncode == 0, done.stderr
    return " ".join(done.stdout.replace("\\\n", " ").split())


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_make_app_listens_on_this_machine_unless_told():
    assert "streamlit run app/Home.py --server.address 127.0.0.1 " in _make_app()
    assert "--server.address 0.0.0.0 " in _make_app("HOST=0.0.0.0")
    # a shell's HOST (zsh sets it to the machine's name) is not a request to expose the app
    assert "--server.address 127.0.0.1 " in _make_app(env={"HOST": "build-box"})


def _ran(monkeypatch, argv: list[str]) -> list[str]:
    seen: list[list[str]] = []
    monkeypatch.setattr(cli, "_run_child", lambda cmd, env: seen.append(cmd) or 0)
    assert cli.run_app(["--lang", *argv]) == 0  # --lang with no language: nothing built
    (command,) = seen
    return command


def test_bertscope_app_listens_on_this_machine_unless_told(monkeypatch):
    command = _ran(monkeypatch, [])
    at = command.index("--server.address")
    assert command[at + 1] == "127.0.0.1"
    command = _ran(monkeypatch, ["--host", "0.0.0.0"])
    assert command[command.index("--server.address") + 1] == "0.0.0.0"


@pytest.mark.parametrize("bad", ["not a host!", "999.1.1.1", "", "-x"])
def test_a_bad_host_is_refused_naming_the_flag(monkeypatch, capsys, bad):
    monkeypatch.setattr(cli, "_run_child", lambda *a, **k: pytest.fail("started"))
    with pytest.raises(SystemExit) as exited:
        cli.run_app([f"--host={bad}", "--lang"])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert "argument --host" in err and "127.0.0.1" in err and "Traceback" not in err, err


def _listening(port: int) -> set[str]:
    """The local addresses of the sockets listening on `port` (IPv4 and IPv6), from /proc."""
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            local, state = line.split()[1], line.split()[3]
            address, _, hex_port = local.partition(":")
            if state == "0A" and int(hex_port, 16) == port:  # 0A: LISTEN
                found.add(address)
    return found


@pytest.mark.skipif(not Path("/proc/net/tcp").exists(), reason="reads /proc/net/tcp")
def test_the_app_started_as_bertscope_app_starts_it_listens_on_loopback_only(tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "BERTSCOPE_INDEX_ROOT": str(tmp_path), "PYTHONPATH": str(REPO),
           "HF_HUB_OFFLINE": "1"}
    process = subprocess.Popen(cli.app_command(cli.app_script(), port), env=env, cwd=tmp_path,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 90
        while not _listening(port):
            assert process.poll() is None, "streamlit exited"
            assert time.monotonic() < deadline, "streamlit did not listen in 90 s"
            time.sleep(0.2)
        time.sleep(1)  # any second socket (IPv6) is open by now
        assert _listening(port) == {"0100007F"}, _listening(port)  # 127.0.0.1, nothing else
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
