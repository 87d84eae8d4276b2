"""ONNX Runtime's transformer fusion, side by side with the plain trace it replaced: the same
weights exported four ways (trace / fused, fp32 / dynamic int8), each timed in one process on
the same texts, with its fidelity to torch fp32 (min and mean cosine on the shipped texts).

    HF_HUB_OFFLINE=1 .venv/bin/python -m bench.fusion_ab
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np

from bench.kit.benchkit import data_dir, p50_ms, write_results
from bench.kit.encodekit import stsb_sentences

VARIANTS = {"trace fp32": ("onnx", False), "fused fp32": ("onnx", True),
            "trace int8": ("onnx-int8", False), "fused int8": ("onnx-int8", True)}


def build_variants(model: str, work: Path) -> dict[str, tuple[Path, str]]:
    """One export folder per variant (tokenizer, config, runtime.json from the onnx export)."""
    from encoder import load_encoder
    from encoder.export_build import export_onnx, fuse_onnx, quantize_onnx
    from encoder.runtime import graph_file

    base = load_encoder(model, backend="onnx").encoder_model.folder
    st = load_encoder(model, backend="torch").model
    trace, fused = work / "trace.onnx", work / "fused.onnx"
    export_onnx(st, trace)
    fuse_onnx(trace, fused, st[0].auto_model.config)
    out = {}
    for label, (backend, is_fused) in VARIANTS.items():
        folder = work / label.replace(" ", "-")
        shutil.copytree(base, folder, ignore=shutil.ignore_patterns("*.onnx", "meta.json"))
        source = fused if is_fused else trace
        if backend == "onnx":
            shutil.copy(source, folder / graph_file(backend))
        else:
            quantize_onnx(source, folder / graph_file(backend))
        out[label] = (folder, backend)
    return out


def measure(model: str, rounds: int) -> list[dict]:
    from encoder import load_encoder
    from encoder.calibration import fidelity_texts
    from encoder.runtime import FastModel

    torch_enc = load_encoder(model, backend="torch")
    texts = fidelity_texts(128, chinese=model != "minilm")
    reference = torch_enc.encode(texts)
    prefix = torch_enc.prompt_prefix("query")
    sentences = [prefix + s for s in stsb_sentences(1000)]
    lines = (data_dir() / "scifact" / "queries.jsonl").open(encoding="utf-8")
    queries = [prefix + json.loads(line)["text"] for line in lines][:100]
    rows = []
    with tempfile.TemporaryDirectory(prefix="bertscope-fusion-ab-") as tmp:
        variants = build_variants(model, Path(tmp))
        for label, (folder, backend) in variants.items():
            fast = FastModel(folder, backend)
            cosines = np.sum(reference * fast.encode(texts, normalize_embeddings=True), axis=1)
            speeds = []
            for _ in range(rounds):
                start = time.perf_counter()
                fast.encode(sentences, batch_size=32, normalize_embeddings=True)
                speeds.append(len(sentences) / (time.perf_counter() - start))
            rows.append({"model": model, "variant": label,
                         "sentences_per_s": float(np.median(speeds)),
                         "query_p50_ms": p50_ms(lambda q, f=fast: f.encode([q], batch_size=1),
                                                queries),
                         "min_cosine": float(cosines.min()), "mean_cosine": float(cosines.mean())})
            print(json.dumps(rows[-1]), flush=True)
            del fast
    return rows


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--models", default="minilm,e5-multilingual")
    p.add_argument("--rounds", type=int, default=3)
    args = p.parse_args()
    rows = [r for m in args.models.split(",") for r in measure(m, args.rounds)]
    lines = ["# ONNX Runtime fusion, side by side with the plain trace", "",
             "| model | variant | STS-B sentences/s | 1-query p50 ms | "
             "min / mean cosine to torch |",
             "|---|---|---:|---:|---|"]
    lines += [f"| {r['model']} | {r['variant']} | {r['sentences_per_s']:.1f} | "
              f"{r['query_p50_ms']:.2f} | {r['min_cosine']:.4f} / {r['mean_cosine']:.5f} |"
              for r in rows]
    meta = {"texts": "1,000 STS-B dev sentences (batch 32, median of the rounds); 100 SciFact "
            "queries one per call; fidelity on the 128 shipped texts", "rounds": args.rounds}
    lines += [""] + [f"- {k}: {v}" for k, v in meta.items()]
    write_results("fusion_ab", {"meta": meta, "rows": rows}, "\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
