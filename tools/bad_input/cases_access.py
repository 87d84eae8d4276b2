"""Bad input to sync's `--access GLOB=NAMES` rules (issue 50): a rule that is no rule is
argparse's exit 2 naming the flag and what to write; a run that forgets the rules of an index
whose files carry access is refused, nothing changed."""

from __future__ import annotations

from .probe import Case, cli

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
