"""The Models page shows the backend each loaded model encodes with, its measured fidelity and
why `auto` fell back, and its caption says what stays on torch (attention, explanations); for a
model not loaded yet, what `auto` would pick from the exports on disk. The fast backend is stood
in for by the tiny torch encoder labelled as one, its export by a stand-in folder."""

from __future__ import annotations

import pytest
import streamlit as st
from apptest_helpers import assert_clean, texts
from backend_stub import GOOD, export_on_disk, labelled

import encoder
from encoder.backends import auto_order

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


@pytest.fixture
def home(tmp_path, monkeypatch):
    """An empty `$BERTSCOPE_HOME` (no exports, no remembered fingerprints); nothing loaded."""
    import appkit.resources as resources

    monkeypatch.setenv("BERTSCOPE_HOME", str(tmp_path / "home"))
    st.cache_data.clear()
    resources._loaded.clear()
    yield tmp_path / "home"
    st.cache_data.clear()


def test_models_page_shows_backend_fidelity_and_note(page, home, fast_loads):
    at = page("models")
    assert_clean(at)
    bundled = at.table[0].value.set_index("name")
    assert set(bundled["backend"]) == {"not exported yet"}  # nothing loaded or exported yet
    caption = " ".join(texts(at.caption))
    assert "explanations" in caption and "torch" in caption and "0.99" in caption

    at.selectbox[0].set_value("tiny-run").run()
    at.toggle[0].set_value(True).run()
    assert_clean(at)
    assert fast_loads == ["auto"]  # the app encodes with `auto`
    metrics = {m.label: m.value for m in at.metric}
    assert metrics == {"Backend": "onnx-int8", "Fidelity": "0.9973"}
    assert NOTE in texts(at.info)
    config = at.dataframe[-1].value.set_index("field")["value"]  # the EncoderInfo, as a table
    assert config["layers"] == "2" and not at.json

    at.run()  # the tables now know the loaded model
    row = at.table[1].value.set_index("folder").loc["tiny-run"]
    assert (row["backend"], row["fidelity"], row["note"]) == ("onnx-int8", "0.9973", NOTE)


def test_models_not_loaded_show_what_auto_would_pick_from_disk(page, home, runs_root):
    first = auto_order()[0]  # what auto tries first on this CPU
    export_on_disk(runs_root / "tiny-run", first, GOOD)
    at = page("models")
    assert_clean(at)
    runs = at.table[1].value.set_index("folder")
    assert (runs.loc["tiny-run", "backend"], runs.loc["tiny-run", "fidelity"]) == \
        (f"{first} (auto, not loaded yet)", f"{GOOD:.4f}")
    assert runs.loc["unfinished", "backend"] == "not exported yet"
    assert set(at.table[0].value["backend"]) == {"not exported yet"}
    import appkit.resources as resources

    assert not resources._loaded  # planning loaded no model
