"""`python -m service keys add NAME --keys FILE [--groups g1,g2] [--scope 'PATTERN:LEVEL' ...]`
prints a new key for NAME on stdout's last line (only its salted hash is kept in FILE, created
if absent); `keys remove NAME --keys FILE` revokes every key of NAME (`--keep-newest`: all
but the last added, to rotate a key); `keys list --keys FILE`
says who holds what (never a key). A running server re-reads the file within a second."""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path

from common.cli_parser import Parser
from common.keys.keyfile import KeysFileError, editing, kind_of, read_keys, write_keys
from common.keys.principals import (
    Keyring,
    Principal,
    hash_key,
    name_problem,
    new_key,
    parse_scope,
)


def _scope(text: str) -> tuple[str, str]:
    try:
        return parse_scope(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _groups(text: str) -> list[str]:
    groups = [g.strip() for g in text.split(",") if g.strip()]
    for g in groups:
        problem = name_problem(g, "group")
        if problem:
            raise argparse.ArgumentTypeError(problem)
    return groups


def parse(argv: list[str]) -> argparse.Namespace:
    p = Parser(prog="python -m service keys", description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    add = sub.add_parser("add", help="a new key for NAME (made if new); prints it once")
    add.add_argument("name")
    add.add_argument("--keys", type=Path, required=True, metavar="FILE",
                     help="the keys file (.toml, .yaml or .yml), created if absent")
    add.add_argument("--groups", "--group", type=_groups, action="append", default=[],
                     help="groups, comma-separated (repeatable); replace NAME's groups")
    add.add_argument("--scope", type=_scope, action="append", default=[],
                     help="'INDEX_PATTERN:LEVEL' (or '='), LEVEL read, write or admin; "
                     "repeatable; replace NAME's scopes (e.g. 'team-a*:read', '*:admin')")
    remove = sub.add_parser("remove", help="revoke every key of NAME (NAME is removed)")
    remove.add_argument("name")
    remove.add_argument("--keys", type=Path, required=True, metavar="FILE")
    remove.add_argument("--keep-newest", action="store_true", help="revoke all but NAME's "
                        "newest key (rotation: `keys add NAME`, move the clients, then this)")
    listing = sub.add_parser("list", help="each principal's groups, scopes and key count")
    listing.add_argument("--keys", type=Path, required=True, metavar="FILE")
    return p.parse_args(argv)


def _read(path: Path, *, missing_ok: bool) -> Keyring:
    if missing_ok and not path.exists():
        return Keyring()
    try:
        return read_keys(path)
    except KeysFileError as exc:
        raise SystemExit(f"error: --keys {exc}") from None


def add(keyring: Keyring, name: str, key: str, groups: list[str] | None,
        scopes: list[tuple[str, str]] | None) -> Keyring:
    """`keyring` with `key` (hashed) added to `name`, its groups and scopes replaced where
    given."""
    old = keyring.named(name)
    hashed = hash_key(key)
    if old is None:
        new = Principal(name, (hashed,), tuple(groups or ()), tuple(scopes or ()))
        return Keyring((*keyring.principals, new))
    new = Principal(name, (*old.keys, hashed),
                    tuple(groups) if groups is not None else old.groups,
                    tuple(dict(scopes).items()) if scopes is not None else old.scopes)
    return Keyring(tuple(new if p.name == name else p for p in keyring.principals))


def main(argv: list[str] | None = None) -> int:
    args = parse(sys.argv[1:] if argv is None else argv)
    try:
        kind_of(args.keys)
        with editing(args.keys):
            return _run(args)
    except KeysFileError as exc:
        raise SystemExit(f"error: --keys {exc}") from None
    except OSError as exc:
        raise SystemExit(f"error: --keys {args.keys}: {exc.strerror or exc}") from None


def _run(args: argparse.Namespace) -> int:
    if args.command == "list":
        for p in _read(args.keys, missing_ok=False).principals:
            scopes = ", ".join(f"{pat}:{lvl}" for pat, lvl in p.scopes) or "none"
            print(f"{p.name}: groups {', '.join(p.groups) or 'none'}; scopes {scopes}; "
                  f"{len(p.keys)} key{'s' if len(p.keys) != 1 else ''}")
        return 0
    problem = name_problem(args.name)
    if problem:
        raise SystemExit(f"error: {problem}")
    if args.command == "remove":
        keyring = _read(args.keys, missing_ok=False)
        if keyring.named(args.name) is None:
            names = ", ".join(p.name for p in keyring.principals) or "none"
            raise SystemExit(f"error: no principal {args.name!r} in {args.keys}; principals: "
                             f"{names}")
        if args.keep_newest:
            kept = tuple(replace(p, keys=p.keys[-1:]) if p.name == args.name else p
                         for p in keyring.principals)
            said = f"revoked all but the newest key of {args.name} in {args.keys}"
        else:
            kept = tuple(p for p in keyring.principals if p.name != args.name)
            said = f"removed {args.name} and its keys from {args.keys}"
        write_keys(args.keys, Keyring(kept))
        print(said, file=sys.stderr)
        return 0
    keyring = _read(args.keys, missing_ok=True)
    groups = [g for gs in args.groups for g in gs] if args.groups else None
    key = new_key()
    write_keys(args.keys, add(keyring, args.name, key, groups, args.scope or None))
    if not args.scope and keyring.named(args.name) is None:
        print(f"warning: {args.name} has no scope: its key reaches no index (give --scope "
              "'PATTERN:read')", file=sys.stderr)
    print(f"key for {args.name} (shown once; the file keeps only its hash):", file=sys.stderr)
    print(key)
    return 0
