"""Bad input to per-document access (issue 50): sync's `--access GLOB=NAMES` rules (a rule that
is no rule is argparse's exit 2 naming the flag and what to write; a run that forgets the rules
of an index whose files carry access is refused, nothing changed), a document's `access` metadata
and a read's `readers=` (refused in words, naming the document and the limit)."""

from __future__ import annotations

from collections.abc import Callable

from .probe import Case, call, cli

ENTRY = "python -m indexer sync --access"
M = ["--model", "minilm"]


def _sync(bad: str, *argv: str, expect: str | int = "refused", note: str = "",
          names: tuple[str, ...] = ()) -> Case:
    return Case(ENTRY, bad, cli("indexer", "sync", *argv), expect, note, names)


CASES = [
    _sync("a rule without '=' (hr/**)", "{W}/docs", "{W}/s-acl0", "--access", "hr/**", *M,
          expect=2, names=("--access", "'='")),
    _sync("a rule without a glob (=hr)", "{W}/docs", "{W}/s-acl0", "--access", "=hr", *M,
          expect=2, names=("--access", "no glob")),
    _sync("an empty name between commas (hr/**=a,,b)", "{W}/docs", "{W}/s-acl0", "--access",
          "hr/**=a,,b", *M, expect=2, names=("empty name",)),
    _sync("a name of 300 characters", "{W}/docs", "{W}/s-acl0", "--access", "**=" + "n" * 300,
          *M, expect=2, names=("200",)),
    _sync("names with spaces around the commas (hr/**=a, b ,c)", "{W}/docs", "{W}/s-acl0",
          "--access", "hr/**=a, b ,c", *M, expect=0,
          note="names are split on commas and trimmed: a, b, c"),
    _sync("rules on the first run, then a run without them", "{W}/docs", "{W}/s-acl1",
          "--access", "**=staff", *M, expect=0, note="the first run builds it, every file for "
          "staff; the next case forgets the rules"),
    _sync("a run without --access over files that carry access", "{W}/docs", "{W}/s-acl1",
          names=("give the rules again",), note="refused: it would make every file public; "
                                                "nothing changed"),
]


def library_cases(minilm: Callable) -> list[Case]:
    def ix(ws):
        from indexer import SemanticIndex

        return SemanticIndex.open(ws.fresh(), encoder=minilm())

    def add(access):
        return call(lambda ws: ix(ws).add([{"id": "n", "text": "x",
                                            "metadata": {"access": access}}]))

    entry = "indexer library: access and readers"
    return [
        Case(entry, "add() with access [] (nobody)", add([]), names=("empty list", "leave")),
        Case(entry, "add() with access ['hr', ''] (an empty name)", add(["hr", ""]),
             names=("['access'][1]", "is empty")),
        Case(entry, "add() with access of a 300-character name", add(["n" * 300]),
             names=("200",)),
        Case(entry, "add() with access of 300 names", add([f"g{i}" for i in range(300)]),
             names=("256",)),
        Case(entry, "add() with access 7 (a number)", add(7), names=("a list of them",)),
        Case(entry, "add() with access ['hr', 3]", add(["hr", 3]), names=("a string",)),
        Case(entry, "search(readers='hr') (a string, not a list)",
             call(lambda ws: ix(ws).search("oil", readers="hr")), names=("['hr']",)),
        Case(entry, "documents(readers=[None])",
             call(lambda ws: ix(ws).documents(["x"], readers=[None])), names=("readers[0]",)),
        Case(entry, "document(id hidden from the readers)",
             call(lambda ws: _hidden(ix(ws))), names=("no document",),
             note="the KeyError of a missing id: a hidden document is not told apart"),
    ]


def _hidden(index):
    index.add([{"id": "secret", "text": "payroll", "metadata": {"access": ["hr"]}}])
    return index.document("secret", readers=["eng"])
