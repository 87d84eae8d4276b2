"""Helpers of the encoding benchmarks (encode.py, encode_sweep.py): the texts they time, the dev
sets they score, loading an encoder on a backend, and running one measurement in a fresh
subprocess whose peak RSS is sampled with psutil."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time

from bench.kit.benchkit import REPO, data_dir
from encoder import backends

MODELS = ("minilm", "e5-multilingual")
# "st": plain sentence-transformers fp32 torch on the same weights (the reference); the rest
# are BERTScope's `load_encoder(name, backend=...)`
BACKENDS = backends.BACKENDS
REFERENCE = "st"


def stsb_sentences(n: int) -> list[str]:
    """The first `n` distinct STS-B dev sentences (the speed set)."""
    seen: dict[str, None] = {}
    for line in (data_dir() / "stsb-en" / "dev.jsonl").open(encoding="utf-8"):
        row = json.loads(line)
        seen.setdefault(row["sentence1"])
        seen.setdefault(row["sentence2"])
    return list(seen)[:n]


def scifact_passages(n: int) -> list[str]:
    """`n` SciFact corpus abstracts, title + text as the indexer chunks them (every 25th)."""
    rows = [json.loads(line) for line in (data_dir() / "scifact" / "corpus.jsonl").open()]
    picked = rows[:: max(1, len(rows) // n)][:n]
    return [f"{r['title']}\n{r['text']}".strip() for r in picked]


def sts_pairs(folder: str) -> tuple[list[str], list[str], list[float]]:
    """A full dev set of scored pairs: (sentence1s, sentence2s, gold scores)."""
    a, b, gold = [], [], []
    for line in (data_dir() / folder / "dev.jsonl").open(encoding="utf-8"):
        row = json.loads(line)
        a.append(row["sentence1"])
        b.append(row["sentence2"])
        gold.append(float(row["score"]))
    return a, b, gold


def quality_sets(model: str) -> dict[str, str]:
    """Dev sets scored per model: label -> data folder."""
    sets = {"STS-B dev": "stsb-en"}
    if model == "e5-multilingual":
        sets["Chinese STS-B dev"] = "stsb-zh"
    return sets


def load_backend(model: str, backend: str):
    """`load_encoder(model, backend=backend)`; a library from before backends runs torch only."""
    from encoder import load_encoder

    try:
        return load_encoder(model, backend=backend)
    except TypeError:
        if backend != "torch":
            raise
        return load_encoder(model)


class Runner:
    """One loaded model on one backend: `encode(texts, batch_size, prompt)`, its tokenizer, and
    what runs (`about`). `st` is plain sentence-transformers; the rest `load_encoder(model,
    backend=...)`."""

    def __init__(self, model: str, backend: str) -> None:
        if backend == REFERENCE:
            from sentence_transformers import SentenceTransformer

            from encoder.registry import BUNDLED

            self.st = SentenceTransformer(str(BUNDLED[model].resolve()), device="cpu",
                                          local_files_only=True)
            self.prefixes = dict(self.st.prompts or {})
            self.enc = None
            self.about = {"runs": "sentence-transformers torch fp32"}
        else:
            self.enc = load_backend(model, backend)
            # what encodes: a FastModel (exports) or the SentenceTransformer; `enc.model` would
            # load the torch model beside an export, which an encode-only process never does
            runs = getattr(self.enc, "encoder_model", None)
            self.st = runs if runs is not None else self.enc.model
            self.about = {"runs": getattr(self.enc, "backend", "torch"),
                          "fidelity": getattr(self.enc, "fidelity", None),
                          "note": getattr(self.enc, "backend_note", None)}
        self.tokenizer = self.st.tokenizer

    def encode(self, texts, batch_size: int = 32, prompt: str | None = None):
        if self.enc is not None:
            return self.enc.encode(texts, batch_size=batch_size, prompt=prompt)
        return self.st.encode(texts, batch_size=batch_size, normalize_embeddings=True,
                              prompt=self.prefixes.get(prompt) if prompt else None)

    def token_order(self, texts: list[str]) -> list[int]:
        """Indices of `texts`, longest first by token count."""
        lengths = [len(x) for x in self.tokenizer(texts, truncation=True)["input_ids"]]
        return sorted(range(len(texts)), key=lambda i: -lengths[i])

    def configure_threads(self, n: int) -> str:
        """Ask the runtime that runs for `n` intra-op threads; says what it did."""
        import torch

        torch.set_num_threads(n)
        if type(self.st).__name__ == "FastModel":  # encoder/runtime.py: rebuild its runner
            from encoder import runtime

            backend = self.st.backend
            self.st._run = runtime.runner(backend, self.st.folder / runtime.graph_file(backend), n)
            return f"{self.st.backend} runner rebuilt with {n} thread(s)"
        return f"torch.set_num_threads({n})"


def set_threads(n: int) -> None:
    """Ask every runtime for `n` threads through the environment, before any loads."""
    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENVINO_NUM_THREADS"):
        os.environ[var] = str(n)


def run_measured(module: str, args: list[str], *, timeout: float = 1800) -> dict:
    """Run `python -m module args` in a fresh process from this checkout (its packages first, not
    an editable install's); returns the
    JSON of its last stdout line plus `peak_rss_mb`, the largest RSS psutil saw (every 20 ms)."""
    import psutil

    env = dict(os.environ, HF_HUB_OFFLINE="1", TOKENIZERS_PARALLELISM="false",
               PYTHONPATH=str(REPO))
    proc = subprocess.Popen([sys.executable, "-m", module, *args], cwd=REPO, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    peak = [0]

    def sample() -> None:
        try:
            ps = psutil.Process(proc.pid)
            while proc.poll() is None:
                peak[0] = max(peak[0], ps.memory_info().rss)
                time.sleep(0.02)
        except psutil.Error:
            pass

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    out, err = proc.communicate(timeout=timeout)
    sampler.join()
    if proc.returncode != 0:
        raise RuntimeError(f"{module} {' '.join(args)} failed:\n{err[-3000:]}")
    return {**json.loads(out.strip().splitlines()[-1]), "peak_rss_mb": peak[0] / 2**20}
