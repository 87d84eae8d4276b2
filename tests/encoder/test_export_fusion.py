"""ONNX exports run ONNX Runtime's transformer fusions (one Attention op per layer), and an
export made by the earlier, unfused recipe is rebuilt rather than used."""

from __future__ import annotations

import json
import logging

import numpy as np
import onnx
import pytest
from backend_home import module_home

from encoder import FIDELITY_GATE, load_encoder
from encoder.exports import export_folder
from encoder.runtime import graph_file

TEXTS = ["a red apple", "the bank of the river", "Stocks fell sharply on Monday.", "x"]


home = module_home("fusion-home")


def fused_ops(graph_file) -> dict[str, int]:
    graph = onnx.load(str(graph_file), load_external_data=False).graph
    ops: dict[str, int] = {}
    for node in graph.node:
        if node.domain == "com.microsoft":
            ops[node.op_type] = ops.get(node.op_type, 0) + 1
    return ops


@pytest.mark.parametrize("backend", ["onnx", "onnx-int8"])
def test_onnx_exports_are_fused_per_layer(home, tiny_model_dir, backend):
    enc = load_encoder(tiny_model_dir, backend=backend)
    folder = export_folder(enc.fingerprint, backend)
    layers = json.loads((folder / "config.json").read_text())["num_hidden_layers"]
    ops = fused_ops(folder / graph_file(backend))
    attention = "QAttention" if backend == "onnx-int8" else "Attention"
    assert ops.get(attention) == layers, ops
    assert ops.get("SkipLayerNormalization") == 2 * layers, ops
    recipe = json.loads((folder / "meta.json").read_text())["recipe"]
    assert recipe["fusions"]["Attention"] == layers
    assert not list(folder.glob(".*"))  # the trace and the fused fp32 step are not left behind


def test_an_unfused_export_of_the_earlier_format_is_rebuilt(home, tiny_model_dir, caplog):
    reference = load_encoder(tiny_model_dir, backend="torch")
    enc = load_encoder(tiny_model_dir, backend="onnx")
    meta_file = export_folder(enc.fingerprint, "onnx") / "meta.json"
    meta = json.loads(meta_file.read_text())
    meta["format"] = 1
    meta_file.write_text(json.dumps(meta))
    with caplog.at_level(logging.WARNING, logger="bertscope.encoder"):
        again = load_encoder(tiny_model_dir, backend="onnx")
    assert "made by another format" in caplog.text and "rebuilding" in caplog.text
    assert json.loads(meta_file.read_text())["format"] == 2
    cosines = np.sum(again.encode(TEXTS) * reference.encode(TEXTS), axis=1)
    assert np.min(cosines) >= FIDELITY_GATE


def test_exporting_leaves_every_module_of_the_shared_model_in_its_mode(tiny_model_dir, tmp_path):
    from encoder.export_build import export_onnx

    model = load_encoder(tiny_model_dir, backend="torch").model
    before = [m.training for m in model.modules()]
    assert not model[0].auto_model.training  # dropout off, as loaded
    export_onnx(model, tmp_path / "trace.onnx")
    assert [m.training for m in model.modules()] == before
