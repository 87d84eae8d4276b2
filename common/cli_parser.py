"""`Parser`: argparse's parser for every command of the product. Its one difference: when a
value that starts with '-' (a document id `-rf.md`, a query `-foo`) was taken for a flag, the
error says how to pass it: after `--`, which ends the flags (argparse said only "the following
arguments are required: ids")."""

from __future__ import annotations

import argparse
import re
import sys

_NUMBER = re.compile(r"-\d+(\.\d*)?([eE][-+]?\d+)?|-\.\d+")


class Parser(argparse.ArgumentParser):
    """argparse.ArgumentParser (sub-commands made by it are Parsers too)."""

    def parse_known_args(self, args=None, namespace=None):
        self._given = list(sys.argv[1:] if args is None else args)
        return super().parse_known_args(args, namespace)

    def error(self, message: str):
        dashed = dashed_values(self, getattr(self, "_given", []))
        if dashed:
            message += (f" ({dashed[0]!r} was read as a flag; a value that starts with '-' goes "
                        f"after '--', which ends the flags: {self.prog} ... -- {dashed[0]})")
        super().error(message)


def dashed_values(parser: argparse.ArgumentParser, argv: list[str]) -> list[str]:
    """The arguments before any `--` that start with '-' but are no flag of `parser` or its
    sub-commands (nor a prefix of one, nor a negative number; argparse reads one holding a
    space as a value)."""
    known = _flags(parser)
    found = []
    for arg in argv:
        if arg == "--":
            break
        name = arg.split("=", 1)[0]
        if arg.startswith("-") and len(arg) > 1 and " " not in arg and not _NUMBER.fullmatch(arg) \
                and not any(flag.startswith(name) for flag in known):
            found.append(arg)
    return found


def _flags(parser: argparse.ArgumentParser) -> set[str]:
    flags = set(parser._option_string_actions)
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                flags |= _flags(sub)
    return flags
