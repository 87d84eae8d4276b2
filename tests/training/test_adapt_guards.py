"""Issue 52, class 6: adapt published garbage and followed the wrong index.
- `adapt --lr 1e9` saved a model that turns every text into NaN and exited 0: a fine-tune whose
  weights or outputs are not finite is never saved (`training.finite`), and an encoder whose
  vectors are not finite is refused before anything is indexed, on both stores
  (`encoder.BrokenModelError`).
- `--out` inside an index's own folder was accepted (a later `add` deleted the model).
- `--index indexes/NAME` from another directory exported the checkout's index, not the user's.
- the section headings the product's readers record were ignored."""

from __future__ import annotations

import shutil

import pytest
from test_adapt import documents


@pytest.fixture(scope="module")
def small_index(tmp_path_factory, tiny_encoder):
    from indexer import build_index

    out = tmp_path_factory.mktemp("guards") / "index"
    build_index(documents(60), out, model=tiny_encoder, preset="flat")
    return out


@pytest.fixture(scope="module")
def nan_model_dir(tmp_path_factory, tiny_model_dir):
    import torch
    from sentence_transformers import SentenceTransformer

    out = tmp_path_factory.mktemp("nan") / "nan-bert"
    shutil.copytree(tiny_model_dir, out)
    model = SentenceTransformer(str(out), device="cpu")
    with torch.no_grad():
        next(model.parameters()).fill_(float("nan"))
    model.save(str(out))
    return out


@pytest.mark.training
def test_adapt_at_a_diverging_rate_saves_nothing(run_cli, small_index, tmp_path, monkeypatch):
    monkeypatch.setenv("BERTSCOPE_HOME", str(tmp_path / "home"))
    run = tmp_path / "run"
    done = run_cli("training", "adapt", "--index", str(small_index), "--out", str(run),
                   "--lr", "1e9", "--max-length", "32", "--batch-size", "8", "--max-pairs",
                   "32", "--pairs", "title", "--no-progress")
    assert done.code != 0 and "training diverged" in done.error, done
    assert "lower --lr" in done.error
    assert not (run / "config.json").exists() and not (run / "adapt.json").exists()
    assert not list(run.glob("checkpoints/stage-*/final"))


@pytest.mark.parametrize("store", ["folder", "milvus"])
def test_a_model_with_nan_outputs_is_never_indexed(tmp_path, nan_model_dir, store):
    from encoder import BrokenModelError, load_encoder
    from indexer import build_index

    if store == "milvus":
        pytest.importorskip("milvus_lite")
        target = f"milvus://{tmp_path}/n.db?collection=nan"
    else:
        target = str(tmp_path / "idx")
    broken = load_encoder(nan_model_dir, backend="torch")
    with pytest.raises(BrokenModelError, match="not finite numbers"):
        broken.encode(["a text"])
    with pytest.raises(BrokenModelError, match="nothing was indexed"):
        build_index(documents(10), target, model=broken, preset="flat")
    from indexer import SemanticIndex

    with pytest.raises(FileNotFoundError):
        SemanticIndex.open(target, encoder=broken)


def test_out_inside_an_index_folder_is_refused(run_cli, small_index, tmp_path, monkeypatch):
    monkeypatch.setenv("BERTSCOPE_HOME", str(tmp_path / "home"))
    version = next(p for p in small_index.iterdir() if p.is_dir())
    for out in (version / "adapted", small_index, small_index / "models" / "mine"):
        done = run_cli("training", "adapt", "--index", str(small_index), "--out", str(out),
                       "--no-progress")
        assert done.code != 0 and f"is inside the index {small_index}" in done.error, done
        assert not (version / "adapted").exists()


def test_a_relative_index_is_the_caller_s(tmp_path, small_index, monkeypatch):
    from training.adapt_source import index_documents

    here = tmp_path / "elsewhere"
    (here / "indexes").mkdir(parents=True)
    shutil.copytree(small_index, here / "indexes" / "mine")
    monkeypatch.chdir(here)
    (tmp_path / "scratch").mkdir()
    source = index_documents("indexes/mine", tmp_path / "scratch")
    assert len(source.documents) == 60 and source.index == "indexes/mine"


def test_adapt_pairs_the_headings_the_readers_record(tmp_path, tiny_encoder):
    """A Markdown file's headings are in its layout (the text holds no '#'): the export carries
    it, and each heading pairs with its section's first passage."""
    from indexer import build_index
    from training.adapt_pairs import make_pairs
    from training.adapt_source import index_documents

    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "guide.md").write_text(
        "# Guide\n\n## Installing on Linux\n\nRun the installer with sudo and reboot the "
        "machine afterwards.\n\n## Removing the app\n\nDelete the folder and clear the cache "
        "in your home directory.\n")
    build_index(str(folder), tmp_path / "idx", model=tiny_encoder, preset="flat")
    (tmp_path / "scratch").mkdir()
    source = index_documents(tmp_path / "idx", tmp_path / "scratch")
    pairs = make_pairs(source.documents, ["heading"])
    assert sorted((p.anchor, p.positive) for p in pairs) == [
        ("Installing on Linux", "Run the installer with sudo and reboot the machine "
                                "afterwards."),
        ("Removing the app", "Delete the folder and clear the cache in your home directory.")]
