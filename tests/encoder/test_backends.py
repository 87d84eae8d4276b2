"""Encoding backends on a tiny random BERT: every one agrees with torch, `auto` picks by CPU and
falls back, damaged exports are rebuilt, the torch model loads only when something needs it."""

from __future__ import annotations

import json
import logging

import numpy as np
import pytest
from backend_home import module_home, scratch_home

from encoder import (
    AUTO,
    BACKENDS,
    FIDELITY_GATE,
    check_backend,
    load_encoder,
    query_backend_error,
)
from encoder import backends as backends_module
from encoder.exports import export_folder

FAST = [b for b in BACKENDS if b != "torch"]
TEXTS = ["a red apple", "the bank of the river", "Stocks fell sharply on Monday.", "x",
         "苹果发布了新手机"]


home = module_home("backend-home")


@pytest.fixture(scope="module")
def reference(home, tiny_model_dir):
    return load_encoder(tiny_model_dir, backend="torch")


@pytest.fixture
def no_vnni(monkeypatch):
    monkeypatch.setattr(backends_module, "cpu_flags", lambda: frozenset({"avx", "avx2"}))


# -- names and the index rule --------------------------------------------------------------------
@pytest.mark.parametrize("name", [AUTO, *BACKENDS])
def test_check_backend_accepts_the_names(name):
    assert check_backend(name) == name


@pytest.mark.parametrize("bad", ["ONNX", "int8", "", None, 3, ["onnx"]])
def test_check_backend_rejects_anything_else_naming_the_choices(bad):
    with pytest.raises(ValueError, match="Valid: auto, torch, onnx, onnx-int8, openvino"):
        check_backend(bad)
    with pytest.raises(ValueError, match="Valid: torch, onnx"):
        check_backend(bad, allow_auto=False)
    with pytest.raises(ValueError, match="Valid: torch, onnx"):
        check_backend(AUTO, allow_auto=False)  # an index records a real backend, never auto


class _Enc:
    def __init__(self, backend, fidelity):
        self.backend, self.fidelity = backend, fidelity


@pytest.mark.parametrize(("index", "fid", "enc", "ok"), [
    ("torch", None, _Enc("torch", 1.0), True),
    ("onnx-int8", 0.95, _Enc("onnx-int8", 0.95), True),  # the same backend: the same vectors
    ("torch", 1.0, _Enc("onnx", 0.9999), True),  # both within the gate
    ("openvino-int8", 0.995, _Enc("onnx", 0.9999), True),
    ("onnx-int8", 0.95, _Enc("torch", 1.0), False),  # the index's backend failed the gate
    ("torch", 1.0, _Enc("openvino-int8", 0.98), False),  # the query's did
    ("onnx", None, _Enc("torch", 1.0), False),  # fidelity unknown
    ("tensorrt", 1.0, _Enc("torch", 1.0), False),  # not a backend we know
])
def test_query_backend_error(index, fid, enc, ok):
    message = query_backend_error(index, fid, enc)
    if ok:
        assert message is None
    elif index == "tensorrt":
        assert "unknown encoding backend 'tensorrt'" in message and "rebuild" in message
    else:
        assert f"--backend {index}" in message and repr(enc.backend) in message
        assert repr(index) in message and "\n" not in message


def test_auto_order_follows_int8_dot_products(tmp_path):
    assert backends_module.auto_order(frozenset({"avx2"}))[0] == "onnx"
    for flag in ("avx512_vnni", "avx_vnni", "amx_int8"):
        assert backends_module.auto_order(frozenset({"avx2", flag}))[0] == "openvino-int8"
    for flags in (frozenset(), frozenset({"avx512_vnni"})):
        assert backends_module.auto_order(flags)[-1] == "torch"
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text("processor\t: 0\nflags\t\t: fpu sse2 avx2 avx512_vnni\n")
    assert "avx512_vnni" in backends_module.cpu_flags(cpuinfo)
    assert backends_module.cpu_flags(tmp_path / "missing") == frozenset()


def test_one_table_names_every_backend_and_its_graph():
    from encoder.runtime import graph_file

    assert BACKENDS == tuple(backends_module.SPECS) and BACKENDS[0] == "torch"
    exported = [b for b in BACKENDS if b != "torch"]
    assert len({graph_file(b) for b in exported}) == len(exported)  # one file each
    assert {backends_module.SPECS[b].runtime for b in exported} == {"onnxruntime", "openvino"}
    for order in (backends_module.auto_order(frozenset()),
                  backends_module.auto_order(frozenset({"avx512_vnni"}))):
        assert set(order) <= set(BACKENDS)
    with pytest.raises(ValueError, match="no exported graph"):
        graph_file("torch")


