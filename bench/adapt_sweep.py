"""The label-free adaptation's pair sources, swept on SciFact: each variant fine-tunes minilm on
pairs made from the corpus by `training.adapt_pairs` (the product's own code, copied beside this
file as `adaptlib/`), then encodes the corpus's chunks and the judged queries and writes each
query's top 100 documents (a document scores by its best chunk, as the index does), and the
product's self-check (`training.adapt_check`) on the held-out documents, before and after.

Self-contained on purpose (torch, transformers, numpy and `metrics` only; no `datasets`, no
sentence-transformers trainer): it runs where BERTScope is not installed, on a GPU when there is
one. The training loop is the product's settings written out: MNRL (scale 20, cosine, in-batch
negatives, no duplicate texts in a batch), AdamW with weight decay 0.01 off biases and norms,
linear warm-up over 10 % of the steps then linear decay, mean pooling, training at 128 tokens;
TSDAE (Wang et al. 2021) as in sentence-transformers: 60 % of the words deleted, a decoder tied
to the encoder reads the sentence vector through cross-attention.

    python DIR/adapt_sweep.py --data DIR --out OUT [--variants a,b] [--seeds 42,43]
        [--budget-s 420] [--device cuda]

DIR is what `python -m bench.adapt_scifact prepare` wrote, this file and `adaptlib/` among it: run
that copy, whose folder Python puts first on the import path, so `adaptlib` is found beside it.
Scored by `python -m bench.adapt_scifact table`.
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import random
import sys
import time
from collections import namedtuple
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

Doc = namedtuple("Doc", "id title text metadata")

# name -> stages; a stage: (loss, pair sources, epochs, learning rate, max steps or None)
VARIANTS: dict[str, list[tuple]] = {
    "base": [],
    "title": [("mnrl", ("title",), 1.0, 2e-5, None)],
    "neighbours": [("mnrl", ("neighbours",), 1.0, 2e-5, None)],
    "simcse": [("mnrl", ("simcse",), 1.0, 2e-5, None)],
    "ict": [("mnrl", ("ict",), 1.0, 2e-5, None)],
    "title+neighbours": [("mnrl", ("title", "neighbours"), 1.0, 2e-5, None)],
    "title+neighbours+simcse": [("mnrl", ("title", "neighbours", "simcse"), 1.0, 2e-5, None)],
    "tsdae>title": [("tsdae", ("sentences",), 1.0, 3e-5, 300),
                    ("mnrl", ("title",), 1.0, 2e-5, None)],
    "tsdae": [("tsdae", ("sentences",), 1.0, 3e-5, 300)],
    "title lr5e-6": [("mnrl", ("title",), 1.0, 5e-6, None)],
    "title 40 steps": [("mnrl", ("title",), 1.0, 2e-5, 40)],
    "neighbours lr5e-6": [("mnrl", ("neighbours",), 1.0, 5e-6, None)],
    "title+neighbours lr5e-6": [("mnrl", ("title", "neighbours"), 1.0, 5e-6, None)],
    "neighbours 40 steps": [("mnrl", ("neighbours",), 1.0, 2e-5, 40)],
}
BATCH, TRAIN_LEN, READ_LEN, SCALE, WARMUP, DECAY = 32, 128, 256, 20.0, 0.1, 0.01
TOP = 100


def read_jsonl_gz(path: Path) -> list[dict]:
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f]


class Encoder:
    def __init__(self, folder: Path, device: str) -> None:
        from transformers import AutoModel, AutoTokenizer

        self.tok = AutoTokenizer.from_pretrained(str(folder))
        self.model = AutoModel.from_pretrained(str(folder)).float().to(device)  # fp16 carried
        self.device = device

    def features(self, texts, length):
        batch = self.tok(list(texts), padding=True, truncation=True, max_length=length,
                         return_tensors="pt")
        return {k: v.to(self.device) for k, v in batch.items()}

    def embed(self, texts, length):  # (B, dim), unit vectors, with gradients
        feats = self.features(texts, length)
        hidden = self.model(**feats).last_hidden_state  # (B, T, dim)
        mask = feats["attention_mask"].unsqueeze(-1).float()
        return F.normalize((hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9), dim=-1)

    @torch.no_grad()
    def encode(self, texts, length=READ_LEN, batch=256) -> np.ndarray:
        self.model.eval()
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))  # less padding
        out = np.zeros((len(texts), self.model.config.hidden_size), dtype=np.float32)
        for s in range(0, len(order), batch):
            idx = order[s:s + batch]
            out[idx] = self.embed([texts[i] for i in idx], length).float().cpu().numpy()
        return out


def no_duplicate_batches(pairs, batch: int, rng: random.Random):
    """Shuffled batches in which no text appears twice (sentence-transformers' NO_DUPLICATES)."""
    order = list(range(len(pairs)))
    rng.shuffle(order)
    while order:
        taken, seen, rest = [], set(), []
        for i in order:
            texts = {pairs[i][0], pairs[i][1]}
            if len(taken) < batch and not texts & seen:
                taken.append(i)
                seen |= texts
            else:
                rest.append(i)
        if len(taken) < 2:
            return
        yield [pairs[i] for i in taken]
        order = rest


def optimiser(params_named, lr: float, steps: int):
    decay = [p for n, p in params_named if p.requires_grad and not _no_decay(n)]
    plain = [p for n, p in params_named if p.requires_grad and _no_decay(n)]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": DECAY},
                             {"params": plain, "weight_decay": 0.0}], lr=lr)
    warm = max(1, math.ceil(WARMUP * steps))
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: s / warm if s < warm else max(0.0, (steps - s) / max(1, steps - warm)))
    return opt, sched


