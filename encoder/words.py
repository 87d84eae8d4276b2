"""Word groups: which subword tokens make up each word (Chinese words found with jieba)."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

import jieba

jieba.setLogLevel(logging.WARNING)


@dataclass(frozen=True)
class WordGroup:
    word: str  # the word as written in the input ("[CLS]"/"<s>" for a special token)
    tokens: list[int]  # indices into the token sequence, contiguous
    segment: int  # 0 for the first text, 1 for the pair's second
    start: int  # character span in that segment's text
    end: int
    special: bool = False


def word_spans(text: str) -> list[tuple[int, int]]:
    """Character spans of the words in `text`; whitespace is not a word.

    jieba segments Chinese into words (苹果 is one) and keeps English words, digits and
    punctuation as their own units, so mixed-script text works too.
    """
    return [(s, e) for w, s, e in jieba.tokenize(text) if w.strip()]


def group_tokens(
    tokens: Sequence[str],
    offsets: Sequence[tuple[int, int]],
    sequence_ids: Sequence[int | None],
    segment_ids: Sequence[int],
    texts: Sequence[str],
) -> list[WordGroup]:
    """Group token positions into words of `texts` (one text, or a pair).

    A token belongs to the word in which its first non-space character lies; a token that
    spans two words joins the first. Special tokens form groups of their own.
    """
    spans = [word_spans(t) for t in texts]
    groups: list[WordGroup] = []
    current: tuple[int, int] | None = None  # (segment, word index) of the open group
    for i, token in enumerate(tokens):
        seq = sequence_ids[i]
        if seq is None:
            groups.append(WordGroup(token, [i], segment_ids[i], 0, 0, special=True))
            current = None
            continue
        start, end = offsets[i]
        text = texts[seq]
        while start < end and text[start].isspace():  # "▁" pieces may cover a leading space
            start += 1
        w = _word_at(spans[seq], start)
        key = (seq, w)
        if key == current:
            groups[-1].tokens.append(i)
            continue
        ws, we = spans[seq][w] if w >= 0 else (start, end)
        groups.append(WordGroup(text[ws:we], [i], segment_ids[i], ws, we))
        current = key
    return groups


def _word_at(spans: Sequence[tuple[int, int]], pos: int) -> int:
    for j, (s, e) in enumerate(spans):
        if s <= pos < e:
            return j
    return -1
