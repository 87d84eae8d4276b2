"""Fill-mask and next-sentence prediction with an encoder's pretraining heads (`encoder.heads`).

The user writes `[MASK]` whatever the model's own mask token is (`<mask>` for e5). The heads
come from the model folder (a `python -m training mlm` run) or, for a bundled model, from the
cache that `python -m training mlm-heads NAME` fills; without them a `NoHeadError` says how to
train them. `heads_status` answers the same question without raising: whether the heads are
ready, and if not which case it is (`HeadsState`) and the sentence that explains it.
"""

from __future__ import annotations

import math
import weakref
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING

import torch
import torch.nn.functional as F

from .heads import NoHeadError, PretrainingHeads, load_heads
from .heads_meta import bundled_heads_dir, heads_folder
from .masking import IGNORE, MaskDraw
from .registry import BUNDLED
from .validation import check_text

if TYPE_CHECKING:
    from .protocol import EncoderLike

USER_MASK = "[MASK]"
_LOADED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


@dataclass(frozen=True)
class MaskFill:
    position: int  # token index in the encoded input
    candidates: list[tuple[str, float]]  # (token, probability), most likely first


@dataclass(frozen=True)
class DrawScore:
    """The model's view of a `MaskDraw`: per selected position, its top-k and the loss there."""

    positions: list[int]
    predictions: list[list[tuple[str, float]]]
    losses: list[float]  # cross-entropy (nats) of the original token at each position
    correct: list[bool]  # top-1 is the original token

    @property
    def loss(self) -> float:
        """Mean cross-entropy over the selected positions: BERT's MLM loss for this draw."""
        return sum(self.losses) / len(self.losses) if self.losses else float("nan")

    @property
    def perplexity(self) -> float:
        return math.exp(self.loss) if self.losses else float("nan")


class HeadsState(Enum):
    READY = "ready"
    NOT_TRAINED = "not trained"  # a bundled model: it ships without heads, BERTScope trains them
    MISSING = "missing"  # a model folder without `mlm_heads.json`
    OTHER_VERSION = "other version"  # heads trained for other weights of this model
    UNREADABLE = "unreadable"  # heads on disk that do not fit this model


@dataclass(frozen=True)
class HeadsStatus:
    state: HeadsState
    folder: Path  # where the heads are, or would be, kept
    bundled: bool  # a bundled model: its heads are BERTScope's, trained once and cached
    reason: str = ""  # for a person: why they are not ready and how to train them ("" if ready)

    @property
    def ready(self) -> bool:
        return self.state is HeadsState.READY

    @property
    def trainable(self) -> bool:
        """True where BERTScope's bundled-head training (`training.mlm.bundled`) fixes it."""
        return self.bundled and self.state in (HeadsState.NOT_TRAINED, HeadsState.OTHER_VERSION)


def heads_status(encoder: EncoderLike) -> HeadsStatus:
    """Whether the encoder's pretraining heads are ready (they are loaded, once, to know), and if
    not, which case it is and what to do; never raises for heads that are absent or unusable."""
    folder = heads_folder(encoder)
    bundled = encoder.name in BUNDLED and folder != Path(encoder.path)
    if encoder in _LOADED:
        return HeadsStatus(HeadsState.READY, folder, bundled)
    try:
        heads = load_heads(folder, encoder.transformer)
    except ValueError as exc:  # another format, another vocabulary, not BERT heads
        return HeadsStatus(HeadsState.UNREADABLE, folder, bundled, str(exc))
    if heads is None:
        state = HeadsState.NOT_TRAINED if bundled else HeadsState.MISSING
        return HeadsStatus(state, folder, bundled, _no_head_message(encoder))
    made_for = heads.meta.get("fingerprint")
    if made_for and made_for != encoder.fingerprint:
        return HeadsStatus(HeadsState.OTHER_VERSION, folder, bundled,
                           f"the heads in {folder} were trained for another version of "
                           f"{encoder.name}; {_no_head_message(encoder)}")
    _LOADED[encoder] = heads
    return HeadsStatus(HeadsState.READY, folder, bundled)


def get_heads(encoder: EncoderLike) -> PretrainingHeads:
    """The encoder's pretraining heads, loaded once; `NoHeadError` (naming the fix) if none,
    `ValueError` for heads on disk that do not fit this model."""
    status = heads_status(encoder)
    if status.state is HeadsState.UNREADABLE:
        raise ValueError(status.reason)
    if not status.ready:
        raise NoHeadError(status.reason)
    return _LOADED[encoder]


def forget_heads(encoder: EncoderLike) -> None:
    """Drop cached heads (after new ones were trained for this encoder)."""
    _LOADED.pop(encoder, None)


