"""Bad input to the service's access flags and keys files (issue 50): `--keys` files that are
empty, binary, not TOML or YAML, huge, a folder, with a duplicate name, a bad scope, an unknown
field or a key written in plain; `--keys` beside `--api-key-file`; `--rate-limit` 0, -1, inf,
nan or words, or without `--keys`; `--audit-log` a folder or under a file; and `python -m
service keys` given a bad scope, name or group. Each is refused before anything serves, naming
the flag and the file's line or field."""

from __future__ import annotations

from .probe import Case, cli

ENTRY = "python -m service (keys, audit, rate limits)"
KEYS_ENTRY = "python -m service keys"
HASH = "scrypt$16$1$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="
HASH2 = HASH[:-2] + "B="


def _row(name: str, keys: list[str], extra: str = "") -> str:
    return (f'[[principals]]\nname = "{name}"\nkeys = [{", ".join(repr(k) for k in keys)}]\n'
            f"{extra}")


FILES: dict[str, str | bytes] = {
    "access/good.toml": _row("ann", [HASH], 'scopes = { "*" = "read" }\n'),
    "access/empty.toml": "",
    "access/binary.toml": bytes(range(256)),
    "access/not.toml": "[[principals]\nname = 'ann'\n",
    "access/not.yaml": "principals: [ {name: ann\n",
    "access/list.yaml": "- ann\n- bob\n",
    "access/dup.toml": _row("ann", [HASH]) + "\n" + _row("ann", [HASH2]),
    "access/scope.toml": _row("ann", [HASH], 'scopes = { "news" = "reed" }\n'),
    "access/level.yaml": f"principals:\n- name: ann\n  keys: ['{HASH}']\n  scopes: "
                         "{news: [read]}\n",
    "access/field.toml": _row("ann", [HASH], 'role = "boss"\n'),
    "access/top.toml": "version = 1\nprincipals = []\nusers = []\n",
    "access/plain.toml": _row("ann", ["my-secret-key-123"]),
    "access/nokeys.toml": _row("ann", []),
    "access/name.toml": _row("ann smith", [HASH]),
    "access/group.yaml": f"principals:\n- name: ann\n  keys: ['{HASH}']\n  groups: [no]\n",
    "access/version.toml": "version = 2\nprincipals = []\n",
    "access/keys.txt": _row("ann", [HASH]),
    "access/huge.toml": "# " + "x" * (5 * 1024 * 1024) + "\n",
    "access/folder.toml/x": "",
}


def _serve(bad: str, *argv: str, names: tuple[str, ...] = (), expect: int = 1,
           note: str = "") -> Case:
    return Case(ENTRY, bad, cli("service", "--index-root", "{W}/service", *argv), expect, note,
                names)


def _keys(bad: str, *argv: str, names: tuple[str, ...] = (), expect: int = 2) -> Case:
    return Case(KEYS_ENTRY, bad, cli("service", "keys", *argv), expect, "", names)


def _file(bad: str, name: str, *names: str) -> Case:
    path = "{W}/access/" + name
    return _serve(f"--keys {bad}", "--keys", path, names=("--keys", *names))


