"""Document text as text: HTML-escaped, markdown inert, with the hit span marked."""

from __future__ import annotations

import html

BOX = (
    '<div style="white-space: pre-wrap; font-family: inherit; line-height: 1.5; '
    'border-left: 3px solid rgba(128,128,128,0.5); padding-left: 0.6em">{}</div>'
)


def highlighted_html(text: str, span: tuple[int, int] | None = None) -> str:
    """`text` escaped for HTML with `span` (character offsets) wrapped in <mark>.

    Rendered through `st.html`, which does not interpret markdown, so `<script>`, `**x**`
    and `# title` inside a document show literally.
    """
    if not span or not (0 <= span[0] < span[1] <= len(text)):
        return BOX.format(html.escape(text))
    a, b = span
    return BOX.format(
        html.escape(text[:a]) + "<mark>" + html.escape(text[a:b]) + "</mark>"
        + html.escape(text[b:])
    )