def test_cpu_flags_can_be_pinned_by_the_environment(monkeypatch):
    monkeypatch.setenv("BERTSCOPE_CPU_FLAGS", "avx2,avx512_vnni")
    assert backends_module.cpu_flags() == {"avx2", "avx512_vnni"}
    assert backends_module.auto_order()[0] == "openvino-int8"
    monkeypatch.setenv("BERTSCOPE_CPU_FLAGS", "avx2")
    assert backends_module.auto_order()[0] == "onnx"


# -- every backend -------------------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("backend", FAST)
def test_every_backend_agrees_with_torch(home, reference, tiny_model_dir, backend):
    enc = load_encoder(tiny_model_dir, backend=backend)
    assert enc.backend == backend and enc.backend_note is None
    vectors = enc.encode(TEXTS)
    assert vectors.shape == (len(TEXTS), reference.dim) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1, atol=1e-5)
    assert np.min(np.sum(vectors * reference.encode(TEXTS), axis=1)) >= FIDELITY_GATE
    assert enc.fidelity >= FIDELITY_GATE
    assert enc.fingerprint == reference.fingerprint  # identity is the weights', not the engine's
    meta = json.loads((export_folder(enc.fingerprint, backend) / "meta.json").read_text())
    assert meta["backend"] == backend and meta["fidelity"]["min_cosine"] == enc.fidelity
    assert meta["files"] and meta["versions"]["onnxruntime"]


def test_batches_and_info_match_torch(home, reference, tiny_model_dir):
    enc = load_encoder(tiny_model_dir, backend="onnx")
    texts = [f"sentence {i} " + "word " * (i * 7 % 50) for i in range(23)]
    assert np.allclose(enc.encode(texts, batch_size=4), reference.encode(texts), atol=1e-4)
    assert np.allclose(enc.encode(texts, normalize=False), reference.encode(texts, normalize=False),
                       atol=1e-4)
    assert enc.encode_with_info(["long " * 200]).truncated == 1
    assert enc.info.to_dict() == reference.info.to_dict()


def test_encode_only_never_loads_torch_but_inspect_does(home, tiny_model_dir):
    load_encoder(tiny_model_dir, backend="onnx-int8")  # made (and the fingerprint remembered)
    enc = load_encoder(tiny_model_dir, backend="onnx-int8")
    enc.encode(TEXTS)
    _ = enc.fingerprint, enc.info, enc.dim, enc.max_length
    assert not enc.torch_loaded
    ins = enc.inspect("The apple pie was delicious.")
    t = len(ins.tokens)
    assert ins.attentions.shape == (enc.info.layers, enc.info.heads, t, t)
    assert np.allclose(ins.attentions.sum(-1), 1, atol=1e-5)
    assert enc.torch_loaded and enc.backend == "onnx-int8"


def test_explain_on_an_int8_encoder_runs_on_the_torch_model(home, tiny_model_dir, reference):
    """Gradients need the float torch model: an int8 encoder explains exactly as torch does."""
    enc = load_encoder(tiny_model_dir, backend="onnx-int8")
    ex = enc.explain("a red apple", "the bank of the river", steps=4)
    ref = reference.explain("a red apple", "the bank of the river", steps=4)
    assert enc.torch_loaded and enc.backend == "onnx-int8"
    assert ex.score == pytest.approx(ref.score, abs=1e-5)
    assert np.allclose(ex.token_matrix, ref.token_matrix, atol=1e-5)


def test_max_length_applies_to_both_engines(home, tiny_model_dir):
    enc = load_encoder(tiny_model_dir, backend="onnx")
    enc.max_length = 16
    assert enc.encode_with_info(["word " * 40]).truncated == 1
    assert enc.model.max_seq_length == 16  # the torch model, loaded after, follows


# -- auto ----------------------------------------------------------------------------------------
def test_auto_without_vnni_exports_only_fp32_onnx(tmp_path, tiny_model_dir, no_vnni):
    with scratch_home(tmp_path / "home"):
        enc = load_encoder(tiny_model_dir)
        assert (enc.backend, enc.backend_note) == ("onnx", None)
        made = sorted(p.name for p in export_folder(enc.fingerprint, "onnx").parent.iterdir()
                      if not p.name.startswith("."))
        assert made == ["onnx"]


