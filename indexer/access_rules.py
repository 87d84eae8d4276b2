"""Sync's `--access` rules: who may read each file of a synced folder (`indexer.access`).

    --access 'GLOB=NAME,NAME'   files matching GLOB are read by those groups or principals
    --access 'GLOB='            files matching GLOB are read by everyone (no `access`)

GLOB is matched as `--include` matches (`common.documents.folder.matches`: over the path
relative to the folder; `hr/**` is everything under hr/, `*.pdf` a PDF in any folder).
The last rule that matches a file wins, as in a .gitignore: give the broad rule first and the
exceptions after it (`'**=staff' 'public/**='`). A file no rule matches has no `access`:
every reader of the index sees it. A file's own front matter never sets `access`."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from common.documents.folder import matches

from .access import ACCESS, check_access

MAX_RULES = 1000
MAX_PATTERN_CHARS = 1000


@dataclass(frozen=True)
class AccessRule:
    pattern: str  # a glob over the path relative to the folder
    names: tuple[str, ...]  # who may read a matching file; () for everyone

    def __str__(self) -> str:
        return f"{self.pattern}={','.join(self.names)}"


def parse_rule(text: str) -> AccessRule:
    """'GLOB=NAME,NAME' (or 'GLOB=' for everyone) as a rule; `ValueError` in words."""
    if not isinstance(text, str):
        raise TypeError(f"an access rule is a string 'GLOB=NAME,NAME', got {type(text).__name__}")
    shown = text[:80] + ("…" if len(text) > 80 else "")
    if "=" not in text:
        raise ValueError(f"access rule {shown!r} has no '=': write 'GLOB=NAME,NAME' (e.g. "
                         "'hr/**=hr'), or 'GLOB=' for files every reader sees")
    pattern, _, names = text.rpartition("=")
    pattern = pattern.strip()
    if not pattern:
        raise ValueError(f"access rule {shown!r} has no glob before '=': e.g. 'hr/**=hr'")
    if len(pattern) > MAX_PATTERN_CHARS:
        raise ValueError(f"access rule {shown!r}: its glob is {len(pattern):,} characters; "
                         f"at most {MAX_PATTERN_CHARS:,}")
    if not names.strip():
        return AccessRule(pattern, ())
    parts = [n.strip() for n in names.split(",")]
    if any(not p for p in parts):
        raise ValueError(f"access rule {shown!r} has an empty name between commas: write "
                         "'GLOB=NAME,NAME'")
    try:
        return AccessRule(pattern, tuple(check_access(parts, f"access rule {shown!r}")))
    except TypeError as exc:  # names are strings here: only values are wrong
        raise ValueError(str(exc)) from None


def parse_rules(texts: Sequence[str] | None) -> tuple[AccessRule, ...]:
    """Every rule of `texts` (sync's repeated --access), in order; `AccessRule`s pass."""
    if texts is None:
        return ()
    if isinstance(texts, str):
        raise TypeError(f"access takes a list of rules, not one string: use [{texts[:80]!r}]")
    texts = list(texts)
    if len(texts) > MAX_RULES:
        raise ValueError(f"{len(texts):,} access rules; a sync takes at most {MAX_RULES:,}")
    return tuple(t if isinstance(t, AccessRule) else parse_rule(t) for t in texts)


def access_for(rel: str, rules: Sequence[AccessRule]) -> list[str] | None:
    """Who may read file `rel` under `rules` (the last match wins; None: everyone)."""
    for rule in reversed(rules):
        if matches(rel, [rule.pattern]):
            return list(rule.names) or None
    return None


def with_access(doc, rules: Sequence[AccessRule]):
    """File document `doc` (a `FileDocument`, id = its relative path) with the `access` the
    rules give it, and none where they give it none."""
    names = access_for(doc.id, rules)
    meta = {k: v for k, v in doc.metadata.items() if k != ACCESS}
    if names is not None:
        meta[ACCESS] = names
    return dataclasses.replace(doc, metadata=meta)
