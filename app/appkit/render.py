"""Document text as text: HTML-escaped, markdown inert, with the hit span marked."""

from __future__ import annotations

import html

BOX = (
    '<div style="white-space: pre-wrap; font-family: inherit; line-height: 1.5; '
    'border-left: 3px solid rgba(128,128,128,0.5); padding-left: 0.6em">{}</div>'
)


# Translucent and with the text's own colour: readable in the light and the dark theme.
MARK = '<mark style="background-color: rgba(255, 196, 0, 0.38); color: inherit; padding: 0">'


def highlighted_html(text: str, span: tuple[int, int] | None = None) -> str:
    """`text` escaped for HTML with `span` (character offsets) wrapped in <mark>.

    Rendered through `st.html`, which does not interpret markdown, so `<script>`, `**x**`
    and `# title` inside a document show literally.
    """
    if not span or not (0 <= span[0] < span[1] <= len(text)):
        return BOX.format(html.escape(text))
    a, b = span
    return BOX.format(
        html.escape(text[:a]) + MARK + html.escape(text[a:b]) + "</mark>"
        + html.escape(text[b:])
    )


def excerpt(text: str, start: int, end: int, context: int = 160,
            page_starts: list[tuple[int, int]] = ()) -> tuple[str, tuple[int, int]]:
    """The span `text[start:end]` with up to `context` characters either side, and the span's
    offsets within that excerpt; cut ends are marked with "…", and where a page of the
    document ends inside the excerpt (`page_starts`: (offset, page) where each page begins),
    a line "— p. 6 —" says so, so that text of the next page is never read as the cited one's."""
    start, end = max(0, start), min(len(text), end)
    a, b = max(0, start - context), min(len(text), end + context)
    head = "…" if a > 0 else ""
    tail = "…" if b < len(text) else ""
    pieces, at, shift = [head], a, len(head)
    for offset, page in page_starts:
        if a < offset < b:
            marker = f"\n— p. {page} —\n"
            pieces += [text[at:offset], marker]
            if offset <= start:
                shift += len(marker)
            at = offset
    pieces += [text[at:b], tail]
    return "".join(pieces), (shift + start - a, shift + end - a)
