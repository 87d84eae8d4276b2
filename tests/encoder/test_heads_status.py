"""`heads_status`: whether an encoder's pretraining heads are ready, and if not which case it is
(`HeadsState`) and the sentence that says how to train them — a structured answer the app
branches on, never an exception's text. Bundled models are stood in for by the tiny BERT under a
bundled name (no bundled model is loaded)."""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest

from encoder import HeadsState, NoHeadError, heads_status, load_encoder
from encoder.fill_mask import get_heads
from encoder.heads import HEADS_META, bundled_heads_dir, new_heads, save_heads


@dataclass(eq=False)
class StandIn:
    """What `heads_status` reads of an encoder, for a bundled name on the tiny model's weights."""

    name: str
    path: str
    transformer: object
    fingerprint: str


@pytest.fixture
def home(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("BERTSCOPE_HOME", str(tmp_path / "home"))
    return tmp_path / "home"


@pytest.fixture
def bundled(tiny_encoder, tiny_model_dir, home) -> StandIn:
    return StandIn("minilm", str(tiny_model_dir), tiny_encoder.transformer, "weights-now")


def test_a_folder_without_heads_is_missing_and_says_how_to_train(tiny_encoder):
    status = heads_status(tiny_encoder)
    assert status.state is HeadsState.MISSING
    assert not status.ready and not status.trainable and not status.bundled
    assert "python -m training mlm" in status.reason
    with pytest.raises(NoHeadError, match="python -m training mlm"):
        get_heads(tiny_encoder)


def test_saved_heads_are_ready(tiny_model_dir, tmp_path):
    folder = tmp_path / "headed"
    shutil.copytree(tiny_model_dir, folder)
    save_heads(folder, new_heads(load_encoder(folder).transformer), {"mlm": True, "nsp": True})
    enc = load_encoder(folder)
    status = heads_status(enc)
    assert status.ready and status.reason == "" and status.folder == folder
    assert heads_status(enc).ready  # loaded once, then kept
    assert get_heads(enc).nsp


def test_a_bundled_model_without_cached_heads_can_be_trained_here(bundled, home):
    status = heads_status(bundled)
    assert status.state is HeadsState.NOT_TRAINED
    assert status.bundled and status.trainable
    assert status.folder == bundled_heads_dir("minilm") and status.folder.is_relative_to(home)
    assert "mlm-heads minilm" in status.reason


def test_heads_for_other_weights_of_a_bundled_model_are_retrainable(bundled):
    save_heads(bundled_heads_dir("minilm"), new_heads(bundled.transformer),
               {"mlm": True, "nsp": True, "fingerprint": "weights-before"})
    status = heads_status(bundled)
    assert status.state is HeadsState.OTHER_VERSION and status.trainable
    assert "another version of minilm" in status.reason
    bundled.fingerprint = "weights-before"
    assert heads_status(StandIn(**vars(bundled))).ready  # the weights they were made for


def test_unreadable_heads_are_a_state_and_not_trainable(tiny_model_dir, tmp_path):
    folder = tmp_path / "future"
    shutil.copytree(tiny_model_dir, folder)
    save_heads(folder, new_heads(load_encoder(folder).transformer), {"mlm": True})
    meta = json.loads((folder / HEADS_META).read_text())
    (folder / HEADS_META).write_text(json.dumps({**meta, "format": 99}))
    enc = load_encoder(folder)
    status = heads_status(enc)  # answers, does not raise
    assert status.state is HeadsState.UNREADABLE and not status.trainable
    assert "unknown heads format" in status.reason
    with pytest.raises(ValueError, match="unknown heads format"):
        get_heads(enc)
