"""What a finished run leaves beside its model: the loss / dev-score curve and the model card."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

DEV_METRIC = "eval_dev_spearman_cosine"  # one dev set
MEAN_DEV_METRIC = "eval_sequential_score"  # several: their mean (training.dev_sets)


METRICS_FILE = "metrics.json"  # written when a run finishes: scores, data, timings
LOG_FILE = "training_log.jsonl"  # one line per logged step, written while it trains


def read_metrics(folder: str | Path) -> dict[str, Any] | None:
    """A run folder's `metrics.json`, or None where the run left none (unfinished, not a
    BERTScope run) or it is unreadable."""
    try:
        data = json.loads((Path(folder) / METRICS_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def result_summary(metrics: dict[str, Any] | None, adapt: dict[str, Any] | None = None) -> str:
    """What a run gave, in a few words, for a table: an adaptation's held-out check
    (`adapt`, else `metrics["adapt"]`: nDCG@10 before → after, and whether it was better), a
    fine-tune's dev Spearman before → after, else that it had no dev set."""
    adapt = adapt or (metrics or {}).get("adapt")
    if isinstance(adapt, dict):
        if not (adapt.get("check") or {}).get("queries"):
            return "no check: too few documents to hold any out"
        word = "better" if (adapt.get("verdict") or {}).get("better") else "no measured gain"
        return (f"check nDCG@10 {adapt['before']['ndcg@10']:.4f} → "
                f"{adapt['after']['ndcg@10']:.4f} ({word})")
    if metrics is None:
        return f"no {METRICS_FILE}: unfinished, or not a BERTScope run"
    before = (metrics.get("dev_before") or {}).get("spearman")
    after = (metrics.get("dev_after") or {}).get("spearman")
    if before is not None and after is not None:
        return f"dev Spearman {before:.2f} → {after:.2f}"
    return "trained (no dev set)"


def read_log(path: Path) -> list[dict[str, Any]]:
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def run_curves(folder: str | Path) -> tuple[list[tuple[int, float]], list[tuple[int, float]]]:
    """`curves` of the log a run folder holds (both empty where it has none)."""
    return curves(read_log(Path(folder) / LOG_FILE))


def curves(log: list[dict[str, Any]]) -> tuple[list[tuple[int, float]], list[tuple[int, float]]]:
    """(run step, training loss) and (run step, dev Spearman x 100); steps count across stages.

    A resumed stage logs some steps twice; the later entry wins.
    """
    last_step: dict[int, int] = {}
    for e in log:
        last_step[e["stage"]] = max(last_step.get(e["stage"], 0), e["step"])
    offsets, total = {}, 0
    for stage in sorted(last_step):
        offsets[stage] = total
        total += last_step[stage]
    loss: dict[int, float] = {}
    dev: dict[int, float] = {}
    for e in log:
        step = offsets[e["stage"]] + e["step"]
        if "loss" in e:
            loss[step] = float(e["loss"])
        for key in (MEAN_DEV_METRIC, DEV_METRIC):
            if key in e:
                dev[step] = 100 * float(e[key])
                break
    return sorted(loss.items()), sorted(dev.items())


def plot_curve(
    log: list[dict[str, Any]], path: Path, *, title: str, dev_before: float | None
) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    loss, dev = curves(log)
    if dev_before is not None:
        dev = [(0, dev_before), *dev]
    fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(7, 6), sharex=True)
    if loss:
        ax1.plot(*zip(*loss, strict=True), color="tab:blue")
    ax1.set_ylabel("training loss")
    ax1.set_title(title)
    if dev:
        ax2.plot(*zip(*dev, strict=True), marker="o", color="tab:orange")
    ax2.set_ylabel("dev Spearman x100")
    ax2.set_xlabel("optimizer step (all stages)")
    for ax in (ax1, ax2):
        ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def model_card(metrics: dict[str, Any], config: dict[str, Any]) -> str:
    """A short README.md: base model, data, loss, hyper-parameters, dev scores, date."""
    lines = [
        f"# Sentence-BERT fine-tuned from `{config['model']}`",
        "",
        "A Siamese (shared-weights) sentence encoder trained by BERTScope "
        "(`python -m training fit`).",
        'Load it with `encoder.load_encoder("<this folder>")` or '
        '`SentenceTransformer("<this folder>")`.',
        "",
        f"- Date: {metrics['finished_at']}",
        f"- Base model: `{config['model']}`",
        f"- Pooling: {config['pooling']}, then L2 normalisation; "
        f"max length {config['max_seq_length']} tokens",
        f"- Prompt before every text: {_quoted(metrics.get('prompt_prefix'))}",
        "",
        "## Training",
        "",
        "| stage | loss | data (valid rows, bad rows skipped) | epochs | steps | wall time |",
        "|---|---|---|---|---|---|",
    ]
    for i, s in enumerate(metrics["stages"]):
        data = "; ".join(f"`{d['path']}` ({d['rows']}, {len(d['bad_rows'])})" for d in s["data"])
        lines.append(
            f"| {i} | {s['loss']} | {data} | {s['epochs']:g} | {s['steps']} | {s['wall_s']:.0f} s |"
        )
    lines += [
        "",
        f"Hyper-parameters: batch size {config['batch_size']}, learning rate "
        f"{config['learning_rate']:g}, linear warm-up over {config['warmup_ratio']:.0%} "
        "of the steps, "
        f"weight decay {config['weight_decay']:g}, seed {config['seed']}"
        + (f", a random {config['max_rows']} rows per stage" if config.get("max_rows") else "")
        + ".",
        "",
        "## Dev scores (Spearman / Pearson of cosine x 100)",
        "",
    ]
    for role, title in (("dev", "Dev sets (pick the best checkpoint)"),
                        ("report", "Report sets (never used to pick anything)")):
        if metrics.get(f"{role}_before") and metrics.get(f"{role}_after"):
            lines += _score_table(title, metrics[f"{role}_before"], metrics[f"{role}_after"])
    if not metrics.get("dev"):
        lines.append("No dev set was given: the model is the one after the last step.")
    lines += [
        "",
        f"Total wall time: {metrics['wall_s']:.0f} s. Curve: `curve.png`; "
        "log: `training_log.jsonl`.",
        "",
    ]
    return "\n".join(lines)


def _pair(scores: dict[str, Any]) -> str:
    return f"{_score(scores['spearman'])} / {_score(scores['pearson'])}"


def _score(value: float | None) -> str:
    return "undefined" if value is None else f"{value:.2f}"


def _quoted(prefix: str | None) -> str:
    return f"`{prefix}`" if prefix else "none"


def _score_table(title: str, before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    rows = [f"{title}:", "", "| set | pairs | before training | after training (best checkpoint) |",
            "|---|---|---|---|"]
    for b, a in zip(before["sets"], after["sets"], strict=True):
        rows.append(f"| `{b['path']}` | {b['pairs']} | {_pair(b)} | {_pair(a)} |")
    if len(before["sets"]) > 1:
        rows.append(f"| mean | | {_score(before['spearman'])} | {_score(after['spearman'])} |")
    return [*rows, ""]
