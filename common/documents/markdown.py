"""Markdown: front matter (YAML, TOML or JSON: `front_matter.py`) becomes metadata and its
`title` the title; headings (markdown-it-py, CommonMark) become sections, each heading's text the
first line of its section; the title is else the first level-1 heading."""

from __future__ import annotations

from .front_matter import read_front_matter
from .records import Parsed, Segment
from .sections import SectionPath, clean_heading, merged, without_empty_tail
from .text import decoded

FORMAT = "markdown"


def read_markdown(data: bytes) -> Parsed:
    from markdown_it import MarkdownIt

    text, notes = decoded(data)
    front = read_front_matter(text)
    fields, body = front.fields, front.body
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
    return Parsed(FORMAT, without_empty_tail(merged(segments)), title, fields,
                  notes=(*notes, *front.notes))
