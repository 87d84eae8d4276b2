"""How good a model's pretraining heads are, as their training measured it on held-out text:
masked-token top-1 / top-5 accuracy and perplexity on a seeded 15 % draw (80/10/10) of text the
heads never trained on, before and after training. Read from beside the heads — `metrics.json`
(`python -m training mlm` / `mlm-heads` write it) or, without it, the `after` scores kept in
`mlm_heads.json`; nothing is computed here. The Pretraining page shows it beside every fill-mask
prediction, so a reader can weigh a prediction by how often these heads are right."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .heads import read_meta

METRICS_FILE = "metrics.json"


@dataclass(frozen=True)
class MaskedScores:
    top1: float  # share of masked tokens whose most likely prediction is the original
    top5: float
    perplexity: float
    masked_tokens: int  # how many held-out masked tokens were scored

    @classmethod
    def from_dict(cls, d: Any) -> MaskedScores | None:
        try:
            return cls(float(d["top1"]), float(d["top5"]), float(d["perplexity"]),
                       int(d["masked_tokens"]))
        except (KeyError, TypeError, ValueError):
            return None

    def text(self) -> str:
        return (f"top-1 {self.top1:.1%}, top-5 {self.top5:.1%}, "
                f"perplexity {self.perplexity:,.0f}")


@dataclass(frozen=True)
class HeadsQuality:
    after: MaskedScores  # the heads as they are
    before: MaskedScores | None  # the same draw before training (None: not saved)
    started_fresh: bool  # `before` is an untrained head (else: whatever the training started from)
    held_out: str  # what was scored, e.g. "5% of the documents"
    mode: str  # "head-only" (the encoder frozen) or "full" (the encoder trained too)
    corpus: str  # what the heads were trained on ("" where not recorded)
    steps: int | None

    def sentence(self) -> str:
        """The measurement for a person, e.g. 'Measured on held-out text (…): top-1 8.4 %, …'."""
        how = {"head-only": "head only, the encoder frozen",
               "full": "the whole encoder trained too"}.get(self.mode, self.mode)
        trained = ", ".join(p for p in (how, f"{self.steps} steps" if self.steps else "",
                                        f"on {self.corpus}" if self.corpus else "") if p)
        out = (f"These heads on held-out text ({self.held_out}, never trained on; "
               f"{self.after.masked_tokens:,} masked tokens): {self.after.text()}")
        if self.before is not None:
            out += (f"; {'an untrained head' if self.started_fresh else 'before training'}: "
                    f"{self.before.text()}")
        return out + (f". Trained {trained}." if trained else ".")


def heads_quality(folder: str | Path) -> HeadsQuality | None:
    """What the training of the heads in `folder` measured, or None where the folder holds no
    heads or they carry no held-out scores."""
    folder = Path(folder)
    try:
        meta = read_meta(folder)
    except ValueError:  # heads of a format this version does not read
        return None
    if meta is None:
        return None
    metrics = _read_json(folder / METRICS_FILE)
    if metrics.get("after") != meta.get("after"):  # not the run that made these heads
        metrics = {}
    after = MaskedScores.from_dict(metrics.get("after") or meta.get("after"))
    if after is None:
        return None
    corpus = meta.get("corpus")
    if not isinstance(corpus, str):
        corpus = ", ".join(str(c.get("path")) for c in metrics.get("corpus") or []
                           if isinstance(c, dict))
    steps = metrics.get("steps")
    return HeadsQuality(
        after=after,
        before=MaskedScores.from_dict(metrics.get("before")),
        started_fresh=metrics.get("heads_from", "fresh") == "fresh",
        held_out=str((metrics.get("eval") or {}).get("source") or "held out by the training"),
        mode=str(metrics.get("mode") or meta.get("mode") or ""),
        corpus=corpus,
        steps=steps if isinstance(steps, int) else None,
    )


def quality_sentence(folder: str | Path) -> str:
    """`heads_quality(folder).sentence()`, or the sentence that says nothing was measured."""
    quality = heads_quality(folder)
    if quality is None:
        return ("No held-out measurement was saved with these heads: nothing says how often "
                "their predictions are right.")
    return quality.sentence()


def heads_summary(folder: str | Path) -> str:
    """One table cell for a model's heads in `folder`: "none", or whose they are, how they were
    trained and what they scored on held-out text (the Models page)."""
    try:
        meta = read_meta(Path(folder))
    except ValueError as exc:
        return f"unreadable ({exc})"
    if meta is None:
        return "none"
    whose = "BERTScope's" if meta.get("made_by") == "BERTScope" else "yes"
    quality = heads_quality(folder)
    if quality is None:
        return f"{whose} (no held-out measurement saved)"
    how = {"head-only": "head only"}.get(quality.mode, quality.mode)
    return f"{whose}, {how}: {quality.after.text()} on held-out text"


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}
