"""Run a CLI the way a user does and fail the test on any traceback: the `run_cli` fixture.

`run_cli("indexer", "search", IDX, "q")` calls `python -m indexer`'s `main` in-process (fast)
and returns a `CliRun` (exit code, stdout, stderr, log records). It fails the test when an
exception escapes `main`, or when "Traceback" appears in anything the command printed or logged:
a new command or flag cannot start showing users a stack trace without a test noticing.
`process=True` runs a real `python -m` process instead (exit status as a shell sees it).
"""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
import traceback
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
CLIS = ("indexer", "training")


@dataclass
class CliRun:
    argv: list[str]
    code: int
    out: str
    err: str
    log: str = ""

    @property
    def error(self) -> str:
        """The one `error: ...` line (asserts it is the only thing on stderr besides notes)."""
        lines = [x for x in self.err.strip().splitlines() if x.startswith("error: ")
                 or ": error: " in x]
        assert len(lines) == 1, f"expected one error line, got:\n{self.err}"
        return lines[0]

    def __str__(self) -> str:
        return f"$ python -m {' '.join(self.argv)}\nexit {self.code}\n{self.out}\n{self.err}"


def _in_process(capsys, caplog, cli: str, argv: list[str]) -> CliRun:
    main = importlib.import_module(f"{cli}.cli").main
    caplog.clear()
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse: usage errors (2) and --help (0)
        code = exc.code if isinstance(exc.code, int) else 1
    except Exception:  # noqa: BLE001 - any escape is a traceback the user would have seen
        pytest.fail(f"`python -m {cli} {' '.join(argv)}` raised:\n{traceback.format_exc()}")
    captured = capsys.readouterr()
    return CliRun([cli, *argv], code, captured.out, captured.err, caplog.text)


def _process(cli: str, argv: list[str], timeout: float) -> CliRun:
    env = {**os.environ, "PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1"}
    done = subprocess.run([sys.executable, "-m", cli, *argv], capture_output=True, text=True,
                          env=env, cwd=REPO, timeout=timeout)
    return CliRun([cli, *argv], done.returncode, done.stdout, done.stderr)


@pytest.fixture
def run_cli(capsys, caplog):
    """`run_cli(cli, *argv, process=False, timeout=300)` → CliRun; fails on any traceback."""

    def run(cli: str, *argv, process: bool = False, timeout: float = 300) -> CliRun:
        assert cli in CLIS, cli
        args = [str(a) for a in argv]
        result = _process(cli, args, timeout) if process else \
            _in_process(capsys, caplog, cli, args)
        for name, text in (("stdout", result.out), ("stderr", result.err), ("log", result.log)):
            assert "Traceback" not in text, f"a traceback on {name}:\n{result}\n{text}"
        return result

    return run
