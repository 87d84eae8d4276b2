"""Pure helpers behind the pages: charts from plain arrays, escaping, path confinement, uploads."""

from __future__ import annotations

import os

import numpy as np
import pytest
from appkit.confine import confine_path
from appkit.discovery import find_indexes, find_trained_models
from appkit.filters import build_filter, describe_filter
from appkit.render import highlighted_html
from appkit.uploads import forget_upload, index_name, safe_name, save_upload, upload_folder
from charts.attention import attention_grid, attention_heatmap, cls_profile, head_view
from charts.masks import causal_mask, right_context_share
from charts.trajectory import similarity_by_layer


def softmax_rows(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def test_heatmap_keeps_repeated_tokens_apart():
    labels = ["[CLS]", "the", "cat", "the", "[SEP]"]
    fig = attention_heatmap(np.eye(5), labels, "t")
    assert list(fig.layout.xaxis.ticktext) == labels and list(fig.layout.xaxis.tickvals) == [
        0, 1, 2, 3, 4]


def test_grid_has_one_heatmap_per_layer_and_head():
    attn = softmax_rows(np.random.default_rng(0).normal(size=(3, 2, 4, 4)))
    fig = attention_grid(attn)
    assert len(fig.data) == 6
    np.testing.assert_allclose(fig.data[3].z, attn[1, 1])  # row-major: layer 2, head 2


def test_head_view_draws_only_weights_above_the_threshold():
    m = np.array([[0.9, 0.1, 0.0], [0.02, 0.5, 0.48], [0.3, 0.3, 0.4]])
    fig = head_view(m, ["a", "b", "c"], "t", min_weight=0.2)
    lines = [t for t in fig.data if t.mode == "lines"]
    segments = sum(len(t.x) // 3 for t in lines)
    assert segments == int((m >= 0.2).sum())  # 0.9, 0.5, 0.48, 0.3, 0.3, 0.4


def test_cls_profile_is_row_zero_averaged_over_heads():
    attn = softmax_rows(np.random.default_rng(1).normal(size=(2, 3, 5, 5)))
    np.testing.assert_allclose(cls_profile(attn), attn[:, :, 0, :].mean(1))
    np.testing.assert_allclose(cls_profile(attn).sum(-1), 1.0, rtol=1e-6)


def test_right_context_share_is_zero_under_a_causal_mask_and_known_when_uniform():
    t = 5
    causal = causal_mask(t) / causal_mask(t).sum(-1, keepdims=True)
    assert right_context_share(causal[None, None]) == pytest.approx([0.0])
    uniform = np.full((1, 1, t, t), 1 / t)
    expected = np.mean([(t - 1 - i) / t for i in range(t - 1)])
    assert right_context_share(uniform) == pytest.approx([expected])


def test_similarity_chart_has_every_pair_and_the_baseline():
    cosine = np.ones((4, 3, 3))
    fig = similarity_by_layer(cosine, np.full(4, 0.3), ["a", "b", "c"], "w")
    assert len(fig.data) == 3 + 1 and "baseline" in fig.data[-1].name


def test_document_text_is_escaped_and_the_span_marked():
    text = "<script>alert(1)</script> **bold** # title"
    start = text.index("**bold**")
    out = highlighted_html(text, (start, start + 8))
    assert "<script>" not in out and "&lt;script&gt;" in out
    assert ">**bold**</mark>" in out and out.count("<mark") == 1
    assert "<mark" not in highlighted_html(text, (5, 500))  # a bad span marks nothing


def test_confine_path_refuses_dotdot_absolute_and_symlink_escapes(tmp_path):
    root = tmp_path / "data"
    (root / "sub").mkdir(parents=True)
    (root / "sub" / "a.jsonl").write_text("{}")
    (tmp_path / "secret.txt").write_text("x")
    os.symlink(tmp_path / "secret.txt", root / "link.txt")
    assert confine_path(root, "sub/a.jsonl") == (root / "sub" / "a.jsonl").resolve()
    assert confine_path(root, str(root / "sub")) == (root / "sub").resolve()
    for bad in ("../secret.txt", "sub/../../secret.txt", str(tmp_path / "secret.txt"),
                "link.txt", "/etc/passwd"):
        with pytest.raises(ValueError, match="outside the data folder"):
            confine_path(root, bad)
    for missing in ("", "nope.jsonl"):
        with pytest.raises(ValueError):
            confine_path(root, missing)


def test_uploads_have_a_limit_a_safe_name_and_their_own_folder(tmp_path):
    assert safe_name("../../etc/passwd") == "passwd"
    assert safe_name("..\\x\\évil name.jsonl") == "_vil_name.jsonl"
    folder = tmp_path / "up"
    long = save_upload("n" * 300 + ".jsonl", b'{"text": "hi"}\n', 1, folder)  # "File name too long"
    assert long.name == "n" * 114 + ".jsonl" and long.read_bytes() == b'{"text": "hi"}\n'
    for bad, said in ((("big.jsonl", b"x" * (2 * 1024 * 1024)), "upload limit is 1 MB"),
                      (("a.exe", b"x"), "unsupported"), (("e.jsonl", b""), "empty")):
        with pytest.raises(ValueError, match=said):
            save_upload(*bad, 1, folder)
    assert list(folder.iterdir()) == [long]  # a refused file writes nothing
    path = save_upload("../docs.jsonl", b'{"text": "hi"}\n', 1, folder)
    assert path == folder / "docs.jsonl" and list(folder.iterdir()) == [path]  # replaced
    assert save_upload("note.txt", b"hi", 1, folder) == folder  # the indexer reads folders
    with pytest.raises(ValueError):
        index_name("../escape")
    assert index_name(" my-index_2 ") == "my-index_2"


def test_an_upload_is_kept_per_index_until_forgotten(tmp_path, monkeypatch):
    monkeypatch.setenv("BERTSCOPE_HOME", str(tmp_path / "home"))
    corpus = save_upload("docs.jsonl", b'{"text": "hi"}\n', 1, upload_folder("mine"))
    assert corpus.parent == tmp_path / "home" / "uploads" / "mine"
    forget_upload("other")  # nothing there: nothing happens
    assert corpus.exists()
    forget_upload("mine")
    assert not upload_folder("mine").exists()


def test_a_failed_build_says_why_in_the_commands_words(tmp_path):
    from types import SimpleNamespace as S

    from appkit.index_build import failure

    def job(log: str, message: str = "exit status 1"):
        return S(log_tail=lambda n: log, status=S(message=message))

    assert failure(job("reading\nerror: no usable documents in x.jsonl\n")) == \
        "No usable documents in x.jsonl"
    assert failure(job("error: up.jsonl is empty\n")) == "up.jsonl is empty"  # a name kept
    assert failure(job("killed\n")) == "exit status 1"


def test_filters_become_indexer_filters():
    fields = {"category": "str", "year": "int"}
    assert build_filter(fields, {"category": "", "year": " "}) is None
    assert build_filter(fields, {"category": "tech"}) == {"category": "tech"}
    assert build_filter(fields, {"category": "tech, sport", "year": "2004"}) == {
        "category": {"in": ["tech", "sport"]}, "year": 2004}
    with pytest.raises(ValueError, match="whole numbers"):
        build_filter(fields, {"year": "soon"})
    assert build_filter(fields, {"category": [], "year": ""}) is None  # nothing picked
    assert build_filter(fields, {"category": ["tech"]}) == {"category": "tech"}
    assert build_filter(fields, {"category": ["tech", "sport"]}) == {
        "category": {"in": ["tech", "sport"]}}


def test_discovery_finds_indexes_and_model_folders(tmp_path):
    (tmp_path / "idx" / "a").mkdir(parents=True)
    (tmp_path / "idx" / "a" / "manifest.json").write_text("{}")
    (tmp_path / "idx" / "empty").mkdir()
    assert find_indexes(tmp_path / "idx") == [tmp_path / "idx" / "a"]
    run = tmp_path / "runs" / "r1"
    (run / "1_Pooling").mkdir(parents=True)
    (run / "modules.json").write_text("[]")
    (run / "1_Pooling" / "modules.json").write_text("[]")  # inside a model: not another model
    assert find_trained_models(tmp_path / "runs") == [run]
    assert find_trained_models(tmp_path / "missing") == []
    # a run still training has checkpoints that look like models, and no model of its own yet
    checkpoint = tmp_path / "runs" / "r2" / "checkpoints" / "stage-0" / "checkpoint-20"
    checkpoint.mkdir(parents=True)
    (checkpoint / "modules.json").write_text("[]")
    assert find_trained_models(tmp_path / "runs") == [run]


def test_tag_like_tokens_stay_text_in_figures():
    """XLM-R's `<s>` is a strike-through tag to plotly: it swallowed the label and the layout."""
    fig = attention_heatmap(np.eye(3), ["<s>", "苹果", "</s>"], "t")
    ticks = list(fig.layout.xaxis.ticktext)
    assert ticks[1] == "苹果"
    assert all("<s>" not in t and "</s>" not in t for t in ticks)
    assert [t.replace("\u200b", "") for t in ticks] == ["<s>", "苹果", "</s>"]
    legend = similarity_by_layer(np.ones((2, 2, 2)), np.zeros(2), ["<b>x</b>", "y"], "<i>w</i>")
    assert "<b>" not in legend.data[0].name and "<i>" not in legend.layout.title.text


def test_a_message_that_starts_with_a_file_name_keeps_it():
    from appkit.guard import sentence

    assert sentence(ValueError("up.jsonl is empty.")) == "up.jsonl is empty."
    assert sentence(ValueError("no usable documents")) == "No usable documents"


def test_confine_path_names_a_missing_or_odd_data_folder(tmp_path):
    for root, what in ((tmp_path / "none", "does not exist"), (tmp_path / "f", "is not a folder")):
        if what == "is not a folder":
            root.write_text("x")
        with pytest.raises(ValueError, match=f"The data folder {root} {what}"):
            confine_path(root, "a.jsonl")


def test_filter_caption_is_words_not_a_dict():
    assert describe_filter(None) == ""
    assert describe_filter({"category": "tech"}) == "category is tech"
    assert describe_filter({"category": {"in": ["sport", "tech", "food"]}, "year": 2004,
                            "draft": False}) == (
        "category is sport, tech or food, year is 2004, and draft is false")


def test_pca_labels_of_points_that_meet_sit_on_different_sides():
    import numpy as np
    from charts.trajectory import pca_figure

    points = np.zeros((4, 3, 2))  # four contexts at one place: labels must not stack
    fig = pca_figure(points, 1, ["a", "b", "c", "d"], "apple")
    sides = [t.textposition[0] for t in fig.data if t.mode == "markers+text"]
    assert len(set(sides)) == 4
    by_sense = pca_figure(points, 1, ["a", "b", "c", "d"], "apple", senses=["x", "y", "x", "y"])
    marks = [t for t in by_sense.data if t.mode == "markers+text"]
    assert len({side for t in marks for side in t.textposition}) == 4


def test_pca_map_is_coloured_by_sense_with_a_legend_of_senses_only():
    """Issue 42: the map drew contexts, one colour each, so a verdict of "separates" sat beside
    one blob; and 22 contexts' legend squashed the plot. By sense: one colour and one marker
    shape per sense, each point labelled with its context's number, a legend of the senses."""
    import numpy as np
    from charts.trajectory import pca_figure

    senses = ["fruit"] * 13 + ["company"] * 9
    points = np.random.default_rng(0).normal(size=(22, 3, 2))
    contexts = [f"context {i}" for i in range(22)]
    fig = pca_figure(points, 2, contexts, "apple", "layer 2", senses)
    marks = [t for t in fig.data if t.mode == "markers+text"]
    assert [(t.name, t.showlegend) for t in marks] == [("fruit (13)", True), ("company (9)", True)]
    assert [t.text for t in marks][1] == tuple(f"#{i}" for i in range(14, 23))
    assert marks[0].marker.color != marks[1].marker.color
    assert marks[0].marker.symbol != marks[1].marker.symbol
    paths = [t for t in fig.data if t.mode == "lines"]
    assert {t.line.color for t in paths[:13]} == {marks[0].marker.color}  # paths by sense too
    assert not any(t.showlegend for t in paths)
    plain = pca_figure(points, 2, contexts, "apple")
    assert not any(t.showlegend for t in plain.data)  # 22 contexts: no legend to squash the plot
