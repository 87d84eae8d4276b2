"""What an MLM run leaves beside its model: the loss curve and the model card."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def loss_curve(log: list[dict[str, Any]]) -> list[tuple[int, float]]:
    """(step, training loss); a resumed run logs some steps twice and the later entry wins."""
    return sorted({int(e["step"]): float(e["loss"]) for e in log if "loss" in e}.items())


def plot_mlm_curve(log: list[dict[str, Any]], path: Path, *, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    points = loss_curve(log)
    fig, ax = plt.subplots(figsize=(7, 3.5))
    if points:
        ax.plot(*zip(*points, strict=True), color="tab:blue")
    ax.set_xlabel("optimizer step")
    ax.set_ylabel("training loss (MLM + NSP)")
    ax.set_title(title)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def mlm_card(metrics: dict[str, Any], config: dict[str, Any]) -> str:
    before, after = metrics["before"], metrics["after"]
    rows = [("masked-token top-1", "top1", "{:.1%}"), ("masked-token top-5", "top5", "{:.1%}"),
            ("perplexity", "perplexity", "{:.1f}")]
    lines = [
        f"# `{config['model']}` with BERT pretraining heads (BERTScope)",
        "",
        "Continued masked-language-model pretraining"
        + (" with next-sentence prediction" if config["nsp"] else "")
        + f" (`python -m training mlm`), {metrics['mode']}: "
        + ("only the heads were trained; the encoder is the base model's."
           if metrics["mode"] == "head-only" else "the encoder was trained too."),
        "The MLM head (dense + GELU + LayerNorm + decoder tied to the word embeddings) is "
        "BERTScope's, not the original BERT's.",
        'Load: `encoder.load_encoder("<this folder>")` (an encoder; `.fill_mask`, '
        '`.next_sentence`), or `training.mlm.load_pretraining_model` for a transformers '
        "`BertForPreTraining`.",
        "",
        f"- Date: {metrics['finished_at']}",
        "- Corpus: " + ", ".join(f"`{c['path']}` ({c['documents']} documents)"
                                 for c in metrics["corpus"]),
        f"- Masking: {config['mlm_probability']:.0%} of the tokens"
        + (" (whole words)" if config["whole_word"] else "")
        + ", of which 80 % [MASK], 10 % random, 10 % unchanged",
        f"- {metrics['steps']} steps, batch {config['batch_size']}, max length "
        f"{config['max_length']}, learning rate {config['learning_rate'] or 'default'}, "
        f"seed {config['seed']}; {metrics['wall_s']:.0f} s",
        "",
        f"## Held-out ({metrics['eval']['source']}; {after.get('masked_tokens', 0)} tokens "
        "masked at 15 %, the same draw before and after)",
        "",
        "| | before | after |",
        "|---|---|---|",
    ]
    for name, key, fmt in rows:
        if key in before and key in after:
            lines.append(f"| {name} | {fmt.format(before[key])} | {fmt.format(after[key])} |")
    if "nsp" in after:
        lines.append(f"| NSP accuracy ({after['nsp']['pairs']} pairs) | "
                     f"{before['nsp']['accuracy']:.1%} | {after['nsp']['accuracy']:.1%} |")
    lines += ["", "Curve: `curve.png`; log: `training_log.jsonl`.", ""]
    return "\n".join(lines)
