"""Where a query's words occur in a hit's text: character spans of the words whose lexical token
(stemmed English, jieba-segmented Chinese: BM25's own tokenizer) is one of the query's."""

from __future__ import annotations

import re

from common.lexical import tokenize

_WORD = re.compile(r"\w+")

__all__ = ["highlight_spans"]


def highlight_spans(query: str, text: str) -> list[tuple[int, int]]:
    """[(start, end)] in `text`, in order, of the words that match `query`'s terms."""
    terms = set(tokenize(query))
    if not terms:
        return []
    spans: list[tuple[int, int]] = []
    for match in _WORD.finditer(text):
        tokens = tokenize(match.group())
        if len(tokens) == 1 and tokens[0] in terms:
            spans.append(match.span())
        elif len(tokens) > 1:  # Chinese: a run of characters holds several words
            spans.extend(_inside(match.group(), match.start(), tokens, terms))
    return spans


def _inside(piece: str, offset: int, tokens: list[str], terms: set[str]) -> list[tuple[int, int]]:
    out, at = [], 0
    for token in tokens:
        found = piece.find(token, at)
        if found < 0:
            continue
        at = found + len(token)
        if token in terms:
            out.append((offset + found, offset + at))
    return out
