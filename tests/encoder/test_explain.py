"""`Encoder.explain`: integrated Jacobians keep their completeness promise, the error shrinks
with `steps`, words merge subwords and Chinese, occlusion is what it says, bad input fails."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import torch

from encoder import ExplainError, load_encoder
from encoder.explain.occlusion import without

A = "A man is playing a guitar."
B = "Someone plays unbelievably loud music."


def torch_cosine(enc, a: str, b: str, prompt_a: str | None = None,
                 prompt_b: str | None = None) -> float:
    """The cosine on the torch fp32 model, whichever backend `enc` encodes with."""
    fa, fb = (enc.model.encode([t], prompt=enc.prompt_prefix(p) or None,
                               normalize_embeddings=True)[0]
              for t, p in ((a, prompt_a), (b, prompt_b)))
    return float(fa @ fb)


@pytest.fixture(scope="module")
def explained(tiny_encoder):
    return {steps: tiny_encoder.explain(A, B, steps=steps) for steps in (1, 2, 4, 16)}


def test_attributions_sum_to_the_promised_target(explained, tiny_encoder):
    e = explained[16]
    assert e.score == pytest.approx(torch_cosine(tiny_encoder, A, B), abs=1e-5)
    fa, fb = tiny_encoder.encode([A])[0], tiny_encoder.encode([B])[0]
    assert e.backend == tiny_encoder.backend
    assert e.backend_score == pytest.approx(float(fa @ fb), abs=1e-5)  # what encode() gives
    assert abs(e.error) <= 1e-4 * abs(e.target) + 1e-6
    assert e.token_matrix.sum() == pytest.approx(e.target, rel=1e-4, abs=1e-6)
    # words only regroup tokens: nothing is lost or added
    assert e.word_matrix.sum() == pytest.approx(e.token_matrix.sum(), rel=1e-6, abs=1e-9)
    assert np.allclose(e.word_scores_a, e.word_matrix.sum(1))
    assert np.allclose(e.word_scores_b, e.word_matrix.sum(0))


def test_error_shrinks_as_steps_grow(explained):
    errors = [abs(explained[s].error) for s in (1, 2, 4)]
    assert errors[0] > errors[1] > errors[2]
    assert abs(explained[16].error) <= errors[2] + 1e-7


def test_specials_get_nothing_and_words_merge_subwords(explained):
    e = explained[16]
    assert e.tokens_a[0] == "[CLS]" and e.tokens_a[-1] == "[SEP]"
    assert np.all(e.token_matrix[0] == 0) and np.all(e.token_matrix[:, -1] == 0)
    assert e.word_strings_a == ["A", "man", "is", "playing", "a", "guitar", "."]
    (word,) = [g for g in e.words_b if g.word == "unbelievably"]
    assert len(word.tokens) > 1  # WordPiece splits it; the explanation shows one word
    assert e.text_b[word.start:word.end] == "unbelievably"
    assert e.word_matrix.shape == (len(e.words_a), len(e.words_b))


@pytest.mark.slow
def test_an_export_backend_reports_both_cosines(tiny_model_dir):
    """int8 vectors score a hit; gradients need the float model: the explanation gives both."""
    enc = load_encoder(tiny_model_dir, backend="openvino-int8")  # explicit: on any CPU
    e = enc.explain(A, B, steps=2)
    v, w = enc.encode([A])[0], enc.encode([B])[0]
    assert (e.backend, e.backend_score) == ("openvino-int8", pytest.approx(float(v @ w),
                                                                           abs=1e-6))
    assert e.score == pytest.approx(torch_cosine(enc, A, B), abs=1e-5)
    assert e.score_gap == pytest.approx(e.backend_score - e.score)
    assert abs(e.score_gap) >= 5e-5  # int8 moves the cosine visibly: the note says so
    assert f"{e.backend_score:.4f}" in e.score_note() and f"{e.score:.4f}" in e.score_note()
    same = dataclasses.replace(e, backend="onnx", backend_score=e.score + 1e-6)
    assert same.score_note() == ""  # alike at four decimals: nothing to say
    on_torch = load_encoder(tiny_model_dir, backend="torch").explain(A, B, steps=2)
    assert on_torch.backend_score == on_torch.score and on_torch.score_note() == ""


def test_chinese_words_come_from_jieba(tiny_encoder):
    e = tiny_encoder.explain("苹果发布了新手机", "我吃了一个苹果", steps=2)
    assert e.word_strings_a == ["苹果", "发布", "了", "新手机"]
    assert "苹果" in e.word_strings_b
    assert e.word_matrix.shape == (4, len(e.words_b))


def test_prompt_prefix_is_read_but_not_attributed(tiny_model_dir):
    enc = load_encoder(tiny_model_dir, backend="torch")  # the prompts are set on the torch model
    enc.model.prompts = {"query": "query: ", "passage": "passage: "}
    e = enc.explain("cats purr", "a cat purrs loudly", steps=8, prompt_a="query",
                    prompt_b="passage")
    assert e.word_strings_a == ["cats", "purr"]  # no "query", no ":"
    fa = enc.encode(["cats purr"], prompt="query")[0]
    fb = enc.encode(["a cat purrs loudly"], prompt="passage")[0]
    assert e.score == pytest.approx(float(fa @ fb), abs=1e-5)
    prefix_rows = [i for i, t in enumerate(e.tokens_a[:4]) if t in ("query", ":")]
    assert prefix_rows and np.all(e.token_matrix[prefix_rows] == 0)
    assert abs(e.error) <= 1e-3 * abs(e.target) + 1e-6


def test_occlusion_scores_are_cosine_drops(tiny_encoder):
    e = tiny_encoder.explain(A, B, method="occlusion", steps=0)  # steps: none taken, none checked
    drop = e.score - torch_cosine(tiny_encoder, without(A, [(2, 5)]), B)  # "man"
    assert e.word_strings_a[1] == "man"
    assert e.word_scores_a[1] == pytest.approx(drop, abs=1e-5)
    assert e.token_matrix is None and np.isnan(e.error) and e.steps == 0
    assert e.word_matrix.shape == (len(e.words_a), len(e.words_b))


def test_without_deletes_spans_and_collapses_spaces():
    assert without("the cat sat down", [(4, 7)]) == "the sat down"
    assert without("the cat sat", [(8, 11), (0, 3)]) == "cat"
    assert without("cat", [(0, 3)]) == ""


@pytest.mark.parametrize(("a", "b", "error", "match"), [
    ("", "x", ValueError, "empty"),
    ("x", "   ", ValueError, "empty"),
    (None, "x", TypeError, "None"),
    ("x " * 200, "y", ExplainError, "shorter"),
])
def test_bad_texts_fail_clearly(tiny_encoder, a, b, error, match):
    with pytest.raises(error, match=match):
        tiny_encoder.explain(a, b)


def test_bad_method_and_steps_list_the_valid(tiny_encoder):
    with pytest.raises(ValueError, match="integrated-jacobians, occlusion"):
        tiny_encoder.explain(A, B, method="attention")
    with pytest.raises(ValueError, match="positive integer"):
        tiny_encoder.explain(A, B, steps=0)


def test_models_without_gradients_are_refused(tiny_model_dir):
    enc = load_encoder(tiny_model_dir)
    enc.model.backend = "onnx"
    with pytest.raises(ExplainError, match="torch model"):
        enc.explain(A, B)
    quantised = load_encoder(tiny_model_dir)
    torch.ao.quantization.quantize_dynamic(quantised.model, {torch.nn.Linear}, inplace=True)
    with pytest.raises(ExplainError, match="quantised"):
        quantised.explain(A, B)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["minilm", "e5"])
def test_real_models_keep_the_promise(name, request):
    enc = request.getfixturevalue(name)
    e = enc.explain("How do vaccines work?", "Vaccines train the immune system.", steps=16,
                    prompt_a="query", prompt_b="passage")
    v = enc.encode(["How do vaccines work?"], prompt="query")[0]
    w = enc.encode(["Vaccines train the immune system."], prompt="passage")[0]
    assert e.score == pytest.approx(torch_cosine(enc, "How do vaccines work?",
                                                 "Vaccines train the immune system.",
                                                 "query", "passage"), abs=1e-4)
    assert e.backend_score == pytest.approx(float(v @ w), abs=1e-4)  # whichever backend
    assert e.relative_error < 0.05
    assert e.word_strings_b[0] == "Vaccines"


def test_progress_counts_the_work_and_can_cancel_it(tiny_encoder):
    from encoder.explain import work_units

    seen = []
    e = tiny_encoder.explain(A, B, steps=4, progress=lambda done, total: seen.append((done, total)))
    total = work_units(tiny_encoder, A, B, steps=4)
    assert seen[0] == (0, total) and seen[-1] == (total, total)
    assert all(a[0] <= b[0] for a, b in zip(seen, seen[1:], strict=False))
    assert e.relative_error < 0.1

    class Cancelled(Exception):
        pass

    def cancel(done, total):
        if done:
            raise Cancelled

    with pytest.raises(Cancelled):
        tiny_encoder.explain(A, B, steps=4, progress=cancel)


def test_strongest_words_of_b_come_in_text_order(explained):
    e = explained[16]
    top = e.strongest_b(2)
    assert top == sorted(top) and len(top) == 2
    weakest = min(abs(e.word_scores_b[i]) for i in top)
    others = [abs(s) for i, s in enumerate(e.word_scores_b) if i not in top]
    assert all(o <= weakest for o in others)
    assert e.strongest_b(100) == list(range(len(e.words_b)))
