"""A Markdown file's front matter, as Hugo, Jekyll and Obsidian users write it: YAML between
`---` lines (Jekyll, Hugo, Obsidian), TOML between `+++` lines (Hugo), or a JSON object (Hugo).
Untrusted input, so it is bounded and typed as written:

- at most MAX_BYTES of it are read (a larger block is left out, with a note);
- YAML is read by the YAML 1.2 core rules, not PyYAML's 1.1 ones: `NO`, `on`, `yes` stay
  text (1.1 made them false / true), a zip code `01234` stays "01234" (1.1 read octal 668), a
  version `1.10` stays "1.10" (a number only when it reads back as written), a date stays the
  text it was; at most MAX_ALIASES aliases (`*name`), so a small file cannot expand into a
  huge value;
- each value is a string, number or boolean, or a list of them joined with ", " (Obsidian's
  `tags:` list); a value over MAX_VALUE_CHARS, a nested table or a list of lists is left out
  and named in a note.

    read_front_matter(text) -> FrontMatter(fields, body, notes)
"""

from __future__ import annotations

import datetime as dt
import json
import math
import re
import tomllib
from dataclasses import dataclass, field
from typing import Any

from .records import ReadError

MAX_BYTES = 64 * 1024  # a front matter block read at most
MAX_VALUE_CHARS = 10_000  # one field's value (a list: joined)
MAX_ALIASES = 100  # YAML `*name` references in one block
_NUMBER = "tag:bertscope.local,2026:number"  # a plain scalar that may be a number


class _TooManyAliases(Exception):
    """A YAML block with more than MAX_ALIASES aliases: left out whole."""


@dataclass
class FrontMatter:
    fields: dict[str, Any]
    body: str
    notes: list[str] = field(default_factory=list)


def _split(text: str) -> tuple[str, str, str] | None:
    """(kind, the block, the body after it) when `text` opens with front matter, else None."""
    first, _, rest = text.partition("\n")
    opener = first.rstrip("\r ")
    if opener in ("---", "+++"):
        closers = ("---", "...") if opener == "---" else ("+++",)
        at = 0
        for line in rest.splitlines(keepends=True):
            if line.rstrip("\r\n ") in closers:
                return ("yaml" if opener == "---" else "toml", rest[:at], rest[at + len(line):])
            at += len(line)
        return None  # never closed: the `---` is a thematic break, not front matter
    if text.startswith("{"):
        try:
            value, end = json.JSONDecoder().raw_decode(text[:MAX_BYTES + 1])
        except ValueError:
            return None
        after = text[end:end + 80].lstrip(" \t\r")
        if isinstance(value, dict) and (not after or after.startswith("\n")):
            return "json", text[:end], text[end:].lstrip("\r\n")
    return None


def read_front_matter(text: str) -> FrontMatter:
    """The front matter of Markdown `text` and the body after it; `ReadError` when it does not
    parse (naming the format and where)."""
    found = _split(text)
    if found is None:
        return FrontMatter({}, text)
    kind, block, body = found
    size = len(block.encode("utf-8"))
    if size > MAX_BYTES:
        return FrontMatter({}, body, [f"its front matter is {size:,} bytes, over the "
                                      f"{MAX_BYTES:,} read: left out"])
    if kind == "yaml":
        try:
            raw = _yaml(block)
        except _TooManyAliases:
            return FrontMatter({}, body, [f"its front matter uses more than {MAX_ALIASES} YAML "
                                          "aliases (*name), each of which can repeat a large "
                                          "value: left out"])
    elif kind == "toml":
        try:
            raw = tomllib.loads(block)
        except tomllib.TOMLDecodeError as exc:
            raise ReadError(f"its front matter is not valid TOML ({exc})") from None
    else:
        raw = json.loads(block)
    if raw is None:
        return FrontMatter({}, body)
    if not isinstance(raw, dict):
        raise ReadError(f"its front matter is a {type(raw).__name__}, not fields "
                        "(`key: value` lines)")
    fields, notes = {}, []
    for key, value in raw.items():
        kept, why = _scalar(value)
        if why:
            notes.append(f"its front matter field {str(key)[:60]!r} left out: {why}")
        elif kept is not None:
            fields[str(key)] = kept
    return FrontMatter(fields, body, notes)


def _scalar(value: Any) -> tuple[Any, str | None]:
    """(a front matter value as metadata holds it, or None; why it is left out, or None)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None, f"{value} is not a finite number"
    if isinstance(value, (bool, int, float)):
        return value, None
    if isinstance(value, (dt.date, dt.datetime, dt.time)):  # TOML's dates: typed, kept as text
        value = value.isoformat()
    if isinstance(value, str):
        if len(value) > MAX_VALUE_CHARS:
            return None, f"{len(value):,} characters, over {MAX_VALUE_CHARS:,}"
        return value, None
    if isinstance(value, list):
        if not all(isinstance(v, (str, int, float, bool)) for v in value):
            return None, "a list holding lists or tables (only a list of values is kept)"
        size = sum(len(str(v)) + 2 for v in value)  # counted before anything is joined
        if size > MAX_VALUE_CHARS:
            return None, f"a list of {size:,} characters, over {MAX_VALUE_CHARS:,}"
        return ", ".join(str(v) for v in value), None
    if value is None:
        return None, None
    return None, f"a {type(value).__name__} (a table: only values and lists are kept)"


def _yaml(block: str) -> Any:
    import yaml

    loader = _Loader(block)
    try:
        return loader.get_single_data()
    except yaml.YAMLError as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise ReadError(f"its front matter is not valid YAML ({first})") from None
    finally:
        loader.dispose()


def _loader_class():
    import yaml

    class Loader(yaml.SafeLoader):
        """SafeLoader with YAML 1.2 core scalars (below) and a bound on aliases."""

        aliases = 0

        def compose_node(self, parent, index):
            if self.check_event(yaml.AliasEvent):
                self.aliases += 1
                if self.aliases > MAX_ALIASES:
                    raise _TooManyAliases
            return super().compose_node(parent, index)

    typed = ("bool", "int", "float", "timestamp")
    Loader.yaml_implicit_resolvers = {
        first: [(tag, rx) for tag, rx in resolvers
                if tag.rsplit(":", 1)[-1] not in typed]
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()}
    Loader.add_implicit_resolver("tag:yaml.org,2002:bool",
                                 re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"),
                                 list("tTfF"))
    Loader.add_implicit_resolver(_NUMBER, re.compile(
        r"^[-+]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?$"), list("-+.0123456789"))
    Loader.add_constructor("tag:yaml.org,2002:bool",
                           lambda loader, node: loader.construct_scalar(node).lower() == "true")
    Loader.add_constructor(_NUMBER, lambda loader, node: _number(loader.construct_scalar(node)))
    return Loader


def _number(text: str) -> int | float | str:
    """A number when it reads back as written (`42`, `-3`, `2.5`); else the text (`01234`,
    `1.10`, `+5`, `1e3`)."""
    try:
        if str(int(text)) == text:
            whole = int(text)
            return whole if -(2**63) <= whole < 2**63 else text  # what a store holds
    except ValueError:
        pass
    try:
        value = float(text)
    except ValueError:
        return text
    return value if repr(value) == text else text


class _LazyLoader:
    """The loader class, made on first use (PyYAML is imported only for a file that has YAML)."""

    cls = None

    def __call__(self, block: str):
        if _LazyLoader.cls is None:
            _LazyLoader.cls = _loader_class()
        return _LazyLoader.cls(block)


_Loader = _LazyLoader()
