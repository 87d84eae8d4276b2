"""`bertscope index | train | serve | app ...`: the four entry points under one command.
`index`, `train` and `serve` are `python -m indexer`, `python -m training` and
`python -m service` (every argument passed on); `app` builds the default index when absent, as
`make app` does, then runs the Streamlit app on it, listening on this machine only (127.0.0.1)
unless `--host` says otherwise."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

COMMANDS = {"index": "python -m indexer: build, search, sync, rebuild and migrate indexes",
            "train": "python -m training: fine-tune, adapt and evaluate encoders",
            "serve": "python -m service: the HTTP retrieval service for RAG",
            "app": "the Streamlit app (builds the default index first when it is absent)"}


def app_script() -> Path:
    """The app's main script: the checkout's (an editable install), else where a wheel installed
    it (<prefix>/share/bertscope/app)."""
    from common import shipped_folder

    script = shipped_folder("app") / "Home.py"
    if not script.is_file():
        raise SystemExit(f"error: the app's scripts are not installed ({script} is missing): "
                         "reinstall bertscope")
    return script


APP_HOST = "127.0.0.1"  # the app listens on this machine unless told otherwise (--host)


def app_command(script: Path, port: int, host: str = APP_HOST) -> list[str]:
    """The command that runs the Streamlit app: on `host` only (Streamlit's own default is
    every network interface), headless, without usage statistics."""
    return [sys.executable, "-m", "streamlit", "run", str(script), "--server.address", host,
            "--server.port", str(port), "--server.headless", "true",
            "--browser.gatherUsageStats", "false"]


def run_app(argv: Sequence[str]) -> int:
    from common.argtypes import host, integer
    from common.cli_parser import Parser

    p = Parser(prog="bertscope app", description=COMMANDS["app"])
    p.add_argument("--host", type=host, default=APP_HOST,
                   help="address to listen on (default 127.0.0.1: this machine only; "
                        "0.0.0.0 exposes the app to every network this machine is on)")
    p.add_argument("--port", type=integer(1, 65535), default=8501)
    p.add_argument("--index-root", type=Path,
                   default=Path(os.environ.get("BERTSCOPE_INDEX_ROOT", "indexes")),
                   help="where the app finds indexes (default indexes, or $BERTSCOPE_INDEX_ROOT)")
    p.add_argument("--lang", nargs="*", default=["en"], choices=["en", "zh"],
                   help="default indexes to build when absent (default en; none: --lang)")
    args = p.parse_args(argv)
    env = {**os.environ, "BERTSCOPE_INDEX_ROOT": str(args.index_root)}
    for lang in args.lang:
        code = _run_child([sys.executable, "-m", "indexer", "default", "--lang", lang], env)
        if code:
            return code
    return _run_child(app_command(app_script(), args.port, args.host), env)


def _run_child(command: list[str], env: dict) -> int:
    """Run `command` to its end. Ctrl-C reaches the child too (one process group): wait for it
    to stop on its own (Streamlit says "Stopping..."), then exit 130 without a traceback."""
    child = subprocess.Popen(command, env=env)
    try:
        return child.wait()
    except KeyboardInterrupt:
        try:
            child.wait(timeout=10)
        except (KeyboardInterrupt, subprocess.TimeoutExpired):
            child.kill()
            child.wait()
        return 130


def _main_of(module: str) -> Callable[[list[str]], int]:
    def run(argv: list[str]) -> int:
        import importlib

        return importlib.import_module(f"{module}.cli").main(argv)
    return run


RUN = {"index": _main_of("indexer"), "train": _main_of("training"),
       "serve": _main_of("service"), "app": run_app}


def version() -> str:
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed

    try:
        return installed("bertscope")
    except PackageNotFoundError:
        return "(not installed: run from a checkout without `pip install -e .`)"


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] in (["--version"], ["-V"]):
        print(f"bertscope {version()}")
        return 0
    if not argv or argv[0] in ("-h", "--help") or argv[0] not in RUN:
        helped = argv[:1] in (["-h"], ["--help"])
        lines = [f"  {name:<6} {what}" for name, what in COMMANDS.items()]
        wrong = "" if helped else f"bertscope: error: unknown command {argv[0][:60]!r}\n" \
            if argv else "bertscope: error: name a command: index, train, serve or app\n"
        print("usage: bertscope [--version] {index,train,serve,app} ...\n\n" + "\n".join(lines)
              + "\n\n`bertscope COMMAND --help` describes each.\n" + wrong.rstrip(),
              file=sys.stdout if helped else sys.stderr)
        return 0 if helped else 2
    try:
        return RUN[argv[0]](argv[1:]) or 0
    except KeyboardInterrupt:  # a command without its own handler: no traceback
        print("interrupted", file=sys.stderr)
        return 130
