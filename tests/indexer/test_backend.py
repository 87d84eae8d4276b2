"""Indexes and encoding backends: the manifest records the backend that made the vectors and its
fidelity; an index loads its model on that backend, and refuses a query encoder whose vectors
may differ beyond the fidelity gate; `rebuild` keeps the backend. Fast backends are stood in for
by copies of the tiny torch encoder labelled with another backend and fidelity (the vectors are
torch's: what is tested is the bookkeeping, not the export)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from backend_stub import BAD, GOOD, labelled

import encoder
from encoder.errors import BackendError
from indexer import (
    BackendMismatchError,
    CorruptIndexError,
    EncoderMismatchError,
    SemanticIndex,
    build_index,
    rebuild_index,
)


@pytest.fixture
def loads(monkeypatch, tiny_torch):
    """`encoder.load_encoder` answering with labelled torch encoders; records the backends
    asked for. Each backend reports a fixed fidelity (`auto` runs onnx; onnx-int8 fails)."""
    real = {tiny_torch.path: tiny_torch}
    calls: list[str] = []
    fidelity = {"torch": 1.0, "onnx": GOOD, "onnx-int8": BAD, "openvino": GOOD,
                "openvino-int8": GOOD}

    def load(name, device="cpu", backend="auto"):
        calls.append(backend)
        key = str(Path(name).resolve())
        if key not in real:
            real[key] = encoder.loading.load_encoder(name, backend="torch")
        runs = "onnx" if backend == "auto" else encoder.check_backend(backend)
        if runs in load.broken:
            raise BackendError(f"{runs} cannot be made here: its package is not installed")
        return labelled(real[key], runs, fidelity[runs])

    monkeypatch.setattr(encoder, "load_encoder", load)
    load.calls, load.broken = calls, set()
    return load


def _built(tmp_path: Path, enc, docs, name: str = "idx") -> Path:
    out = tmp_path / name
    build_index(docs[:12], out, model=enc, preset="flat")
    return out


def _manifest(path: Path) -> dict:
    return json.loads((path / "manifest.json").read_text(encoding="utf-8"))


def test_the_manifest_records_the_backend_and_its_fidelity(tmp_path, tiny_torch, docs):
    plain = _built(tmp_path, tiny_torch, docs, "plain")
    entry = _manifest(plain)["encoder"]
    assert (entry["backend"], entry["fidelity"]) == ("torch", 1.0)
    fast = _built(tmp_path, labelled(tiny_torch, "openvino-int8", GOOD), docs, "fast")
    entry = _manifest(fast)["encoder"]
    assert (entry["backend"], entry["fidelity"]) == ("openvino-int8", GOOD)
    assert entry["fingerprint"] == tiny_torch.fingerprint  # the weights', for every backend
    st = SemanticIndex.open(fast).stats()
    assert (st.backend, st.fidelity) == ("openvino-int8", GOOD)
    assert SemanticIndex.open(fast).backend == "openvino-int8"


def test_a_real_fast_backend_is_recorded_and_reloaded(flat_index, tiny_encoder):
    """The tiny model on `auto` (a real export where this CPU has a faster backend)."""
    entry = _manifest(flat_index)["encoder"]
    assert (entry["backend"], entry["fidelity"]) == (tiny_encoder.backend, tiny_encoder.fidelity)
    assert entry["fingerprint"] == tiny_encoder.fingerprint
    index = SemanticIndex.open(flat_index)
    own = [h.doc_id for h in index.search("cats purr on the sofa", k=3)]
    assert index.encoder.backend == tiny_encoder.backend  # loaded on the index's backend
    on_torch = SemanticIndex.open(flat_index, backend="torch")  # auto's pick passed the gate
    assert [h.doc_id for h in on_torch.search("cats purr on the sofa", k=3)][:1] == own[:1]
    assert on_torch.encoder.backend == "torch"


def test_a_manifest_without_a_backend_reads_as_torch(flat_index, tiny_torch):
    manifest = _manifest(flat_index)
    for key in ("backend", "fidelity", "backend_note"):
        manifest["encoder"].pop(key, None)
    (flat_index / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    index = SemanticIndex.open(flat_index)
    assert index.backend == "torch"
    assert (index.stats().backend, index.stats().fidelity) == ("torch", 1.0)
    torch_enc = labelled(tiny_torch, "torch", 1.0)
    assert SemanticIndex.open(flat_index, encoder=torch_enc).search("cats purr", k=2)


@pytest.mark.parametrize("value", ["tensorrt", 3, None])
def test_a_damaged_backend_entry_is_a_corrupt_index(flat_index, value):
    manifest = _manifest(flat_index)
    manifest["encoder"]["backend"] = value
    (flat_index / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    with pytest.raises(CorruptIndexError, match="encoder.backend"):
        SemanticIndex.open(flat_index)


def test_the_index_loads_its_model_on_its_own_backend(tmp_path, tiny_torch, docs, loads):
    path = _built(tmp_path, labelled(tiny_torch, "openvino", GOOD), docs)
    index = SemanticIndex.open(path)
    assert loads.calls == []  # loaded on the first dense search, not on open
    assert index.search("cats purr", k=2)
    assert loads.calls == ["openvino"] and index.encoder.backend == "openvino"
    chosen = SemanticIndex.open(path, backend="torch")  # both pass the gate: allowed
    assert chosen.search("cats purr", k=2) and chosen.encoder.backend == "torch"
    assert loads.calls[-1] == "torch"


def test_an_index_backend_that_cannot_run_here_falls_back_to_torch_within_the_gate(
        tmp_path, tiny_torch, docs, loads, caplog):
    loads.broken = {"openvino", "onnx-int8"}
    path = _built(tmp_path, labelled(tiny_torch, "openvino", GOOD), docs, "within")
    index = SemanticIndex.open(path)
    assert index.search("cats purr", k=2) and index.encoder.backend == "torch"
    assert loads.calls == ["openvino", "torch"]
    assert "its backend 'openvino' cannot run here" in caplog.text
    with pytest.raises(BackendError, match="not installed"):  # asked for by name: no stand-in
        SemanticIndex.open(path, backend="openvino").search("cats purr", k=2)
    beyond = _built(tmp_path, labelled(tiny_torch, "onnx-int8", BAD), docs, "beyond")
    with pytest.raises(BackendMismatchError, match="--backend onnx-int8"):
        SemanticIndex.open(beyond).search("cats purr", k=2)


def test_a_query_backend_beyond_the_gate_is_refused(tmp_path, tiny_torch, docs, loads):
    path = _built(tmp_path, labelled(tiny_torch, "torch", 1.0), docs)
    with pytest.raises(BackendMismatchError, match="--backend torch") as caught:
        SemanticIndex.open(path, encoder=labelled(tiny_torch, "onnx-int8", BAD))
    assert isinstance(caught.value, EncoderMismatchError) and "\n" not in str(caught.value)
    index = SemanticIndex.open(path, backend="onnx-int8")  # refused when the model loads
    with pytest.raises(BackendMismatchError, match="'onnx-int8'"):
        index.search("cats purr", k=2)
    assert index.search("cats purr", k=2, mode="lexical")  # BM25 needs no encoder
    assert SemanticIndex.open(path, encoder=labelled(tiny_torch, "onnx", GOOD))


def test_an_index_made_beyond_the_gate_takes_only_its_own_backend(tmp_path, tiny_torch, docs):
    path = _built(tmp_path, labelled(tiny_torch, "onnx-int8", BAD), docs)
    same = SemanticIndex.open(path, encoder=labelled(tiny_torch, "onnx-int8", BAD))
    assert same.search("cats purr", k=2)
    with pytest.raises(BackendMismatchError, match="--backend onnx-int8"):
        SemanticIndex.open(path, encoder=labelled(tiny_torch, "torch", 1.0))


def test_add_refuses_a_backend_beyond_the_gate_and_changes_nothing(tmp_path, tiny_torch,
                                                                   docs, loads):
    path = _built(tmp_path, labelled(tiny_torch, "torch", 1.0), docs)
    index = SemanticIndex.open(path, backend="onnx-int8")
    with pytest.raises(BackendMismatchError):
        index.add([{"id": "new", "text": "a new story about cats"}])
    index.save()
    assert len(SemanticIndex.open(path)) == 12


def test_other_weights_are_still_an_encoder_mismatch(flat_index, other_model_dir):
    other = encoder.load_encoder(other_model_dir, backend="torch")
    with pytest.raises(EncoderMismatchError, match="needs encoder") as caught:
        SemanticIndex.open(flat_index, encoder=other)
    assert not isinstance(caught.value, BackendMismatchError)


@pytest.mark.parametrize("bad", ["fast", "ONNX", "", 3])
def test_a_bad_backend_argument_names_the_choices(flat_index, tmp_path, tiny_torch, docs, bad):
    with pytest.raises(ValueError, match="Valid: auto, torch, onnx"):
        SemanticIndex.open(flat_index, backend=bad)
    with pytest.raises(ValueError, match="Valid: auto, torch, onnx"):
        build_index(docs[:3], tmp_path / "never", model=tiny_torch, backend=bad)
    assert not (tmp_path / "never").exists()
    with pytest.raises(ValueError, match="Valid: auto, torch, onnx"):
        rebuild_index(flat_index, tmp_path / "never", model=tiny_torch, backend=bad)


def test_an_encoder_and_a_backend_together_are_refused(flat_index, tiny_torch, tmp_path, docs):
    with pytest.raises(ValueError, match="not both"):
        SemanticIndex.open(flat_index, encoder=tiny_torch, backend="torch")
    other = "onnx" if tiny_torch.backend != "onnx" else "torch"
    with pytest.raises(ValueError, match="runs on"):
        build_index(docs[:3], tmp_path / "x", model=tiny_torch, backend=other)


def test_build_by_name_loads_the_backend_asked_for(tmp_path, tiny_model_dir, docs, loads):
    out = tmp_path / "named"
    build_index(docs[:6], out, model=str(tiny_model_dir), preset="flat",
                backend="openvino-int8")
    assert loads.calls == ["openvino-int8"]
    assert _manifest(out)["encoder"]["backend"] == "openvino-int8"
    build_index(docs[:6], tmp_path / "auto", model=str(tiny_model_dir), preset="flat")
    assert loads.calls[-1] == "auto"
    assert _manifest(tmp_path / "auto")["encoder"]["backend"] == "onnx"  # what ran, not "auto"


def test_rebuild_keeps_the_source_backend_unless_told(tmp_path, tiny_torch, other_model_dir,
                                                      docs, loads):
    source = _built(tmp_path, labelled(tiny_torch, "openvino", GOOD), docs)
    kept = rebuild_index(source, tmp_path / "kept", model=str(other_model_dir))
    assert loads.calls == ["openvino"]
    assert (kept.backend, kept.stats().fidelity) == ("openvino", GOOD)
    told = rebuild_index(source, tmp_path / "told", model=str(other_model_dir), backend="torch")
    assert loads.calls[-1] == "torch" and told.backend == "torch"
    given = labelled(encoder.loading.load_encoder(other_model_dir, backend="torch"), "onnx",
                     GOOD)
    assert rebuild_index(source, tmp_path / "given", model=given).backend == "onnx"


def test_a_ray_worker_runs_the_driver_backend_or_fails(tmp_path, tiny_torch, loads,
                                                       monkeypatch):
    from indexer import ChunkingConfig, IndexerError
    from indexer.ray import encode as raybuild

    def worker(backend: str):
        return raybuild.ShardWorker(tiny_torch.path, ChunkingConfig().to_dict(), 4,
                                    str(tmp_path), backend=backend)

    assert worker("onnx").enc.backend == "onnx" and loads.calls == ["onnx"]
    loads.broken = {"openvino-int8"}
    with pytest.raises(BackendError):  # the driver's backend cannot be made on this node
        worker("openvino-int8")
    # a loader that quietly ran torch instead: the worker says so rather than mix vectors
    monkeypatch.setattr(encoder, "load_encoder", lambda *a, **kw: tiny_torch)
    with pytest.raises(IndexerError, match="could not run .* on 'onnx'"):
        worker("onnx")
