"""Markdown: front matter (YAML, by python-frontmatter) becomes metadata and its `title` the
title; headings (markdown-it-py, CommonMark) become sections, each heading's text the first
line of its section; the title is else the first level-1 heading."""

from __future__ import annotations

import datetime as dt
from typing import Any

from .records import Parsed, ReadError, Segment
from .sections import SectionPath, clean_heading, merged, without_empty_tail
from .text import decoded

FORMAT = "markdown"


def _scalar(value: Any) -> Any:
    """A front matter value as metadata holds it (str/int/float/bool), or None."""
    if isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, (dt.date, dt.datetime)):
        return value.isoformat()
    if isinstance(value, list) and all(isinstance(v, (str, int, float)) for v in value):
        return ", ".join(str(v) for v in value)
    return None


def front_matter(text: str) -> tuple[dict[str, Any], str]:
    """(the front matter's scalar fields, the text after it)."""
    if not text.startswith(("---", "+++")):
        return {}, text
    import frontmatter

    try:
        post = frontmatter.loads(text)
    except Exception as exc:  # yaml raises several types; the message is what matters
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise ReadError(f"its front matter is not valid YAML ({first})") from None
    fields = {str(k): v for k, v in ((k, _scalar(v)) for k, v in post.metadata.items())
              if v is not None}
    return fields, post.content


def read_markdown(data: bytes) -> Parsed:
    from markdown_it import MarkdownIt

    fields, body = front_matter(decoded(data))
    lines = body.splitlines()
    tokens = MarkdownIt("commonmark").parse(body)
    headings = [(tok.map[0], tok.map[1], int(tok.tag[1]), tokens[i + 1].content)
                for i, tok in enumerate(tokens) if tok.type == "heading_open" and tok.map]
    segments: list[Segment] = []
    path = SectionPath()
    at = 0
    for start, end, level, heading in headings:
        segments.append(Segment("\n".join(lines[at:start]), section=path.text))
        heading = clean_heading(heading)
        path.enter(level, heading)
        segments.append(Segment(heading, section=path.text))
        at = end
    segments.append(Segment("\n".join(lines[at:]), section=path.text))
    title = str(fields.pop("title", "") or "")
    if not title:
        title = next((h for _, _, level, h in headings if level == 1), "")
    return Parsed(FORMAT, without_empty_tail(merged(segments)), title, fields)
