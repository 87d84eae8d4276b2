"""Token-aware chunking: windows measured with the encoder's own tokenizer, so the model never
truncates a chunk; breaks prefer sentence ends (English and Chinese); each chunk keeps its
character offsets into the document. A document read from a file (`common.documents`) is
chunked segment by segment, so that no chunk crosses a page or a section."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import asdict, dataclass

from common.documents import segment_spans

SENTENCE_ENDS = frozenset(".!?。！？；;…")
TITLE_SEPARATOR = " "


@dataclass(frozen=True)
class ChunkingConfig:
    # tokens per chunk, specials, prompt prefix and title included; None: the model's max_length
    chunk_tokens: int | None = None
    overlap: int = 32  # tokens shared by consecutive chunks (capped below half a chunk)
    title_in_chunk: bool = True  # prepend the document title to every chunk's encoded text

    def __post_init__(self) -> None:
        tokens, overlap = self.chunk_tokens, self.overlap
        if tokens is not None and (isinstance(tokens, bool) or not isinstance(tokens, int)
                                   or tokens < 1):
            raise ValueError(f"chunk_tokens must be a positive integer or None (the model's "
                             f"max length), got {tokens!r}")
        if isinstance(overlap, bool) or not isinstance(overlap, int) or overlap < 0:
            raise ValueError(f"overlap must be an integer >= 0 tokens, got {overlap!r}")
        if not isinstance(self.title_in_chunk, bool):
            raise ValueError(f"title_in_chunk must be True or False, got {self.title_in_chunk!r}")

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class Chunk:
    doc_id: str
    chunk_no: int
    start: int  # document.text[start:end] is the chunk text
    end: int
    text: str
    encoded: str  # what the encoder sees: title + separator + text (without the model's prompt)


def _budget(encoder, config: ChunkingConfig) -> int:
    """Content tokens per window: the limit minus specials and the passage prompt's prefix."""
    limit = encoder.max_length if config.chunk_tokens is None else config.chunk_tokens
    if limit > encoder.max_length:
        raise ValueError(f"chunk_tokens={limit} exceeds the model's max_length "
                         f"{encoder.max_length}: use chunk_tokens <= {encoder.max_length}")
    overhead = encoder.token_lengths([""], prompt="passage")[0]
    budget = limit - overhead
    if budget < 8:
        raise ValueError(f"chunk_tokens={limit} leaves {budget} content tokens: use a larger value")
    if config.overlap < 0:
        raise ValueError(f"overlap must be >= 0 tokens, got {config.overlap}")
    return budget


