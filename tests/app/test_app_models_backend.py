"""The Models page shows the backend each loaded model encodes with, its measured fidelity and
why `auto` fell back, and its caption says what stays on torch (attention, explanations). The
fast backend is stood in for by the tiny torch encoder labelled as one."""

from __future__ import annotations

import pytest
import streamlit as st
from apptest_helpers import assert_clean, texts
from backend_stub import labelled

import encoder

NOTE = "openvino-int8 skipped: its fidelity 0.9710 is below the 0.99 gate; running onnx-int8"


@pytest.fixture
def fast_loads(monkeypatch, tiny_torch):
    """`load_encoder` answering with the tiny encoder labelled onnx-int8 (fidelity 0.9973, with a
    fallback note); the app's caches emptied before and after."""
    import appkit.resources as resources

    calls: list[str] = []

    def load(name, device="cpu", backend="auto"):
        calls.append(backend)
        return labelled(tiny_torch, "onnx-int8", 0.9973, NOTE)

    monkeypatch.setattr(encoder, "load_encoder", load)
    st.cache_resource.clear()
    resources._loaded.clear()
    yield calls
    st.cache_resource.clear()
    resources._loaded.clear()


def test_models_page_shows_backend_fidelity_and_note(page, fast_loads):
    at = page("models")
    assert_clean(at)
    bundled = at.dataframe[0].value.set_index("name")
    assert set(bundled["backend"]) == {"not loaded yet"}  # nothing loaded by this server yet
    caption = " ".join(texts(at.caption))
    assert "explanations" in caption and "torch" in caption and "0.99" in caption

    at.selectbox[0].set_value("tiny-run").run()
    at.toggle[0].set_value(True).run()
    assert_clean(at)
    assert fast_loads == ["auto"]  # the app encodes with `auto`
    metrics = {m.label: m.value for m in at.metric}
    assert metrics == {"Backend": "onnx-int8", "Fidelity": "0.9973"}
    assert NOTE in texts(at.info)
    assert '"layers": 2' in at.json[-1].value  # the EncoderInfo, as before

    at.run()  # the tables now know the loaded model
    row = at.dataframe[1].value.set_index("folder").loc["tiny-run"]
    assert (row["backend"], row["fidelity"], row["note"]) == ("onnx-int8", "0.9973", NOTE)