def _no_decay(name: str) -> bool:
    return name.endswith("bias") or "LayerNorm" in name or "layer_norm" in name


def train_mnrl(enc: Encoder, pairs, epochs: float, lr: float, max_steps, seed: int) -> int:
    rng = random.Random(seed)
    per_epoch = max(1, len(pairs) // BATCH)
    steps = max(1, round(per_epoch * epochs))
    if max_steps:
        steps = min(steps, max_steps)
    opt, sched = optimiser(list(enc.model.named_parameters()), lr, steps)
    enc.model.train()
    done = 0
    while done < steps:
        for batch in no_duplicate_batches(pairs, BATCH, rng):
            a = enc.embed([p[0] for p in batch], TRAIN_LEN)
            b = enc.embed([p[1] for p in batch], TRAIN_LEN)
            loss = F.cross_entropy(SCALE * a @ b.T, torch.arange(len(batch), device=a.device))
            loss.backward()
            opt.step()
            sched.step()
            opt.zero_grad(set_to_none=True)
            done += 1
            if done >= steps:
                break
    return done


def train_tsdae(enc: Encoder, folder: Path, texts, epochs, lr, max_steps, seed: int) -> int:
    """TSDAE: the noisy sentence's vector, through cross-attention, lets a decoder tied to the
    encoder rebuild the whole sentence (sentence-transformers' DenoisingAutoEncoderLoss)."""
    from transformers import BertLMHeadModel

    rng = random.Random(seed)
    decoder = BertLMHeadModel.from_pretrained(str(folder), is_decoder=True,
                                              add_cross_attention=True).float().to(enc.device)
    decoder.bert.embeddings = enc.model.embeddings  # tied, as tie_encoder_decoder=True
    for mine, theirs in zip(decoder.bert.encoder.layer, enc.model.encoder.layer, strict=True):
        mine.attention, mine.intermediate, mine.output = (theirs.attention, theirs.intermediate,
                                                          theirs.output)
    texts = list(texts)
    rng.shuffle(texts)
    steps = max(1, round(len(texts) // BATCH * epochs))
    if max_steps:
        steps = min(steps, max_steps)
    params = {id(p): (n, p) for n, p in [*enc.model.named_parameters(),
                                         *decoder.named_parameters()]}
    opt, sched = optimiser(list(params.values()), lr, steps)
    enc.model.train()
    decoder.train()
    for step in range(steps):
        batch = [texts[(step * BATCH + i) % len(texts)] for i in range(BATCH)]
        noisy = [" ".join(w for w in t.split() if rng.random() > 0.6) or t.split()[0]
                 for t in batch]
        vectors = enc.embed(noisy, TRAIN_LEN)  # (B, dim)
        target = enc.features(batch, TRAIN_LEN)
        labels = target["input_ids"].masked_fill(target["attention_mask"] == 0, -100)
        out = decoder(input_ids=target["input_ids"], attention_mask=target["attention_mask"],
                      encoder_hidden_states=vectors.unsqueeze(1), labels=labels)
        out.loss.backward()
        opt.step()
        sched.step()
        opt.zero_grad(set_to_none=True)
    return steps


def top_documents(q: np.ndarray, c: np.ndarray, owners: list[int]) -> list[list]:
    """Each query's best TOP documents, by their best chunk: [[doc index, score], ...]."""
    sims = torch.from_numpy(q) @ torch.from_numpy(c).T  # (queries, chunks)
    values, idx = sims.topk(min(4 * TOP, sims.shape[1]), dim=1)
    out = []
    for vs, ids in zip(values.tolist(), idx.tolist(), strict=True):
        best: dict[int, float] = {}
        for v, i in zip(vs, ids, strict=True):
            best.setdefault(owners[i], round(v, 5))
        out.append([[d, s] for d, s in list(best.items())[:TOP]])
    return out


def save(out: Path, results: dict, seed: int, tag: str = "") -> None:
    """One file per seed (each under the 16 MB a device run may send back), and per given
    model folder (`tag`)."""
    mine = {**results, "runs": [r for r in results["runs"] if r["seed"] == seed]}
    name = f"adapt_sweep-{seed}{'-' + tag if tag else ''}.json.gz"
    with gzip.open(out / name, "wt", encoding="utf-8") as f:
        json.dump(mine, f)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--data", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--variants", default=",".join(VARIANTS))
    p.add_argument("--seeds", default="42,43")
    p.add_argument("--budget-s", type=float, default=420.0, help="start no run after this")
    p.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    p.add_argument("--limit-docs", type=int, help="a small slice, for a trial run")
    p.add_argument("--cap-steps", type=int, help="at most this many steps a stage (a trial)")
    p.add_argument("--model-dir", help="score this model folder as it is (no training): e.g. "
                   "one `python -m training adapt` made; its row is named --name")
    p.add_argument("--name", default="given model")
    args = p.parse_args()
    data, out = Path(args.data), Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    try:  # beside this file in DIR (see the docstring)
        from adaptlib.adapt_check import check_set, score, split_documents, verdict
        from adaptlib.adapt_pairs import make_pairs, sentences
    except ModuleNotFoundError as exc:
        raise SystemExit(f"{exc}: run the copy `python -m bench.adapt_scifact prepare --out DIR` "
                         "wrote, `python DIR/adapt_sweep.py --data DIR ...`") from exc

    started = time.perf_counter()
    torch.backends.cuda.matmul.allow_tf32 = False
    rows = read_jsonl_gz(data / "corpus.jsonl.gz")
    docs = [Doc(r["id"], r["title"], r["text"], {}) for r in rows]
    chunks = read_jsonl_gz(data / "chunks.jsonl.gz")
    queries = json.loads((data / "queries.json").read_text())
    if args.limit_docs:
        docs = docs[: args.limit_docs]
        keep = {d.id for d in docs}
        chunks = [c for c in chunks if c["doc"] in keep]
        queries = dict(list(queries.items())[:20])
    doc_index = {d.id: i for i, d in enumerate(docs)}
    owners = [doc_index[c["doc"]] for c in chunks]
    train_docs, check_docs = split_documents(docs)
    check = check_set(check_docs)
    qids = list(queries)
    results = {"device": args.device, "torch": torch.__version__,
               "gpu": torch.cuda.get_device_name(0) if args.device == "cuda" else None,
               "documents": len(docs), "train_documents": len(train_docs),
               "check": check.to_dict(), "chunks": len(chunks), "queries": len(qids),
               "doc_ids": [d.id for d in docs], "qids": qids, "runs": []}
    print(f"{len(docs)} docs ({len(train_docs)} to train on), {len(chunks)} chunks, "
          f"{len(qids)} queries, check {check.to_dict()}", flush=True)
    pair_cache: dict = {}
    variants = [v.strip() for v in args.variants.split(",") if v.strip()]
    tag = ""
    if args.model_dir:
        VARIANTS[args.name] = []
        variants = [args.name]
        tag = "".join(c if c.isalnum() else "-" for c in args.name)
    seeds = [int(s) for s in args.seeds.split(",")]
    base_check = None
    for seed in seeds:
        for name in variants:
            if not VARIANTS[name] and seed != seeds[0]:
                continue
            if time.perf_counter() - started > args.budget_s:
                print(f"budget spent: {name} seed {seed} not run", flush=True)
                continue
            t0 = time.perf_counter()
            torch.manual_seed(seed)
            enc = Encoder(Path(args.model_dir) if args.model_dir else data / "model", args.device)
            stages = []
            for loss, sources, epochs, lr, max_steps in VARIANTS[name]:
                s0 = time.perf_counter()
                if args.cap_steps:
                    max_steps = min(max_steps or args.cap_steps, args.cap_steps)
                if loss == "tsdae":
                    texts = [s for d in train_docs for s in sentences(d.text) if len(s.split()) > 3]
                    steps = train_tsdae(enc, data / "model", texts, epochs, lr, max_steps, seed)
                    count = len(texts)
                else:
                    key = (sources, seed)
                    if key not in pair_cache:
                        pair_cache[key] = [(x.anchor, x.positive)
                                           for x in make_pairs(train_docs, sources, seed=seed)]
                    pairs = pair_cache[key]
                    steps = train_mnrl(enc, pairs, epochs, lr, max_steps, seed)
                    count = len(pairs)
                stages.append({"loss": loss, "sources": list(sources), "rows": count,
                               "steps": steps, "lr": lr,
                               "seconds": round(time.perf_counter() - s0, 1)})
            train_s = time.perf_counter() - t0

            def encode(texts, kind, enc=enc):
                return enc.encode(list(texts))

            scores = score(encode, check)
            if name == "base":
                base_check = scores
            c = enc.encode([x["text"] for x in chunks])
            q = enc.encode([queries[i] for i in qids])
            run = {"variant": name, "seed": seed, "stages": stages,
                   "train_s": round(train_s, 1), "check": scores.to_dict(),
                   "check_verdict": verdict(base_check, scores).to_dict() if base_check else None,
                   "top": top_documents(q, c, owners),
                   "total_s": round(time.perf_counter() - t0, 1)}
            results["runs"].append(run)
            print(f"{name} seed {seed}: {stages} check {scores.to_dict()} "
                  f"{run['total_s']} s", flush=True)
            save(out, results, seed, tag)
            del enc
            if args.device == "cuda":
                torch.cuda.empty_cache()
    results["wall_s"] = round(time.perf_counter() - started, 1)
    for seed in seeds:
        save(out, results, seed, tag)
    print(f"done in {results['wall_s']} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
