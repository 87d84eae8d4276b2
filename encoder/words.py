"""Word groups: which subword tokens make up each word (Chinese words found with jieba)."""

from __future__ import annotations

import logging
from bisect import bisect_right
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
    *,
    truncated: bool = False,
) -> list[WordGroup]:
    """Group token positions into words of `texts` (one text, or a pair).

    The shown words partition each text: every non-space character belongs to exactly one.
    A word is jieba's, unless a token straddles two of jieba's words (XLM-R reads 了一个 as one
    piece where jieba sees 了 / 一个): then the two are one shown word, since a token cannot be
    split. A token with no character of its own (XLM-R's lone "▁") joins the word it opens.
    Characters the tokenizer dropped join the word before them (the first word when leading;
    trailing ones are left out when the input was `truncated`, and a word cut there shows its
    part that was read). Special tokens form groups of their own.
    """
    groups: list[WordGroup] = []
    i = 0
    while i < len(tokens):
        seq = sequence_ids[i]
        if seq is None:
            groups.append(WordGroup(tokens[i], [i], segment_ids[i], 0, 0, special=True))
            i += 1
            continue
        run = i
        while i < len(tokens) and sequence_ids[i] == seq:
            i += 1
        groups.extend(_segment_words(texts[seq], list(range(run, i)), offsets, segment_ids[run],
                                     truncated))
    return groups


def _segment_words(text: str, positions: list[int], offsets: Sequence[tuple[int, int]],
                   segment: int, truncated: bool) -> list[WordGroup]:
    """The words of one run of a text's tokens (`positions` into the token sequence)."""
    spans = word_spans(text)
    ends = [e for _, e in spans]
    runs: list[list[int]] = []  # per shown word: [first unit, last unit, *token positions]
    pending: list[int] = []  # tokens with no character yet: they open the next word
    for i in positions:
        start, end = offsets[i]
        while start < end and text[start].isspace():  # "▁" pieces may cover a leading space
            start += 1
        units = _units(spans, ends, start, end)
        if not units:
            pending.append(i)
        elif runs and units[0] <= runs[-1][1]:  # overlaps the open word: one word
            runs[-1][1] = max(runs[-1][1], units[-1])
            runs[-1].extend([*pending, i])
            pending = []
        else:
            runs.append([units[0], units[-1], *pending, i])
            pending = []
    if not runs:  # no token reads a character (only pieces of space): one word of them all
        start, end = len(text) - len(text.lstrip()), len(text.rstrip())
        return [WordGroup(text[start:end], positions, segment, start, end)] if positions else []
    runs[-1].extend(pending)
    runs[0][0] = 0  # dropped leading characters join the first word,
    for before, after in zip(runs, runs[1:], strict=False):
        before[1] = after[0] - 1  # dropped inner ones the word before them,
    if not truncated:
        runs[-1][1] = len(spans) - 1  # and trailing ones the last word
    read_to = max(offsets[i][1] for i in positions) if truncated else len(text)
    out = []
    for first, last, *tokens in runs:
        start, end = spans[first][0], min(spans[last][1], read_to)  # a cut word: what was read
        out.append(WordGroup(text[start:end], sorted(tokens), segment, start, end))
    return out


def _units(spans: Sequence[tuple[int, int]], ends: Sequence[int], start: int,
           end: int) -> list[int]:
    """Indices of the word spans (sorted, disjoint) that overlap characters [start, end)."""
    j = bisect_right(ends, start)  # the first span ending after `start`
    out = []
    while j < len(spans) and spans[j][0] < end and start < end:
        out.append(j)
        j += 1
    return out
