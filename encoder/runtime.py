"""`FastModel`: an exported sentence encoder run by ONNX Runtime or OpenVINO, no torch weights.

An export (see exports.py) is a folder with the tokenizer, the transformers config, `runtime.json`
and one graph that maps token ids straight to the sentence embedding: the whole
sentence-transformers pipeline after tokenisation (transformer, pooling, dense, normalisation)
traced into it. So encoding is: tokenize (as sentence-transformers does), run, normalise.
`FastModel` offers the part of `SentenceTransformer`'s surface that `Encoder` uses.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from .shapes import pad_to_bucket
from .tokenizer_lock import tokenizer_lock

RUNTIME_FILE = "runtime.json"


def graph_file(backend: str) -> str:
    """The graph file of `backend` in an export folder (backends.SPECS)."""
    from .backends import SPECS

    graph = SPECS[backend].graph
    if graph is None:
        raise ValueError(f"the {backend!r} backend has no exported graph")
    return graph


def default_threads() -> int | None:
    """Threads for a runtime given none: torch's count when torch is loaded (the CLIs' `--threads`
    and a Ray actor's one CPU set it), else `$OMP_NUM_THREADS`, else None (the runtime's own
    default, one per core), so a thread limit set for torch also holds for the exports."""
    torch = sys.modules.get("torch")
    if torch is not None:
        return int(torch.get_num_threads())
    value = os.environ.get("OMP_NUM_THREADS", "")
    return int(value) if value.isdigit() and int(value) > 0 else None


def runtime_of(backend: str) -> str:
    """"onnxruntime" or "openvino": the runtime that runs an exported `backend`."""
    from .backends import SPECS

    return SPECS[backend].runtime


def runner(backend: str, graph: Path, threads: int | None):
    """A function running `graph` (token ids -> sentence embeddings) on `backend`'s runtime
    (`threads`: None for `default_threads()`)."""
    make = onnx_runner if runtime_of(backend) == "onnxruntime" else openvino_runner
    return make(graph, threads if threads is not None else default_threads())


class FastModel:
    """Tokenizer + graph runner for one export folder; `encode` mirrors SentenceTransformer's."""

    def __init__(self, folder: str | Path, backend: str, *, threads: int | None = None) -> None:
        from transformers import AutoConfig, AutoTokenizer

        self.folder = Path(folder)
        self.backend = backend
        spec = json.loads((self.folder / RUNTIME_FILE).read_text(encoding="utf-8"))
        self.max_seq_length: int = int(spec["max_seq_length"])
        self.dim: int = int(spec["dim"])
        self.prompts: dict[str, str] = dict(spec.get("prompts") or {})
        self.modules: list[str] = list(spec["modules"])
        self.pooling: str = str(spec["pooling"])
        self.input_names: list[str] = list(spec["inputs"])
        self.languages: tuple[str, ...] = tuple(spec.get("languages") or ("unknown",))
        self.tokenizer = AutoTokenizer.from_pretrained(str(self.folder), local_files_only=True)
        self.config = AutoConfig.from_pretrained(str(self.folder), local_files_only=True)
        self._run = runner(backend, self.folder / graph_file(backend), threads)
        # OpenVINO caches compiled primitives per input shape: pad to a few (see shapes.py)
        self.bucketed: bool = SHAPE_BUCKETS and runtime_of(backend) == "openvino"
        self._pad_id = int(self.tokenizer.pad_token_id or 0)
        self._avoid = INT8_AVOID_TOKENS if backend == "openvino-int8" else frozenset()

    def get_embedding_dimension(self) -> int:
        return self.dim

    def tokenize(self, texts: Sequence[str]) -> dict[str, np.ndarray]:
        """Token ids as sentence-transformers makes them: padded to the batch, cut at max length."""
        with tokenizer_lock(self.tokenizer):  # its settings are shared with token counts
            batch = self.tokenizer(list(texts), padding=True, truncation="longest_first",
                                   max_length=self.max_seq_length, return_tensors="np")
        out = {}
        for name in self.input_names:  # token_type_ids: zeros where the tokenizer makes none
            value = batch[name] if name in batch else np.zeros_like(batch["input_ids"])
            out[name] = np.ascontiguousarray(value, dtype=np.int64)
        return out

    def forward(self, texts: Sequence[str]) -> np.ndarray:
        """Sentence embeddings (n, dim) float32 of one batch, as the graph gives them."""
        inputs = self.tokenize(texts)
        if self.bucketed:
            inputs = pad_to_bucket(inputs, self.max_seq_length, self._pad_id, self._avoid)
        return np.asarray(self._run(inputs)[:len(texts)], dtype=np.float32)

    def encode(self, texts: Sequence[str], *, prompt: str | None = None, batch_size: int = 32,
               normalize_embeddings: bool = False, show_progress_bar: bool = False,
               lengths: Sequence[int] | None = None, **_ignored) -> np.ndarray:
        """(n, dim) float32 in input order; batches of similar length (longest first, as
        sentence-transformers does) so little padding is run. `lengths`: known token counts."""
        from tqdm.auto import tqdm

        items = [(prompt or "") + t for t in texts]
        if not items:
            return np.empty((0, self.dim), dtype=np.float32)
        if lengths is None or len(lengths) != len(items):
            lengths = [len(t) for t in items]  # characters: a fair proxy for tokens
        order = np.argsort([-k for k in lengths], kind="stable")
        out = np.empty((len(items), self.dim), dtype=np.float32)
        starts = range(0, len(items), batch_size)
        for start in tqdm(starts, desc="Batches", disable=not show_progress_bar):
            idx = order[start:start + batch_size]
            out[idx] = self.forward([items[i] for i in idx])
        if normalize_embeddings:
            out /= np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-12)
        return out


