"""Training examples from documents, as BERT's `create_pretraining_data` builds them.

- MLM: consecutive sentences of one document packed into sequences of at most `max_length`
  tokens (specials included); a sentence longer than that is cut.
- NSP: such a packed chunk split at a random sentence boundary into A and B; half the time B is
  replaced by as many sentences from a random *other* document (label 1, NotNext), else B is the
  true continuation (label 0, IsNext) — BERT's labels and 50/50 mix.

Each example is a dict of token ids, segment ids and word ids (for whole-word masking).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from encoder.masking import word_ids_for

from .texts import sentence_spans

IS_NEXT, NOT_NEXT = 0, 1  # BERT's next_sentence_label values


@dataclass(frozen=True)
class Chunk:
    doc: int
    sentences: tuple[tuple[int, int], ...]  # character spans in the document, consecutive


def chunk_documents(tokenizer, texts: Sequence[str], max_length: int) -> list[Chunk]:
    """Pack each document's sentences into chunks of at most `max_length` tokens with specials."""
    budget = max_length - 3  # [CLS] A [SEP] (B [SEP]): room for a pair's specials too
    spans = [sentence_spans(t) for t in texts]
    flat = [texts[d][s:e] for d, doc in enumerate(spans) for s, e in doc]
    lengths = iter(
        len(ids) for ids in tokenizer(flat, add_special_tokens=False, verbose=False)["input_ids"]
    ) if flat else iter(())
    chunks: list[Chunk] = []
    for d, doc in enumerate(spans):
        current: list[tuple[int, int]] = []
        used = 0
        for span in doc:
            n = next(lengths)
            if current and used + n > budget:
                chunks.append(Chunk(d, tuple(current)))
                current, used = [], 0
            current.append(span)
            used += n
        if current:
            chunks.append(Chunk(d, tuple(current)))
    return chunks


def mlm_examples(tokenizer, texts: Sequence[str], chunks: Sequence[Chunk], max_length: int,
                 *, words: bool = False) -> list[dict]:
    """One single-segment example per chunk; `words` adds word ids (whole-word masking)."""
    return [
        encode(tokenizer, texts[c.doc][c.sentences[0][0]: c.sentences[-1][1]], None, max_length,
               words=words)
        for c in chunks
    ]


def nsp_examples(
    tokenizer, texts: Sequence[str], chunks: Sequence[Chunk], max_length: int, seed: int,
    *, words: bool = False,
) -> list[dict]:
    """One (A, B, IsNext/NotNext) example per chunk of two or more sentences."""
    rng = random.Random(seed)
    by_doc: dict[int, list[Chunk]] = {}
    for c in chunks:
        by_doc.setdefault(c.doc, []).append(c)
    docs = list(by_doc)
    out = []
    for c in chunks:
        if len(c.sentences) < 2:
            continue
        cut = rng.randrange(1, len(c.sentences))
        text = texts[c.doc]
        a = text[c.sentences[0][0]: c.sentences[cut - 1][1]]
        b = text[c.sentences[cut][0]: c.sentences[-1][1]]
        label = IS_NEXT
        if len(docs) > 1 and rng.random() < 0.5:
            label = NOT_NEXT
            b = random_span(texts, by_doc, docs, c.doc, len(c.sentences) - cut, rng)
        example = encode(tokenizer, a, b, max_length, words=words)
        example["next_sentence_label"] = label
        out.append(example)
    return out


def random_span(texts, by_doc, docs, not_doc: int, sentences: int, rng: random.Random) -> str:
    """`sentences` consecutive sentences from a random document other than `not_doc`."""
    other = not_doc
    while other == not_doc:
        other = rng.choice(docs)
    spans = [s for c in by_doc[other] for s in c.sentences]
    start = rng.randrange(len(spans))
    chosen = spans[start: start + sentences]
    return texts[other][chosen[0][0]: chosen[-1][1]]


def encode(tokenizer, a: str, b: str | None, max_length: int, *, words: bool = False) -> dict:
    """Token ids, segment ids (and word ids) of one text or pair, cut to `max_length`."""
    enc = tokenizer(a, b, truncation="longest_first" if b is not None else True,
                    max_length=max_length, return_offsets_mapping=words)
    ids = enc["input_ids"]
    example: dict = {"input_ids": ids}
    if words:
        texts = [a] if b is None else [a, b]
        example["word_ids"] = word_ids_for(tokenizer.convert_ids_to_tokens(ids),
                                           enc["offset_mapping"], enc.sequence_ids(0), texts)
    if "token_type_ids" in enc:  # BERT's segment ids; XLM-R tokenizers (e5) have none
        example["token_type_ids"] = enc["token_type_ids"]
    return example
