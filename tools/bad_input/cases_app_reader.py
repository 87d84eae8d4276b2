"""Bad input to who reads in the app (issue 50, `app/appkit/reader.py`): `BERTSCOPE_APP_KEYS`
naming a missing file, a folder, a device, a named pipe, malformed, empty, binary or huge TOML,
another extension, or nothing; `BERTSCOPE_APP_PRINCIPAL` empty, unknown, with odd characters,
10,000 characters long, or set without a keys file; and the Search page's "Key" field given a
wrong key, one with spaces, control characters or 10,000 characters. Each setting the app cannot use
stops the page in words (never an open read); a refused key is said and the page reads as an
anonymous reader."""

from __future__ import annotations

import os
from collections.abc import Callable

from .cases_app import page
from .probe import Case, Outcome

ENTRY = "app: who reads (BERTSCOPE_APP_KEYS, BERTSCOPE_APP_PRINCIPAL, the Key field)"
KEY = "bsk_probe-key-of-hana-0123456789"  # hana's key in W/app-reader/keys.toml
VARIABLES = ("BERTSCOPE_APP_KEYS", "BERTSCOPE_APP_PRINCIPAL")


def _keys_file(ws) -> str:
    """W/app-reader/keys.toml: hana (group hr), with cheap hashes; made once."""
    path = ws.root / "app-reader" / "keys.toml"
    if not path.exists():
        from common.keys import Keyring, Principal, hash_key, write_keys

        path.parent.mkdir(parents=True, exist_ok=True)
        write_keys(path, Keyring((Principal("hana", (hash_key(KEY, n=16, r=1, p=1),), ("hr",),
                                            (("*", "read"),)),)))
        (ws.root / "app-reader" / "folder.toml").mkdir()
        (ws.root / "app-reader" / "huge.toml").write_text("# " + "x" * 5_000_000 + "\n")
        (ws.root / "app-reader" / "keys.json").write_text("{}")
        os.mkfifo(ws.root / "app-reader" / "pipe.toml")  # a read of it would wait for a writer
    return str(path)


def _reading(keys: str | None, principal: str | None = None, key: str | None = None,
             query: str = "oil prices") -> Callable[..., Outcome]:
    """Open the Search page with the variables set (`{keys}`: the good keys file, `{W}`: the
    workspace), type `key` in the sidebar's Key field, then a query; the variables are put
    back after."""

    def steps(at, ws):
        if "search-query" not in {w.key for w in at.text_input}:
            return  # the page stopped on the setting: its error is what the user reads
        if key is not None:
            at.text_input(key="reader-key").set_value(key)
        at.text_input(key="search-query").set_value(query).run()

    def run(ws) -> Outcome:
        good = _keys_file(ws)
        before = {v: os.environ.get(v) for v in VARIABLES}
        for name, value in zip(VARIABLES, (keys, principal), strict=True):
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value.replace("{keys}", good).replace("{W}", str(ws.root))
        try:
            return page("search", steps)(ws)
        finally:
            for name, value in before.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value

    return run


def _case(bad: str, run, expect: str = "refused", *names: str, note: str = "") -> Case:
    return Case(ENTRY, bad, run, expect, note, names)


CASES = [
    _case("BERTSCOPE_APP_KEYS naming a file that does not exist",
          _reading("{W}/app-reader/gone.toml"), "refused", "BERTSCOPE_APP_KEYS", "gone.toml"),
    _case("BERTSCOPE_APP_KEYS naming a folder", _reading("{W}/app-reader/folder.toml"),
          "refused", "not a regular file"),
    _case("BERTSCOPE_APP_KEYS=/dev/zero (a device: a read would never end)",
          _reading("/dev/zero"), "refused", "BERTSCOPE_APP_KEYS",
          note="refused by its name's extension before anything is read"),
    _case("BERTSCOPE_APP_KEYS naming a named pipe called .toml",
          _reading("{W}/app-reader/pipe.toml"), "refused", "not a regular file",
          note="refused before it is opened: a read would block the page"),
    _case("BERTSCOPE_APP_KEYS naming malformed TOML", _reading("{W}/access/not.toml"),
          "refused", "not valid TOML"),
    _case("BERTSCOPE_APP_KEYS naming an empty file", _reading("{W}/access/empty.toml"),
          "refused", "is empty"),
    _case("BERTSCOPE_APP_KEYS naming a binary file", _reading("{W}/access/binary.toml"),
          "refused", "not UTF-8"),
    _case("BERTSCOPE_APP_KEYS naming a 5 MB file", _reading("{W}/app-reader/huge.toml"),
          "refused", "bytes"),
    _case("BERTSCOPE_APP_KEYS naming a .json file", _reading("{W}/app-reader/keys.json"),
          "refused", ".toml, .yaml or .yml"),
    _case("BERTSCOPE_APP_KEYS set but empty", _reading(""), "refused", "set but empty",
          note="an empty variable is no open read"),
    _case("BERTSCOPE_APP_PRINCIPAL without BERTSCOPE_APP_KEYS", _reading(None, "hana"),
          "refused", "BERTSCOPE_APP_KEYS"),
    _case("BERTSCOPE_APP_PRINCIPAL set but empty", _reading("{keys}", ""), "refused",
          "set but empty"),
    _case("BERTSCOPE_APP_PRINCIPAL naming nobody in the file", _reading("{keys}", "nobody"),
          "refused", "who is not in", note="an error, not a silent open read"),
    _case("BERTSCOPE_APP_PRINCIPAL '../hana'", _reading("{keys}", "../hana"), "refused",
          "no principal name"),
    _case("BERTSCOPE_APP_PRINCIPAL with a line break", _reading("{keys}", "hana\nroot"),
          "refused", "no principal name"),
    _case("BERTSCOPE_APP_PRINCIPAL '<script>alert(1)</script>'",
          _reading("{keys}", "<script>alert(1)</script>"), "refused", "no principal name"),
    _case("BERTSCOPE_APP_PRINCIPAL of 10,000 characters", _reading("{keys}", "h" * 10_000),
          "refused", "no principal name", note="the message shows its first 60 characters"),
    _case("BERTSCOPE_APP_PRINCIPAL naming a principal of the file", _reading("{keys}", "hana"),
          "accepted", note="reads as hana and the group hr"),
    _case("no key in the Key field", _reading("{keys}"), "accepted",
          note="an anonymous reader: the documents without access, and says so"),
    _case("a wrong key in the Key field", _reading("{keys}", key="bsk_wrong-key"), "refused",
          "not valid", note="said in words; the page reads as an anonymous reader"),
    _case("a key with spaces inside", _reading("{keys}", key="bsk probe key"), "refused",
          "not valid"),
    _case("a key of 10,000 characters", _reading("{keys}", key="k" * 10_000), "refused",
          "at most 512", note="nothing hashed"),
    _case("a key of control characters", _reading("{keys}", key="\x00\x01\x1b[31m"),
          "refused", "not valid"),
    _case("the right key with spaces around it", _reading("{keys}", key=f"  {KEY}\n"),
          "accepted", note="pasted keys are stripped: reads as hana"),
]