def _require(module: str, install: str):
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ImportError(f"this backend needs `pip install {install}`") from exc


def onnx_runner(graph: Path, threads: int | None):
    ort = _require("onnxruntime", "onnxruntime==1.31.1")

    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    if threads:
        options.intra_op_num_threads = threads
    options.log_severity_level = 3  # errors only
    session = ort.InferenceSession(str(graph), options, providers=["CPUExecutionProvider"])
    names = {i.name for i in session.get_inputs()}

    def run(inputs: dict[str, np.ndarray]) -> np.ndarray:
        return session.run(None, {k: v for k, v in inputs.items() if k in names})[0]

    return run


# OpenVINO's CPU plugin keeps the primitives it compiled for each input shape (batch x tokens)
# in a cache of 5,000 entries (primitives, not shapes), and every new shape adds some: unpadded,
# that cache is where a served encoder's memory grew, and kept growing. A smaller cache stayed
# flat but compiled again on most calls and cost the service requests/s
# (bench/results/serve-side-by-side-cache100.md). Padding every batch to a shape bucket
# (shapes.py) bounds the shapes instead: memory flattens, at less CPU (fewer compilations;
# bench/results/serve_memory.md, docs/API.md). BERTSCOPE_OPENVINO_SHAPE_CACHE still sets the
# cache's size; BERTSCOPE_OPENVINO_SHAPE_BUCKETS=0 turns the padding off (bench/serve_memory.py
# compares them).
SHAPE_CACHE = os.environ.get("BERTSCOPE_OPENVINO_SHAPE_CACHE")
SHAPE_BUCKETS = os.environ.get("BERTSCOPE_OPENVINO_SHAPE_BUCKETS", "1") != "0"
# Token counts OpenVINO's int8 CPU kernels get wrong, which buckets never pad to. Measured with
# openvino 2026.4.1 on a Xeon with AVX-512 VNNI and AMX: the minilm and e5-multilingual int8
# exports, fed exactly 32 tokens (24 or more of them real, one row or several), gave cosines to
# torch of 0.75 and 0.92; every other count from 4 to 129, and 160-256, 0.99 or more; the fp32
# export and random models of other widths none. So 25-31 tokens pad to 31 and 32 to 40.
INT8_AVOID_TOKENS = frozenset({32})


def openvino_runner(graph: Path, threads: int | None):
    ov = _require("openvino", "openvino==2026.4.1")

    config = {"PERFORMANCE_HINT": "LATENCY"}
    if SHAPE_CACHE:
        config["CPU_RUNTIME_CACHE_CAPACITY"] = int(SHAPE_CACHE)
    if threads:
        config["INFERENCE_NUM_THREADS"] = threads
    compiled = ov.Core().compile_model(str(graph), "CPU", config)
    names = {name for port in compiled.inputs for name in port.get_names()}
    request = compiled.create_infer_request()
    lock = threading.Lock()  # one request: callers on several threads take turns

    def run(inputs: dict[str, np.ndarray]) -> np.ndarray:
        with lock:
            result = request.infer({k: v for k, v in inputs.items() if k in names})
            return np.array(result[compiled.outputs[0]])  # a copy: the request reuses its buffer

    return run
