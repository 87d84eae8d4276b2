"""BERT's pretraining objectives on one input, as data a page (or a notebook) draws:

- `draw_view`: the 80/10/10 draw of a sentence and, where the model's heads are ready, its
  predictions and loss at each selected position, with the rows of their table;
- `fill_view`: the top-k fills of each [MASK], beside a second model's, with how often each
  model's heads are right as their training measured it;
- `nsp_view`: P(IsNext) of a sentence pair, beside a second model's.

The encoders come in loaded; nothing here draws or trains."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from encoder import DrawScore, HeadsStatus, MaskDraw, MaskFill
    from encoder.protocol import EncoderLike

TOP_K = 5  # predictions shown per selected position of a draw


@dataclass(frozen=True)
class DrawView:
    """`draw`: what was selected and what each selected token became; `heads`: whether the
    model can predict; `score`: its predictions and losses (None: no token was selected, or
    its heads are not ready: `heads.reason` says why)."""

    draw: MaskDraw
    heads: HeadsStatus
    score: DrawScore | None
    top_k: int = TOP_K

    @property
    def summary(self) -> str:
        """"3 of 12 tokens selected: 2 → [MASK], 1 → random, 0 kept."""
        counts = self.draw.counts()
        return (f"{len(self.draw.selected)} of {len(self.draw.tokens)} tokens selected: "
                f"{counts['mask']} → [MASK], {counts['random']} → random, "
                f"{counts['kept']} kept.")

    @property
    def right(self) -> str:
        """How many selected tokens the model's top-1 got right, "2 of 3" ("" unscored)."""
        if self.score is None:
            return ""
        return f"{sum(self.score.correct)} of {len(self.score.correct)}"

    def rows(self) -> list[dict[str, object]]:
        """One row per selected position: the original token, what the model saw, how the
        draw changed it, the model's top-1 and top-k, and the loss there ([] unscored)."""
        if self.score is None:
            return []
        d, s = self.draw, self.score
        return [{"position": i, "original": d.tokens[i], "model sees": d.shown[i],
                 "draw": d.status[i], "top-1": p[0][0],
                 f"top-{self.top_k}": ", ".join(t for t, _ in p), "loss": loss}
                for i, p, loss in zip(s.positions, s.predictions, s.losses, strict=True)]


def draw_view(encoder: EncoderLike, text: str, *, share: float = 0.15, seed: int = 0,
              whole_word: bool = False, top_k: int = TOP_K) -> DrawView:
    """BERT's draw on `text` (`share` of its tokens selected, with `seed`; whole words when
    asked), scored by the model where it selected anything and its heads are ready."""
    from encoder import draw_mask, heads_status, score_draw

    draw = draw_mask(encoder.tokenizer, text, probability=share, seed=seed,
                     whole_word=whole_word, max_length=encoder.max_length)
    heads = heads_status(encoder)
    score = score_draw(encoder, draw, top_k=top_k) if draw.selected and heads.ready else None
    return DrawView(draw, heads, score, top_k)


@dataclass(frozen=True)
class FillView:
    """`fills`: each [MASK]'s candidates from the model; `other`: the second model's (None
    without one); `names`: both models' names ("" for an absent second); `quality`: (model
    name, how often its heads are right), one per model."""

    fills: list[MaskFill]
    other: list[MaskFill] | None
    names: tuple[str, str]
    quality: list[tuple[str, str]]

    def other_candidates(self, i: int) -> list[tuple[str, float]] | None:
        """The second model's candidates for the `i`-th [MASK] (None: no second, or it found
        fewer masks, e.g. its window cut the text shorter)."""
        if self.other is None or i >= len(self.other):
            return None
        return self.other[i].candidates


def fill_view(encoder: EncoderLike, text: str, *, top_k: int = TOP_K,
              compare: EncoderLike | None = None) -> FillView:
    """The top-k fills of each [MASK] in `text` by `encoder` and, beside them, by `compare`;
    both models' heads must be ready (`NoHeadError` otherwise, naming the fix)."""
    from encoder import heads_status
    from encoder.heads_quality import quality_sentence

    fills = encoder.fill_mask(text, top_k=top_k)
    other = compare.fill_mask(text, top_k=top_k) if compare is not None else None
    models = [encoder] if compare is None else [encoder, compare]
    quality = [(m.name, quality_sentence(heads_status(m).folder)) for m in models]
    return FillView(fills, other, (encoder.name, compare.name if compare is not None else ""),
                    quality)


@dataclass(frozen=True)
class NspView:
    """P(IsNext) by the model and, where there is one, by the second model (`other`)."""

    is_next: float
    other: float | None = None
    other_name: str = ""

    @property
    def other_summary(self) -> str:
        """"NAME: P(IsNext) = 61.2%" for the second model ("" without one)."""
        return "" if self.other is None else f"{self.other_name}: P(IsNext) = {self.other:.1%}"


def nsp_view(encoder: EncoderLike, a: str, b: str, *,
             compare: EncoderLike | None = None) -> NspView:
    """Whether `b` follows `a`, by each model's NSP head (`NoHeadError` without one)."""
    p = encoder.next_sentence(a, b)
    if compare is None:
        return NspView(p)
    return NspView(p, compare.next_sentence(a, b), compare.name)