def fill_mask(encoder: EncoderLike, text: str, top_k: int = 5) -> list[MaskFill]:
    """The top-k tokens and probabilities for each `[MASK]` in `text`, in order."""
    check_text(text, "text")
    if top_k < 1:
        raise ValueError(f"top_k must be >= 1, got {top_k}")
    tok = encoder.tokenizer
    if tok.mask_token != USER_MASK:
        text = text.replace(USER_MASK, tok.mask_token)
    enc = tok(text, truncation=True, max_length=encoder.max_length, return_tensors="pt")
    positions = (enc["input_ids"][0] == tok.mask_token_id).nonzero().flatten().tolist()
    _check_masks_fit(encoder, text, len(positions))
    heads = get_heads(encoder)
    hidden = _hidden(encoder, enc)[0, positions]  # (M, H)
    with torch.inference_mode():
        probs = heads.module.predictions(hidden).softmax(-1)  # (M, V)
    top = probs.topk(min(top_k, probs.shape[-1]), dim=-1)
    return [
        MaskFill(pos, list(zip(tok.convert_ids_to_tokens(ids.tolist()), p.tolist(), strict=True)))
        for pos, ids, p in zip(positions, top.indices, top.values, strict=True)
    ]


def _check_masks_fit(encoder: EncoderLike, text: str, kept: int) -> None:
    """Every mask of `text` is inside the model's window, or a `ValueError` says how many fit."""
    tok = encoder.tokenizer
    whole = tok(text, verbose=False)["input_ids"]  # no truncation: warns past the window
    written = sum(1 for i in whole if i == tok.mask_token_id)
    if not written:
        raise ValueError(f"no {USER_MASK} in the text; write {USER_MASK} where a word should "
                         "be predicted")
    if kept < written:
        fit = f"only {kept} fit" if kept else "none fit"
        raise ValueError(f"the text has {written} {USER_MASK}{'s' if written > 1 else ''} but "
                         f"{fit} in {encoder.name}'s {encoder.max_length}-token window (the text "
                         f"is {len(whole)} tokens): shorten the text before the last "
                         f"{USER_MASK}, or split it")


def next_sentence(encoder: EncoderLike, text_a: str, text_b: str) -> float:
    """P(IsNext): the NSP head's probability that `text_b` follows `text_a`."""
    check_text(text_a, "text_a")
    check_text(text_b, "text_b")
    heads = get_heads(encoder)
    if not heads.nsp or heads.pooler is None:
        raise NoHeadError(
            f"{encoder.name} has an MLM head but no trained NSP head; train one with "
            f"`python -m training mlm --nsp --model {encoder.name} --corpus FILE --out DIR`"
        )
    enc = encoder.tokenizer(text_a, text_b, truncation="longest_first",
                            max_length=encoder.max_length, return_tensors="pt")
    hidden = _hidden(encoder, enc)
    with torch.inference_mode():
        logits = heads.module.seq_relationship(heads.pooler(hidden))  # (1, 2)
    return float(logits.softmax(-1)[0, 0])  # label 0 = IsNext, as in BERT


def score_draw(encoder: EncoderLike, draw: MaskDraw, top_k: int = 5) -> DrawScore:
    """Run the model on a draw's masked input: predictions and loss at each selected position."""
    positions = [i for i, label in enumerate(draw.labels) if label != IGNORE]
    if not positions:
        return DrawScore([], [], [], [])
    heads = get_heads(encoder)
    ids = torch.tensor([draw.input_ids])
    hidden = _hidden(encoder, {"input_ids": ids, "attention_mask": torch.ones_like(ids)})
    targets = torch.tensor([draw.labels[i] for i in positions])
    with torch.inference_mode():
        logits = heads.module.predictions(hidden[0, positions])  # (M, V)
        losses = F.cross_entropy(logits, targets, reduction="none")
        top = logits.softmax(-1).topk(top_k, dim=-1)
    tok = encoder.tokenizer
    return DrawScore(
        positions=positions,
        predictions=[
            list(zip(tok.convert_ids_to_tokens(i.tolist()), p.tolist(), strict=True))
            for i, p in zip(top.indices, top.values, strict=True)
        ],
        losses=losses.tolist(),
        correct=(top.indices[:, 0] == targets).tolist(),
    )


def _hidden(encoder: EncoderLike, enc) -> torch.Tensor:
    inputs = {k: enc[k] for k in ("input_ids", "attention_mask", "token_type_ids") if k in enc}
    with torch.inference_mode():
        return encoder.transformer(**inputs).last_hidden_state  # (1, T, H)


def _no_head_message(encoder: EncoderLike) -> str:
    if encoder.name in BUNDLED:
        return (
            f"{encoder.name} ships without an MLM head. Train BERTScope's once (head only, a few "
            f"minutes, cached in {bundled_heads_dir(encoder.name)}): "
            f"`python -m training mlm-heads {encoder.name}`, or open the app's Pretraining page"
        )
    return (
        f"{encoder.path} has no MLM head ({heads_folder(encoder) / 'mlm_heads.json'} is "
        f"missing). Train one: `python -m training mlm --model {encoder.path} --corpus FILE "
        f"--out DIR --head-only`, then load DIR"
    )
