"""`ensure_bundled_heads`, what `python -m training mlm-heads` (the Pretraining page's job) runs:
cached heads are kept, heads made for other weights are trained again, a stopped attempt is
resumed only when its settings match (read from run.json, not from an error's text). The
training itself is stood in for: these tests check what is trained, not how."""

from __future__ import annotations

import pytest

import training.mlm.bundled as bundled
from common.atomic import write_json_atomic
from encoder.heads import HEADS_FILE, HEADS_FORMAT, HEADS_META, bundled_heads_dir
from training.run_folder import RUN_FILE, RUN_FORMAT


@pytest.fixture
def trained(tmp_path, monkeypatch) -> list[dict]:
    """An empty $BERTSCOPE_HOME, a stub recipe for minilm, and a stand-in `pretrain_documents`
    that records each call and writes heads for the weights "now"."""
    monkeypatch.setenv("BERTSCOPE_HOME", str(tmp_path / "home"))
    monkeypatch.setitem(bundled.RECIPES, "minilm",
                        bundled.HeadRecipe((lambda: "docs",), "stub text", steps=3))
    calls: list[dict] = []

    def pretrain(config, sources, held, *, resume, save_model, heads_meta, callbacks=()):
        folder = bundled_heads_dir("minilm")
        calls.append({"resume": resume, "left": sorted(p.name for p in folder.glob("*")),
                      "steps": config.max_steps, "sources": sources})
        write_heads(folder, "now")

    monkeypatch.setattr(bundled, "pretrain_documents", pretrain)
    return calls


def write_heads(folder, fingerprint: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / HEADS_FILE).write_bytes(b"stand-in")
    write_json_atomic(folder / HEADS_META, {"format": HEADS_FORMAT, "fingerprint": fingerprint})


def stopped_attempt(identity: dict) -> None:
    folder = bundled_heads_dir("minilm")
    folder.mkdir(parents=True)
    write_json_atomic(folder / RUN_FILE, {"format": RUN_FORMAT, "identity": identity,
                                          "finished": False})
    (folder / "checkpoint-marker").write_text("kept while resumable")


def recipe_identity() -> dict:
    recipe = bundled.RECIPES["minilm"]
    return bundled.MlmConfig(
        model="minilm", corpus=(), out="x", head_only=True, nsp=True, max_steps=recipe.steps,
        batch_size=recipe.batch_size, max_length=recipe.max_length, max_eval=256,
        save_steps=50, logging_steps=10).identity()


def test_trains_once_then_keeps_the_cached_heads(trained):
    folder = bundled.ensure_bundled_heads("minilm", fingerprint="now")
    assert folder == bundled_heads_dir("minilm") and (folder / HEADS_META).is_file()
    assert trained == [{"resume": False, "left": [], "steps": 3, "sources": ["docs"]}]
    bundled.ensure_bundled_heads("minilm", fingerprint="now")
    bundled.ensure_bundled_heads("minilm")  # no fingerprint: whatever is cached
    assert len(trained) == 1


def test_heads_for_other_weights_are_trained_again(trained):
    write_heads(bundled_heads_dir("minilm"), "before")
    bundled.ensure_bundled_heads("minilm")
    assert trained == []  # asked without the model's fingerprint: kept
    bundled.ensure_bundled_heads("minilm", fingerprint="now")
    assert trained[0]["resume"] is False and trained[0]["left"] == []  # the stale ones cleared


def test_a_stopped_attempt_with_the_same_settings_resumes(trained):
    stopped_attempt(recipe_identity())
    bundled.ensure_bundled_heads("minilm", fingerprint="now")
    assert trained[0]["resume"] is True
    assert trained[0]["left"] == ["checkpoint-marker", RUN_FILE]


def test_a_stopped_attempt_with_other_settings_starts_again(trained):
    stopped_attempt({**recipe_identity(), "max_steps": 999})
    bundled.ensure_bundled_heads("minilm", fingerprint="now")
    assert trained[0]["resume"] is False and trained[0]["left"] == []


def test_an_unknown_model_is_refused(trained):
    with pytest.raises(bundled.TrainingError, match="no head recipe"):
        bundled.ensure_bundled_heads("bert-base-uncased")
