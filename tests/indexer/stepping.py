"""Run code one source line at a time: a thread traced in chosen files stops at each line so a
test can act there (open the index, search), then goes on. No sleeps: events hand over."""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterable
from pathlib import Path

HANG_GUARD_S = 300  # only ever reached when the traced code hangs


def run_stepwise(fn: Callable[[], object], files: Iterable[str | Path],
                 at_each_line: Callable[[int], None], every: int = 1) -> int:
    """Run `fn` in a thread; at every `every`-th line it executes in `files`, pause it and call
    `at_each_line(step)` here. Returns the number of steps; re-raises what `fn` raised."""
    files = {str(Path(f).resolve()) for f in files}
    paused, resume, done = threading.Event(), threading.Event(), threading.Event()
    errors: list[BaseException] = []
    lines = 0

    def local(frame, event, arg):
        nonlocal lines
        if event == "line":
            lines += 1
            if lines % every:
                return local
            paused.set()
            resume.wait()
            resume.clear()
        return local

    def calls(frame, event, arg):
        return local if frame.f_code.co_filename in files else None

    def target() -> None:
        sys.settrace(calls)
        try:
            fn()
        except BaseException as exc:  # handed to the caller
            errors.append(exc)
        finally:
            sys.settrace(None)
            done.set()
            paused.set()

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    steps = 0
    while True:
        assert paused.wait(HANG_GUARD_S), "the traced code hung"
        paused.clear()
        if done.is_set():
            break
        at_each_line(steps)
        steps += 1
        resume.set()
    thread.join()
    if errors:
        raise errors[0]
    return steps
