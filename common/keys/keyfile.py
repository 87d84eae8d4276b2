"""The keys file (`--keys FILE`), TOML or YAML by its extension, read into a `Keyring` and
written back atomically (mode 0600) by `python -m service keys`:

    version = 1
    [[principals]]
    name = "alice"
    keys = ["scrypt$16384$8$1$SALT$HASH"]
    groups = ["team-a"]
    scopes = { "team-a*" = "read", "news" = "write" }

(YAML: `version: 1` and `principals:` a list of the same mappings.) Anything else (an unknown
field, a duplicate name, a bad level, a key that is not a hash) is a `KeysFileError` naming the
file, the line where it can tell, and the field."""

from __future__ import annotations

import fcntl
import os
import re
import tempfile
import tomllib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import yaml

from .principals import Keyring, Principal, hash_problem, name_problem, scope_problem

MAX_BYTES = 4 * 1024 * 1024
FIELDS = ("name", "keys", "groups", "scopes")
SUFFIXES = (".toml", ".yaml", ".yml")


class KeysFileError(ValueError):
    """A keys file that cannot be used; the message names the file and what to fix."""


def kind_of(path: Path) -> str:
    suffix = Path(path).suffix.lower()
    if suffix not in SUFFIXES:
        raise KeysFileError(f"{path}: a keys file's name ends in .toml, .yaml or .yml (its "
                            f"format), not {suffix or 'nothing'!r}")
    return "toml" if suffix == ".toml" else "yaml"


def read_keys(path: Path) -> Keyring:
    """The principals of the keys file at `path` (a `KeysFileError` if it cannot be used)."""
    path = Path(path)
    kind = kind_of(path)
    if path.exists() and not path.is_file():  # a folder, a pipe (which would block a read)
        raise KeysFileError(f"{path}: is not a regular file")
    try:
        with path.open("rb") as f:
            raw = f.read(MAX_BYTES + 1)
    except OSError as exc:
        raise KeysFileError(f"{path}: {exc.strerror or exc}") from None
    if len(raw) > MAX_BYTES:
        raise KeysFileError(f"{path}: is over {MAX_BYTES:,} bytes; a keys file is small "
                            "(about 200 bytes a principal)")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise KeysFileError(f"{path}: is not UTF-8 text (byte {exc.start}): a keys file is "
                            "TOML or YAML") from None
    if not text.strip():
        raise KeysFileError(f"{path}: is empty; add a principal with `python -m service keys "
                            f"add NAME --keys {path}`")
    try:
        data = tomllib.loads(text) if kind == "toml" else yaml.safe_load(text)
    except (tomllib.TOMLDecodeError, yaml.YAMLError) as exc:
        said = " ".join(str(exc).split())[:300]
        raise KeysFileError(f"{path}: is not valid {kind.upper()}: {said}") from None
    except RecursionError:
        raise KeysFileError(f"{path}: nests too deep to be a keys file") from None
    return _keyring(data, path, text)


