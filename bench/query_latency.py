"""Where one query's encode time goes, per model and ONNX backend: the graph alone (pre-tokenised),
`FastModel.encode` (tokenise, run, normalise) and `Encoder.encode` (checks, token counts, prompt),
with ONNX Runtime's default threads and with one.

    HF_HUB_OFFLINE=1 .venv/bin/python -m bench.query_latency
"""

from __future__ import annotations

import argparse
import json
import statistics

from bench.kit.benchkit import data_dir, p50_ms, write_results


def measure(model: str, backend: str, queries: list[str]) -> dict:
    from encoder import load_encoder
    from encoder.runtime import FastModel

    enc = load_encoder(model, backend=backend)
    prefix = enc.prompt_prefix("query")
    row = {"model": model, "backend": backend,
           "Encoder.encode": p50_ms(lambda q: enc.encode([q], prompt="query"), queries)}
    for threads in (None, 1):
        label = "default threads" if threads is None else "1 thread"
        row |= runtime_parts(FastModel(enc.encoder_model.folder, backend, threads=threads),
                             prefix, queries, label)
    return row


def runtime_parts(fast, prefix: str, queries: list[str], label: str) -> dict:
    tokens = {q: fast.tokenize([prefix + q]) for q in queries}
    return {f"graph, {label}": p50_ms(lambda q: fast._run(tokens[q]), queries),
            f"FastModel.encode, {label}": p50_ms(
                lambda q: fast.encode([prefix + q], batch_size=1, normalize_embeddings=True),
                queries),
            "tokens": statistics.mean(t["input_ids"].shape[1] for t in tokens.values())}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--models", default="minilm,e5-multilingual")
    p.add_argument("--backends", default="onnx,onnx-int8")
    p.add_argument("--queries", type=int, default=100)
    args = p.parse_args()
    rows_in = (data_dir() / "scifact" / "queries.jsonl").open(encoding="utf-8")
    queries = [json.loads(line)["text"] for line in rows_in][: args.queries]
    rows = [measure(m, b, queries)
            for m in args.models.split(",") for b in args.backends.split(",")]
    cols = ["Encoder.encode", "FastModel.encode, default threads", "graph, default threads",
            "FastModel.encode, 1 thread", "graph, 1 thread"]
    lines = ["# One query's encode time, by layer (p50 ms)", "",
             "| model | backend | tokens (mean) | " + " | ".join(cols) + " |",
             "|---|---|---:|" + "---:|" * len(cols)]
    for r in rows:
        lines.append(f"| {r['model']} | {r['backend']} | {r['tokens']:.1f} | "
                     + " | ".join(f"{r[c]:.2f}" for c in cols) + " |")
    meta = {"queries": f"{len(queries)} SciFact train queries, one per call, with the query prompt"}
    lines += [""] + [f"- {k}: {v}" for k, v in meta.items()]
    write_results("query_latency", {"meta": meta, "rows": rows}, "\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
