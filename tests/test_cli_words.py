"""Issue 52, class 11: the commands' own words. `bertscope --version` prints the version (it
printed usage), an unknown command is named, Ctrl-C during `bertscope app` ends with exit 130
and no traceback, and a value that starts with '-' (`indexer delete IDX -rf.md`) is told to go
after `--` by every command's parser (common.cli_parser)."""

from __future__ import annotations

import subprocess

import pytest

from bertscope import cli as bertscope


def test_version_prints_the_version(capsys):
    assert bertscope.main(["--version"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("bertscope ") and "usage" not in out


def test_an_unknown_command_is_named(capsys):
    assert bertscope.main(["frob"]) == 2
    assert "unknown command 'frob'" in capsys.readouterr().err


class _Interrupted:
    """A child process: the first wait is interrupted by Ctrl-C; the second sees it stop."""

    def __init__(self, *args, **kwargs) -> None:
        self.waits = 0
        self.killed = False

    def wait(self, timeout=None) -> int:
        self.waits += 1
        if self.waits == 1:
            raise KeyboardInterrupt
        return -2

    def kill(self) -> None:
        self.killed = True


def test_ctrl_c_during_the_app_is_exit_130_without_a_traceback(monkeypatch, capsys):
    children = []
    monkeypatch.setattr(bertscope.subprocess, "Popen",
                        lambda *a, **k: children.append(_Interrupted()) or children[-1])
    assert bertscope.main(["app", "--lang"]) == 130
    (child,) = children
    assert child.waits == 2 and not child.killed  # waited for Streamlit to stop on its own
    assert "Traceback" not in capsys.readouterr().err


@pytest.mark.parametrize("module, argv", [
    ("indexer", ["delete", "IDX", "-rf.md"]),
    ("indexer", ["search", "IDX", "-weird"]),
    ("training", ["evaluate", "--model", "minilm", "-x.jsonl"]),
    ("service", ["-bogus"]),
])
def test_a_value_starting_with_a_dash_is_told_to_go_after_double_dash(module, argv, capsys):
    import importlib

    main = importlib.import_module(f"{module}.cli").main
    with pytest.raises(SystemExit) as stopped:
        main(argv)
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert f"{argv[-1]!r} was read as a flag" in err and "-- " + argv[-1] in err, err


def test_known_flags_abbreviations_and_negative_numbers_are_no_dashed_values():
    from common.cli_parser import dashed_values
    from indexer.cli_args import parser

    p = parser()
    assert dashed_values(p, ["search", "IDX", "q", "--k", "3", "--mod", "dense", "-h"]) == []
    assert dashed_values(p, ["search", "IDX", "-5", "--filter=year=1"]) == []
    assert dashed_values(p, ["delete", "IDX", "--", "-rf.md"]) == []
    assert dashed_values(p, ["search", "IDX", "-a query", "--k", "0"]) == []  # a value
    assert dashed_values(p, ["delete", "IDX", "-rf.md"]) == ["-rf.md"]


def test_the_app_command_still_starts_streamlit(monkeypatch):
    seen = []

    class Child:
        def __init__(self, cmd, env):
            seen.append(cmd)

        def wait(self, timeout=None):
            return 0

    monkeypatch.setattr(bertscope.subprocess, "Popen", Child)
    assert bertscope.main(["app", "--lang"]) == 0
    assert seen[0][1:4] == ["-m", "streamlit", "run"]
    assert subprocess  # the module under test keeps using subprocess.Popen
