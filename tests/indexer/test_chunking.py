"""Chunking: offsets reproduce the text, no chunk is ever truncated, sentence ends preferred."""

from __future__ import annotations

import pytest

from indexer import ChunkingConfig, Document, chunk_documents

LONG_EN = " ".join(f"Sentence number {i} talks about topic {i % 7} at some length."
                   for i in range(60))
LONG_ZH = "".join(f"第{i}句话讲的是苹果发布会和天气；今天下雨了！" for i in range(60))


@pytest.mark.parametrize("text", [LONG_EN, LONG_ZH, "short", "x" * 3000])
def test_offsets_reproduce_text_and_nothing_is_truncated(tiny_encoder, text):
    doc = Document("a", text, title="A title")
    chunks = chunk_documents(tiny_encoder, [doc], ChunkingConfig(overlap=8))
    assert [c.chunk_no for c in chunks] == list(range(len(chunks)))
    for c in chunks:
        assert text[c.start : c.end] == c.text
        assert c.encoded == "A title " + c.text
    lengths = tiny_encoder.token_lengths([c.encoded for c in chunks], prompt="passage")
    assert max(lengths) <= tiny_encoder.max_length
    assert chunks[0].start == 0 and chunks[-1].end == len(text.rstrip())
    for a, b in zip(chunks, chunks[1:], strict=False):
        assert b.start <= a.end  # consecutive windows touch or overlap: nothing is lost


def test_breaks_prefer_sentence_ends(tiny_encoder):
    for text, ends in [(LONG_EN, "."), (LONG_ZH, "；！")]:
        chunks = chunk_documents(tiny_encoder, [Document("a", text)], ChunkingConfig(overlap=0))
        assert len(chunks) > 3
        assert all(c.text[-1] in ends for c in chunks[:-1])


def test_overlapping_chunks_start_at_a_word(tiny_encoder):
    # no sentence ends and long words split into subwords: windows are cut by size
    text = " ".join(["unseasonably inventories tokenization"] * 80)
    chunks = chunk_documents(tiny_encoder, [Document("a", text)], ChunkingConfig(overlap=8))
    assert len(chunks) > 3
    for a, b in zip(chunks, chunks[1:], strict=False):
        assert b.start < a.end  # still overlapping
        assert text[b.start - 1] == " ", text[b.start - 5 : b.start + 10]


def test_chunk_tokens_and_title_option(tiny_encoder):
    doc = Document("a", LONG_EN, title="Title")
    small = chunk_documents(tiny_encoder, [doc], ChunkingConfig(chunk_tokens=24, overlap=0))
    big = chunk_documents(tiny_encoder, [doc], ChunkingConfig(overlap=0))
    assert len(small) > len(big)
    assert max(tiny_encoder.token_lengths([c.encoded for c in small], prompt="passage")) <= 24
    plain = chunk_documents(tiny_encoder, [doc], ChunkingConfig(title_in_chunk=False))
    assert all(c.encoded == c.text for c in plain)
    with pytest.raises(ValueError, match="max_length"):
        chunk_documents(tiny_encoder, [doc], ChunkingConfig(chunk_tokens=10_000))


@pytest.mark.slow
def test_real_model_with_prompt_prefix_never_truncates(minilm):
    docs = [Document(str(i), LONG_EN[i * 7 :], title="Some title") for i in range(5)]
    chunks = chunk_documents(minilm, docs, ChunkingConfig())
    assert max(minilm.token_lengths([c.encoded for c in chunks], prompt="passage")) \
        <= minilm.max_length
