"""`--backend` on `python -m indexer build | search | add | rebuild`: parsed against the encoder's
names, passed to the library, and a query backend beyond the fidelity gate refused in one line.
Fast backends are stood in for by the tiny torch encoder labelled with another backend (see
test_backend.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from backend_stub import BAD, GOOD, labelled

import encoder
from indexer import build_index
from indexer.cli_args import BACKEND_CHOICES

COMMANDS = {
    "build": ["build", "--corpus", "{corpus}", "--out", "{tmp}/o", "--model", "{model}"],
    "search": ["search", "{index}", "cats"],
    "add": ["add", "{index}", "--corpus", "{corpus}"],
    "rebuild": ["rebuild", "{index}", "--model", "{model}", "--out", "{tmp}/r"],
}


@pytest.fixture
def corpus(tmp_path, docs) -> Path:
    path = tmp_path / "corpus.jsonl"
    path.write_text("".join(json.dumps({"id": f"n{d['id']}", "title": d["title"],
                                        "text": d["text"]}) + "\n" for d in docs[:4]),
                    encoding="utf-8")
    return path


@pytest.fixture
def loads(monkeypatch, tiny_torch):
    """`encoder.load_encoder` answering with the tiny encoder labelled with the backend asked for
    (`auto`: onnx; onnx-int8 fails the fidelity gate); records the backends asked for."""
    calls: list[str] = []
    fidelity = {"torch": 1.0, "onnx": GOOD, "onnx-int8": BAD, "openvino": GOOD,
                "openvino-int8": GOOD}

    def load(name, device="cpu", backend="auto"):
        calls.append(backend)
        runs = "onnx" if backend == "auto" else backend
        return labelled(tiny_torch, runs, fidelity[runs])

    monkeypatch.setattr(encoder, "load_encoder", load)
    return calls


def _argv(command: str, **places) -> list[str]:
    return [a.format(**{k: str(v) for k, v in places.items()}) for a in COMMANDS[command]]


def _backend(index: Path) -> tuple[str, float | None]:
    entry = json.loads((index / "manifest.json").read_text(encoding="utf-8"))["encoder"]
    return entry["backend"], entry["fidelity"]


def test_the_cli_offers_the_encoders_backends():
    assert BACKEND_CHOICES == (encoder.AUTO, *encoder.BACKENDS)


@pytest.mark.parametrize("command", list(COMMANDS))
@pytest.mark.parametrize("bad", ["fast", "ONNX", "onnx_int8", ""])
def test_a_bad_backend_is_refused_by_argparse(run_cli, flat_index, corpus, tmp_path,
                                              tiny_model_dir, command, bad):
    argv = _argv(command, index=flat_index, corpus=corpus, tmp=tmp_path, model=tiny_model_dir)
    done = run_cli("indexer", *argv, "--backend", bad)
    assert done.code == 2
    assert f"argument --backend: invalid choice: '{bad}'" in done.error
    assert "auto" in done.error and "openvino-int8" in done.error
    assert not (tmp_path / "o").exists() and not (tmp_path / "r").exists()


def test_build_runs_the_backend_asked_for_and_says_which(run_cli, corpus, tmp_path,
                                                         tiny_model_dir, loads):
    done = run_cli("indexer", "build", "--corpus", corpus, "--out", tmp_path / "a", "--model",
                   tiny_model_dir, "--index", "flat")
    assert done.code == 0 and loads == ["auto"]
    assert _backend(tmp_path / "a") == ("onnx", GOOD)
    assert f"on onnx (fidelity {GOOD:.4f})" in done.out
    done = run_cli("indexer", "build", "--corpus", corpus, "--out", tmp_path / "b", "--model",
                   tiny_model_dir, "--index", "flat", "--backend", "openvino-int8")
    assert done.code == 0 and loads[-1] == "openvino-int8"
    assert _backend(tmp_path / "b") == ("openvino-int8", GOOD)


def test_search_uses_the_index_backend_and_refuses_one_beyond_the_gate(
        run_cli, tmp_path, tiny_torch, docs, loads):
    index = tmp_path / "idx"
    build_index(docs[:12], index, model=labelled(tiny_torch, "openvino", GOOD), preset="flat")
    assert run_cli("indexer", "search", index, "cats purr").code == 0
    assert loads == ["openvino"]
    assert run_cli("indexer", "search", index, "cats purr", "--backend", "torch").code == 0
    refused = run_cli("indexer", "search", index, "cats purr", "--backend", "onnx-int8")
    assert refused.code == 1 and refused.out == ""
    assert "'onnx-int8'" in refused.error and "--backend openvino" in refused.error


def test_add_encodes_with_a_backend_the_index_accepts(run_cli, tmp_path, tiny_torch, docs,
                                                      corpus, loads):
    index = tmp_path / "idx"
    build_index(docs[:12], index, model=labelled(tiny_torch, "torch", 1.0), preset="flat")
    refused = run_cli("indexer", "add", index, "--corpus", corpus, "--backend", "onnx-int8")
    assert refused.code == 1 and "--backend torch" in refused.error
    info = json.loads(run_cli("indexer", "info", index).out)
    assert info["documents"] == 12 and info["backend"] == "torch"  # nothing was added
    added = run_cli("indexer", "add", index, "--corpus", corpus)
    assert added.code == 0 and loads[-1] == "torch"  # the index's own backend
    assert json.loads(run_cli("indexer", "info", index).out)["documents"] == 16


def test_rebuild_keeps_the_backend_unless_told(run_cli, tmp_path, tiny_torch, docs,
                                               tiny_model_dir, loads):
    source = tmp_path / "src"
    build_index(docs[:12], source, model=labelled(tiny_torch, "openvino-int8", GOOD),
                preset="flat")
    kept = run_cli("indexer", "rebuild", source, "--model", tiny_model_dir, "--out",
                   tmp_path / "kept")
    assert kept.code == 0 and loads == ["openvino-int8"]
    assert _backend(tmp_path / "kept") == ("openvino-int8", GOOD)
    assert "backend openvino-int8 -> openvino-int8" in kept.out
    told = run_cli("indexer", "rebuild", source, "--model", tiny_model_dir, "--out",
                   tmp_path / "told", "--backend", "torch")
    assert told.code == 0 and loads[-1] == "torch"
    assert _backend(tmp_path / "told") == ("torch", 1.0)
    assert "backend openvino-int8 -> torch" in told.out
