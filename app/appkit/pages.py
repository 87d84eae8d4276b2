"""Where a hit stands, on the Search page: a PDF's (or a scan's) pages the chunk reaches, drawn
with its characters marked (`indexer.pages`, behind a toggle: a page takes a few hundred
milliseconds to draw; cached per reader), or the whole section of a web page, Word, Markdown,
slide or e-book hit with the chunk marked in place."""

from __future__ import annotations

import html

import streamlit as st

from common.documents import section_span
from common.documents.highlight import has_pages, passage_pages

from .render import highlighted_html


@st.cache_data(max_entries=64, show_spinner=False)
def _page_png(_index, index_key: str, doc_id: str, page: int, chunk_id: int,
              readers: tuple[str, ...] | None) -> bytes:
    from indexer.pages import page_png

    return page_png(_index, doc_id, page, chunk_id=chunk_id, readers=readers)


def where_it_stands(index, index_key: str, hit, document, key: str = "",
                    readers: frozenset[str] | None = None) -> None:
    """The hit's page(s) with the chunk marked, or its section with the chunk marked; the page
    is drawn as `readers` may see it (None: no restriction)."""
    metadata = document.metadata or {}
    if has_pages(metadata):
        pages = [p for p, _, _ in passage_pages(metadata, document.text, hit.start, hit.end)]
        if not pages:
            return
        label = ("pp. " + "–".join(map(str, (pages[0], pages[-1])))) if len(pages) > 1 \
            else f"p. {pages[0]}"
        if not st.toggle(f"Show {label} with the passage marked",
                         key=f"page-{key}{hit.chunk_id}"):
            return
        from indexer.pages import PageError

        for page in pages:
            try:
                png = _page_png(index, index_key, hit.doc_id, page, int(hit.chunk_id),
                                None if readers is None else tuple(sorted(readers)))
            except (PageError, KeyError) as exc:  # KeyError: hidden from readers, or gone
                st.warning(f"Cannot draw p. {page}: {exc}")
                return
            st.image(png, caption=f"{hit.doc_id}, p. {page}" + (
                " (its sentence goes on over the next page)" if page != pages[-1] else ""))
        return
    found = section_span(metadata, hit.start)
    if found is None:
        return
    start, end, section = found
    with st.expander(f"§ {section} (the passage marked in its section)"):
        st.html(f"<div class='section-path' style='opacity:0.75'>§ {html.escape(section)}</div>"
                + highlighted_html(document.text[start:end], (hit.start - start,
                                                              hit.end - start)))