def _title_prefix(encoder, title: str, budget: int) -> tuple[str, int]:
    """(prefix to prepend, its token count), the title cut to at most half the budget."""
    if not title.strip():
        return "", 0
    offsets = encoder.tokenizer(title, add_special_tokens=False, return_offsets_mapping=True,
                                verbose=False)["offset_mapping"]
    return _prefix_of(title, offsets, budget), min(len(offsets), budget // 2) + 1


def _prefix_of(title: str, offsets, budget: int) -> str:
    """The title, cut to half the budget's tokens, and the separator ("" for a blank title)."""
    if not title.strip():
        return ""
    if len(offsets) > budget // 2:
        title = title[: offsets[budget // 2 - 1][1]]
    return title + TITLE_SEPARATOR


def _windows(offsets: Sequence[tuple[int, int]], text: str, size: int, overlap: int):
    """Token windows [a, b) of at most `size` tokens, ending at sentence ends when possible."""
    n = len(offsets)
    a = 0
    while a < n:
        b = min(a + size, n)
        if b < n:
            for j in range(b, a + size // 2, -1):  # last sentence end in the window's second half
                end = offsets[j - 1][1]
                if text[end - 1 : end] in SENTENCE_ENDS or text[end : end + 1] == "\n":
                    b = j
                    break
        yield a, b
        if b >= n:
            return
        a = max(b - overlap, a + 1)
        while a < b and _inside_word(text, offsets[a][0]):  # the overlap starts at a word
            a += 1


def _inside_word(text: str, pos: int) -> bool:
    """True where `pos` splits a word written with spaces ("unsea|sonably"); CJK has no such
    words to split, so any character boundary there is a fine start."""
    if pos <= 0 or pos >= len(text):
        return False
    before, after = text[pos - 1], text[pos]
    return before.isalnum() and after.isalnum() and not (_cjk(before) or _cjk(after))


def _cjk(ch: str) -> bool:
    cp = ord(ch)
    return 0x2E80 <= cp <= 0x9FFF or 0xF900 <= cp <= 0xFAFF or cp >= 0x20000


def chunk_input(encoder, title: str, text: str, config: ChunkingConfig) -> str:
    """What the encoder read for a chunk `text` of a document titled `title` (no prompt)."""
    if not config.title_in_chunk:
        return text
    prefix, _ = _title_prefix(encoder, title, _budget(encoder, config))
    return prefix + text


def chunk_documents(encoder, documents, config: ChunkingConfig) -> list[Chunk]:
    """Split each document into chunks that fit the encoder; order: documents, then chunk_no."""
    budget = _budget(encoder, config)
    docs = list(documents)
    texts = [d.text for d in docs]
    encodings = encoder.tokenizer(texts, add_special_tokens=False, return_offsets_mapping=True,
                                  verbose=False)["offset_mapping"] if texts else []
    chunks: list[Chunk] = []
    for doc, offsets in zip(docs, encodings, strict=True):
        prefix, prefix_tokens = (_title_prefix(encoder, doc.title, budget)
                                 if config.title_in_chunk else ("", 0))
        offsets = [(s, e) for s, e in offsets if e > s]
        size = budget - prefix_tokens
        spans = segment_spans(doc.metadata)
        if spans is None:
            pieces = _fit(encoder, doc.text, offsets, prefix, size, config.overlap)
        else:  # tokens never span the separator between segments: each falls in one
            pieces = []
            starts = [s for s, _ in offsets]
            for a, b in spans:
                inside = offsets[bisect_left(starts, a):bisect_left(starts, b)]
                pieces += _fit(encoder, doc.text, inside, prefix, size, config.overlap) \
                    if inside else [(a, b, prefix + doc.text[a:b])]
        chunks.extend(Chunk(doc.id, no, s, e, doc.text[s:e], enc)
                      for no, (s, e, enc) in enumerate(pieces))
    return chunks


def _fit(encoder, text: str, offsets, prefix: str, size: int, overlap: int
         ) -> list[tuple[int, int, str]]:
    """(start, end, encoded) of windows of `size` tokens, re-split smaller where re-tokenising
    the joined text grows it."""
    if not offsets:  # text with no tokens at all (e.g. only control characters)
        return [(0, len(text), prefix + text)]
    while True:
        spans = [(offsets[a][0], offsets[b - 1][1]) for a, b in
                 _windows(offsets, text, size, min(overlap, size // 2 - 1))]
        encoded = [prefix + text[s:e] for s, e in spans]
        lengths = encoder.token_lengths(encoded, prompt="passage")
        if max(lengths) <= encoder.max_length or size <= 8:
            return [(s, e, enc) for (s, e), enc in zip(spans, encoded, strict=True)]
        size -= max(1, max(lengths) - encoder.max_length)


def whole_document_chunks(encoder, documents, config: ChunkingConfig,
                          batch: int = 4096) -> list[Chunk]:
    """One chunk per document, its whole text (a build from vectors made elsewhere: nothing is
    encoded here, `encoded` feeds the lexical side). The title prefix is what `chunk_input`
    gives, its titles tokenized `batch` at a time."""
    docs = list(documents)
    budget = _budget(encoder, config)
    prefixes = [""] * len(docs)
    if config.title_in_chunk:
        for first in range(0, len(docs), batch):
            part = docs[first:first + batch]
            titles = [d.title for d in part]
            offsets = encoder.tokenizer(titles, add_special_tokens=False,
                                        return_offsets_mapping=True,
                                        verbose=False)["offset_mapping"]
            for i, (title, offs) in enumerate(zip(titles, offsets, strict=True)):
                prefixes[first + i] = _prefix_of(title, offs, budget)
    chunks = []
    for doc, prefix in zip(docs, prefixes, strict=True):
        start, end = _trimmed(doc.text)
        chunks.append(Chunk(doc.id, 0, start, end, doc.text[start:end],
                            prefix + doc.text[start:end]))
    return chunks


def _trimmed(text: str) -> tuple[int, int]:
    """The span of `text` without its outer white space, as a token window would cover it."""
    end = len(text.rstrip())
    return (len(text) - len(text.lstrip()), end) if end else (0, len(text))


def chunks_from_spans(encoder, documents, spans, config: ChunkingConfig) -> list[Chunk]:
    """The chunks of `documents` at the character `spans` another index chose ({doc_id:
    [(start, end), ...]}: a re-index keeps its source's chunking), each with the title prefix
    `encoder` puts before it. A span may be longer than `encoder` reads: it is kept whole (see
    `too_long`)."""
    budget = _budget(encoder, config)
    chunks: list[Chunk] = []
    for doc in documents:
        prefix = (_title_prefix(encoder, doc.title, budget)[0] if config.title_in_chunk else "")
        chunks.extend(Chunk(doc.id, no, s, e, doc.text[s:e], prefix + doc.text[s:e])
                      for no, (s, e) in enumerate(spans[doc.id]))
    return chunks


def too_long(encoder, chunks: Sequence[Chunk]) -> int:
    """How many of `chunks` hold more tokens than `encoder` reads (it sees their start only)."""
    lengths = encoder.token_lengths([c.encoded for c in chunks], prompt="passage")
    return sum(n > encoder.max_length for n in lengths)