GOOD = ("--keys", "{W}/access/good.toml")
CASES = [
    _file("an empty file", "empty.toml", "is empty", "keys add"),
    _file("a binary file", "binary.toml", "is not UTF-8"),
    _file("not TOML", "not.toml", "is not valid TOML", "line 1"),
    _file("not YAML", "not.yaml", "is not valid YAML"),
    _file("a YAML list, not a mapping", "list.yaml", "must be a table/mapping"),
    _file("a name given twice", "dup.toml", "(line 6)", "'ann' is given twice"),
    _file("a scope level misspelt ('reed')", "scope.toml", "(line 4)", "scopes",
          "read, write, admin"),
    _file("a scope level that is a list", "level.yaml", "scopes", "read, write, admin"),
    _file("an unknown principal field", "field.toml", "(line 4)", "unknown field 'role'"),
    _file("an unknown top-level field", "top.toml", "field 'users'"),
    _file("a key written in plain", "plain.toml", "never the key itself"),
    _file("a principal without keys", "nokeys.toml", ".keys", "one or more"),
    _file("a name with a space", "name.toml", "'ann smith'"),
    _file("a YAML group read as false (no)", "group.yaml", "groups", "False"),
    _file("version 2", "version.toml", "is not 1"),
    _file("named .txt", "keys.txt", ".toml, .yaml or .yml"),
    _file("of 5 MiB", "huge.toml", "4,194,304 bytes"),
    _file("a folder", "folder.toml", "not a regular file"),
    _file("that does not exist", "none.toml", "No such file"),
    _serve("--keys with --api-key-file", *GOOD, "--api-key-file", "{W}/access/good.toml",
           names=("--keys", "--api-key-file", "exclude each other")),
    _serve("--rate-limit 0", *GOOD, "--rate-limit", "0", names=("--rate-limit", "> 0"),
           expect=2),
    _serve("--rate-limit -1", *GOOD, "--rate-limit", "-1", names=("--rate-limit",), expect=2),
    _serve("--rate-limit inf", *GOOD, "--rate-limit", "inf", names=("--rate-limit", "finite"),
           expect=2),
    _serve("--rate-limit nan", *GOOD, "--rate-limit", "nan", names=("--rate-limit",), expect=2),
    _serve("--rate-limit lots", *GOOD, "--rate-limit", "lots",
           names=("--rate-limit", "not a rate"), expect=2),
    _serve("--rate-limit 5/day", *GOOD, "--rate-limit", "5/day", names=("--rate-limit", "/s"),
           expect=2),
    _serve("--rate-limit without --keys", "--rate-limit", "5/s",
           names=("--rate-limit", "needs --keys")),
    _serve("--audit-log a folder", *GOOD, "--audit-log", "{W}/access",
           names=("--audit-log", "is a folder")),
    _serve("--audit-log under a file (unwritable)", *GOOD, "--audit-log",
           "{W}/corpus.jsonl/audit.jsonl", names=("--audit-log", "cannot be opened")),
    _serve("--audit-max-bytes 0", *GOOD, "--audit-max-bytes", "0",
           names=("--audit-max-bytes", ">= 1024"), expect=2),
    _keys("add: a scope level misspelt", "add", "ann", "--keys", "{W}/access/new.toml",
          "--scope", "news:reed", names=("--scope", "read, write, admin")),
    _keys("add: a scope without a level", "add", "ann", "--keys", "{W}/access/new.toml",
          "--scope", "news", names=("--scope", "PATTERN:LEVEL")),
    _keys("add: a group with a space", "add", "ann", "--keys", "{W}/access/new.toml",
          "--groups", "hr,team a", names=("--groups", "'team a'")),
    _keys("add: a name with a slash", "add", "a/b", "--keys", "{W}/access/new.toml",
          names=("'a/b'",), expect=1),
    _keys("add: a keys file named .txt", "add", "ann", "--keys", "{W}/access/new.txt",
          names=(".toml, .yaml or .yml",), expect=1),
    _keys("add: a keys file that is binary", "add", "ann", "--keys", "{W}/access/binary.toml",
          names=("--keys", "not UTF-8"), expect=1),
    _keys("remove: a name not in the file", "remove", "zed", "--keys", "{W}/access/good.toml",
          names=("no principal 'zed'", "ann"), expect=1),
    _keys("no --keys", "add", "ann", names=("--keys",)),
    _keys("add: an empty name", "add", "", "--keys", "{W}/access/new.toml",
          names=("name ''",), expect=1),
    _keys("add: a name of 65 characters", "add", "a" * 65, "--keys", "{W}/access/new.toml",
          names=("1 to 64 characters",), expect=1),
    _keys("add: a scope pattern with a control character", "add", "ann", "--keys",
          "{W}/access/new.toml", "--scope", "a\x01b:read", names=("--scope", "printable")),
    _keys("add: a scope pattern of 201 characters", "add", "ann", "--keys",
          "{W}/access/new.toml", "--scope", "a" * 201 + ":read",
          names=("--scope", "1 to 200")),
    _keys("add: a scope with an empty pattern (':read')", "add", "ann", "--keys",
          "{W}/access/new.toml", "--scope", ":read", names=("--scope", "PATTERN:LEVEL")),
    _keys("add: a level in capitals ('ADMIN')", "add", "ann", "--keys", "{W}/access/new.toml",
          "--scope", "*:ADMIN", names=("--scope", "read, write, admin")),
    _keys("add: --keys a folder", "add", "ann", "--keys", "{W}/access/folder.toml",
          names=("--keys", "not a regular file"), expect=1),
    _keys("add: --keys a file that is not TOML", "add", "ann", "--keys",
          "{W}/access/not.toml", names=("--keys", "is not valid TOML"), expect=1),
    _keys("add: --keys in a folder that does not exist", "add", "ann", "--keys",
          "{W}/access/nowhere/keys.toml", names=("--keys", "No such file"), expect=1),
    _keys("remove: no name", "remove", "--keys", "{W}/access/good.toml", names=("name",)),
    _keys("remove: a keys file that does not exist", "remove", "ann", "--keys",
          "{W}/access/none.toml", names=("--keys", "No such file"), expect=1),
    _keys("list: a binary keys file", "list", "--keys", "{W}/access/binary.toml",
          names=("--keys", "not UTF-8"), expect=1),
    _keys("an unknown command ('revoke')", "revoke", "ann", names=("invalid choice",
                                                                   "'revoke'")),
    _keys("no command", names=("command",)),
]