@pytest.mark.slow  # an int8 export (NNCF calibration)
def test_auto_with_vnni_runs_int8(home, tiny_model_dir, monkeypatch):
    monkeypatch.setattr(backends_module, "cpu_flags", lambda: frozenset({"avx512_vnni"}))
    enc = load_encoder(tiny_model_dir)
    assert enc.backend == "openvino-int8" and enc.fidelity >= FIDELITY_GATE


def test_auto_falls_back_to_torch_with_one_line(home, tiny_model_dir, no_vnni, monkeypatch,
                                                caplog):
    import encoder.runtime

    def broken(*args, **kwargs):
        raise RuntimeError("no runtime here")

    monkeypatch.setattr(encoder.runtime, "FastModel", broken)
    with caplog.at_level(logging.WARNING, logger="bertscope.encoder"):
        enc = load_encoder(tiny_model_dir)
    assert enc.backend == "torch" and enc.fidelity == 1.0
    lines = [r.getMessage() for r in caplog.records if r.name == "bertscope.encoder"]
    assert len(lines) == 1 and "auto runs torch" in lines[0]
    assert "onnx" in lines[0] and "openvino" in lines[0] and "no runtime here" in lines[0]
    assert enc.backend_note in lines[0]
    with pytest.raises(Exception, match="no runtime here"):  # explicit: an error, no fallback
        load_encoder(tiny_model_dir, backend="onnx")


def test_auto_skips_an_export_below_the_gate(home, tiny_model_dir, monkeypatch, caplog):
    import encoder.fast_loading

    enc = load_encoder(tiny_model_dir, backend="onnx")
    meta_file = export_folder(enc.fingerprint, "onnx") / "meta.json"
    original = meta_file.read_text()
    meta = json.loads(original)
    meta["fidelity"]["min_cosine"] = 0.9
    meta_file.write_text(json.dumps(meta))
    monkeypatch.setattr(encoder.fast_loading, "auto_order", lambda: ("onnx", "torch"))
    try:
        with caplog.at_level(logging.WARNING, logger="bertscope.encoder"):
            auto = load_encoder(tiny_model_dir)
        assert auto.backend == "torch" and "failed the fidelity gate" in auto.backend_note
        assert "0.9000 < 0.99" in caplog.text
        explicit = load_encoder(tiny_model_dir, backend="onnx")  # named: loads, and says so
        assert explicit.backend == "onnx" and explicit.fidelity == pytest.approx(0.9)
        assert query_backend_error("torch", 1.0, explicit) is not None
    finally:
        meta_file.write_text(original)


# -- damage --------------------------------------------------------------------------------------
@pytest.mark.parametrize(("backend", "damage"), [
    ("onnx", "truncate"), ("openvino", "garble"), ("onnx-int8", "no-meta"),
])
@pytest.mark.slow
def test_damaged_export_is_rebuilt_with_one_message(home, reference, tiny_model_dir, backend,
                                                    damage, caplog):
    enc = load_encoder(tiny_model_dir, backend=backend)
    folder = export_folder(enc.fingerprint, backend)
    graph = next(folder.glob("*.onnx")) if backend.startswith("onnx") else folder / (
        "openvino_model.bin")
    if damage == "truncate":
        graph.write_bytes(graph.read_bytes()[: graph.stat().st_size // 2])
    elif damage == "garble":
        data = bytearray(graph.read_bytes())
        data[100:120] = b"\xff" * 20
        graph.write_bytes(bytes(data))
    else:
        (folder / "meta.json").unlink()
    with caplog.at_level(logging.WARNING, logger="bertscope.encoder"):
        again = load_encoder(tiny_model_dir, backend=backend)
    lines = [r.getMessage() for r in caplog.records if r.name == "bertscope.encoder"]
    assert len(lines) == 1 and "rebuilding" in lines[0] and backend in lines[0]
    assert np.min(np.sum(again.encode(TEXTS) * reference.encode(TEXTS), axis=1)) >= FIDELITY_GATE
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="bertscope.encoder"):
        load_encoder(tiny_model_dir, backend=backend)
    assert not caplog.records  # rebuilt once, verified since



def test_inspect_turns_dropout_off_and_restores_the_mode(reference):
    """In the full suite's fresh home the torch model was once found in training mode (attention
    rows summed to 1/0.9); introspection runs in eval mode whatever mode it finds."""
    reference.transformer.train()
    try:
        ins = reference.inspect("The apple pie was delicious.")
        assert np.allclose(ins.attentions.sum(-1), 1, atol=1e-5)
        assert reference.transformer.training
    finally:
        reference.transformer.eval()