def _keyring(data: object, path: Path, text: str) -> Keyring:
    def fail(where: str, problem: str, needle: str | None = None,
             field: str | None = None) -> KeysFileError:
        line = _line_of(text, needle, nth=names.count(needle), field=field) if needle else None
        at = f" (line {line})" if line else ""
        return KeysFileError(f"{path}{at}: {where}: {problem}")

    if not isinstance(data, dict):
        raise fail("the file", "must be a table/mapping with `principals`, a list")
    unknown = sorted(set(data) - {"version", "principals"})
    if unknown:
        raise fail(f"field {unknown[0]!r}", "unknown; the fields are version and principals")
    if data.get("version", 1) != 1:
        raise fail("version", f"{data['version']!r} is not 1, the version this server reads")
    rows = data.get("principals")
    if not isinstance(rows, list):
        raise fail("principals", "missing or not a list of principals")
    principals, seen, hashes, names = [], {}, {}, []  # names: of the rows read so far
    for i, row in enumerate(rows):
        where = f"principals[{i}]"
        if not isinstance(row, dict):
            raise fail(where, "must be a table/mapping with name, keys, groups, scopes")
        name = row.get("name")
        needle = name if isinstance(name, str) else None
        if isinstance(name, str):
            where = f"principals[{i}] ({name!r})"
        extra = sorted(set(row) - set(FIELDS))
        if extra:
            raise fail(where, f"unknown field {extra[0]!r}; the fields are "
                              f"{', '.join(FIELDS)}", needle, extra[0])
        problem = name_problem(name)
        if problem:
            raise fail(where, problem, needle)
        if name in seen:
            raise fail(where, f"the name {name!r} is given twice (principals[{seen[name]}] "
                              "too); merge them", needle)
        seen[name] = i
        keys = row.get("keys")
        if not isinstance(keys, list) or not keys:
            raise fail(f"{where}.keys", "must be a list of one or more key hashes", needle,
                       "keys")
        for key in keys:
            problem = hash_problem(key)
            if problem:
                raise fail(f"{where}.keys", problem, needle, "keys")
            if key in hashes:
                raise fail(f"{where}.keys", f"a key hash is also {hashes[key]!r}'s", needle,
                           "keys")
            hashes[key] = name
        groups = row.get("groups", [])
        if not isinstance(groups, list):
            raise fail(f"{where}.groups", "must be a list of group names", needle, "groups")
        for group in groups:
            problem = name_problem(group, "group")
            if problem:
                raise fail(f"{where}.groups", problem, needle, "groups")
        scopes = row.get("scopes", {})
        if not isinstance(scopes, dict):
            raise fail(f"{where}.scopes", "must be a table/mapping of index pattern to level "
                                          "({ \"team-a*\" = \"read\" })", needle, "scopes")
        for pattern, level in scopes.items():
            problem = scope_problem(pattern, level)
            if problem:
                raise fail(f"{where}.scopes", problem, needle, "scopes")
        names.append(name)
        principals.append(Principal(name, tuple(keys), tuple(dict.fromkeys(groups)),
                                    tuple(scopes.items())))
    return Keyring(tuple(principals))


def _line_of(text: str, name: str, *, nth: int = 0, field: str | None = None) -> int | None:
    """The line of the `nth` principal named `name` (TOML `name = "a"`, YAML `- name: a`),
    or of its `field` after it, for the message; None where it cannot tell."""
    lines = text.splitlines()
    named = re.compile(rf"""^\s*-?\s*["']?name["']?\s*[=:]\s*["']?{re.escape(name)}["']?"""
                       r"\s*(#.*)?$")
    at = [n for n, line in enumerate(lines) if named.match(line)]
    if len(at) <= nth:
        return None
    start = at[nth]
    if field is None:
        return start + 1
    key = re.compile(rf"""^\s*-?\s*["']?{re.escape(field)}["']?\s*[=:]""")
    for n in range(start, len(lines)):
        if key.match(lines[n]):
            return n + 1
    return start + 1


def as_data(keyring: Keyring) -> dict:
    rows = []
    for p in keyring.principals:
        rows.append({"name": p.name, "keys": list(p.keys), "groups": list(p.groups),
                     "scopes": dict(p.scopes)})
    return {"version": 1, "principals": rows}


def _toml(data: dict) -> str:
    def s(text: str) -> str:  # a TOML basic string (names and patterns hold no control chars)
        return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'

    out = ["# BERTScope service keys: written by `python -m service keys`; keys are stored as "
           "salted scrypt hashes", f"version = {data['version']}"]
    if not data["principals"]:
        out.append("principals = []  # nobody: every key is refused")
    for row in data["principals"]:
        scopes = ", ".join(f"{s(k)} = {s(v)}" for k, v in row["scopes"].items())
        out += ["", "[[principals]]", f"name = {s(row['name'])}",
                f"keys = [{', '.join(s(k) for k in row['keys'])}]",
                f"groups = [{', '.join(s(g) for g in row['groups'])}]",
                f"scopes = {{ {scopes} }}" if scopes else "scopes = {}"]
    return "\n".join(out) + "\n"


@contextmanager
def editing(path: Path) -> Iterator[None]:
    """Held around a read-change-write of the keys file at `path`: an exclusive lock of its
    folder, so two `keys add` at once do not lose one's key (the file itself is replaced,
    so it cannot hold the lock)."""
    fd = os.open(Path(path).parent or ".", os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the lock


def write_keys(path: Path, keyring: Keyring) -> None:
    """Replace the keys file at `path` atomically (a server re-reading it sees the old or the
    new file whole), readable by its owner only."""
    path = Path(path)
    data = as_data(keyring)
    text = _toml(data) if kind_of(path) == "toml" else yaml.safe_dump(data, sort_keys=False)
    fd, tmp = tempfile.mkstemp(dir=path.parent or ".", prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o600)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
