"""Try one bad input and record what a user gets: the exit status and message of a CLI run, the
exception of a library call, the message of an app page — and whether a traceback escaped."""

from __future__ import annotations

import importlib
import io
import logging
import sys
import traceback
from collections.abc import Callable
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PACKAGES = ("common", "encoder", "metrics", "indexer", "training", "app")
OURS = tuple(str(REPO / p) for p in PACKAGES)


@dataclass
class Outcome:
    what: str  # "exit 1", "raises TypeError", "page: error", "returns"
    message: str  # the one line the user reads
    traceback: bool = False  # an exception escaped to the user as a stack trace
    refused: bool = False  # the input was refused (non-zero exit, an exception, an error shown)
    code: int | None = None
    warned: bool = False  # accepted with a warning (the app's pages)


@dataclass
class Case:
    entry: str  # the entry point's heading in the table
    bad: str  # the bad input, in words
    run: Callable[..., Outcome]  # (workspace) -> Outcome
    expect: str | int = "refused"  # "refused" | "accepted" | "warned" | an exit status
    note: str = ""  # why the expected outcome is the right one, where not obvious
    names: tuple[str, ...] = ()  # words the message must hold: the field, the limit
    unit: str = "exit"  # what an int `expect` is: an exit status, or an "HTTP" status

    def verdict(self, outcome: Outcome) -> bool:
        if outcome.traceback or not outcome.message.strip():
            return False
        if any(word not in outcome.message for word in self.names):
            return False
        if isinstance(self.expect, int):
            return outcome.code == self.expect
        if self.expect == "warned":
            return outcome.warned and not outcome.refused
        return outcome.refused == (self.expect == "refused")


class _StderrProxy(io.TextIOBase):
    """Log records go to whatever sys.stderr is at the time (a capture, during a run)."""

    def write(self, text: str) -> int:
        return sys.stderr.write(text)


def quiet_logging() -> None:
    """One root handler, WARNING and above, written to the current stderr; the CLIs'
    `logging.basicConfig` calls then change nothing."""
    root = logging.getLogger()
    for handler in list(root.handlers):
        root.removeHandler(handler)
    handler = logging.StreamHandler(_StderrProxy())
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    root.addHandler(handler)
    root.setLevel(logging.WARNING)


def _first_error(out: str, err: str, code: int | None) -> str:
    """The line a user reads: the error line; for a run that did something (exit 0 or 3), its
    last line of output and any warning or note on stderr."""
    lines = [x.strip() for x in err.splitlines() if x.strip()]
    for line in lines:
        if line.startswith("error: ") or ": error: " in line:
            return line
    notes = [x for x in lines if x.lower().startswith(("warning", "not in the index",
                                                       "replaced:", "skipped ", "no document",
                                                       "failed ", "note ", "note:"))]
    outs = [x.strip() for x in out.splitlines() if x.strip()]
    if outs and code in (0, 3):
        return " · ".join([outs[-1], *notes])
    tail = [x for x in lines if not x.startswith(("Loading weights", "INFO "))]
    return (notes or tail or outs or [""])[-1]


def cli(name: str, *argv: str) -> Callable[..., Outcome]:
    """A case runner: `python -m NAME ARGV`, in-process. In an argument `{W}` is the workspace,
    `{FRESH}` a private copy of its index (for commands that change it)."""

    def run(ws) -> Outcome:
        fresh = str(ws.fresh()) if any("{FRESH}" in a for a in argv) else ""
        args = [a.replace("{W}", str(ws.root)).replace("{FRESH}", fresh) for a in argv]
        main = importlib.import_module(f"{name}.cli").main
        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            try:
                code = main(args)
            except SystemExit as exc:  # argparse; SystemExit("error: ...") prints its text
                code = exc.code if isinstance(exc.code, int) else 1
                if isinstance(exc.code, str):
                    err.write(exc.code + "\n")
            except Exception as exc:  # noqa: BLE001 - what the user would see as a traceback
                return Outcome("traceback", f"{type(exc).__name__}: {exc}", traceback=True,
                               refused=True)
        text = out.getvalue() + err.getvalue()
        message = _first_error(out.getvalue(), err.getvalue(), code)
        return Outcome(f"exit {code}", message, traceback="Traceback" in text,
                       refused=code != 0, code=code)

    return run


def call(fn: Callable) -> Callable[..., Outcome]:
    """A case runner for a library call `fn(workspace)`."""

    def run(ws) -> Outcome:
        try:
            value = fn(ws)
        except Exception as exc:  # noqa: BLE001 - the outcome being recorded
            frames = traceback.extract_tb(exc.__traceback__)
            origin = frames[-1].filename if frames else ""
            ours = type(exc).__module__.split(".")[0] in PACKAGES  # JobError, ...
            deliberate = (ours or isinstance(exc, (TypeError, ValueError, LookupError, OSError))) \
                and origin.startswith(OURS)
            message = f"{type(exc).__name__}: {str(exc).strip() or '(no message)'}"
            if not deliberate:
                message += f" — raised in {Path(origin).name}, not by a check of ours"
            return Outcome(f"raises {type(exc).__name__}", message, traceback=not deliberate,
                           refused=True)
        return Outcome("returns", _short(value), refused=False)

    return run


def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= 120 else text[:117] + "..."


def run_case(case: Case, ws) -> Outcome:
    outcome = case.run(ws)
    outcome.message = " ".join(outcome.message.replace(str(ws.root), "W").split())
    return outcome
