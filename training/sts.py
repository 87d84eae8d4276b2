"""STS evaluation as the papers report it: Spearman (and Pearson) x 100 between the cosine of
the two sentence embeddings and the gold score (`metrics.sts`); for binary sets the gold is the
0/1 label (as C-MTEB does)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from sentence_transformers import SentenceTransformer
from sentence_transformers.sentence_transformer.evaluation import EmbeddingSimilarityEvaluator

from common import prompt_prefix as _prefix
from metrics import sts_scores

from .data import LoadedData, load_pairs
from .errors import TrainingError

if TYPE_CHECKING:
    from encoder import Encoder

STS_KINDS = ("scored", "binary")


@dataclass(frozen=True)
class StsResult:
    path: str
    kind: str
    pairs: int
    spearman: float  # x 100; 0 where the model gives every pair one cosine (`metrics.sts`)
    pearson: float  # x 100
    bad_rows: int = 0

    def to_dict(self) -> dict:
        return dict(self.__dict__)


def check_prompt(prompt: str | None) -> None:
    """A misspelled prompt stops here, before any model loads."""
    try:
        _prefix(None, prompt)
    except ValueError as exc:
        raise TrainingError(f"{exc} (on the command line: --prompt query, passage or none)"
                            ) from exc


def prompt_prefix(model: SentenceTransformer, prompt: str | None) -> str:
    """The text the model puts before inputs for `prompt` ("" when it defines none)."""
    check_prompt(prompt)
    return _prefix(model.prompts, prompt)


def load_sts(path: str | Path, *, role: str = "dev set") -> LoadedData:
    """A scored or binary pairs file on which Spearman is defined (two pairs or more, gold
    scores not all equal); anything else stops with one line, before a model loads."""
    data = load_pairs(path)
    if data.kind not in STS_KINDS:
        raise TrainingError(
            f"{path}: the {role} must hold scored or binary pairs (sentence1, sentence2, score), "
            f"but it holds {data.kind} data"
        )
    gold = set(data.dataset["score"])
    if len(data) < 2 or len(gold) < 2:
        what = f"{len(data)} valid pair" if len(data) < 2 else \
            f"the same gold score ({gold.pop():g}) on all {len(data)} pairs"
        raise TrainingError(
            f"{path}: the {role} has {what}; Spearman and Pearson are undefined there. "
            "Use pairs whose gold scores differ"
        )
    return data


def sts_evaluator(
    data: LoadedData,
    model: SentenceTransformer,
    *,
    name: str = "dev",
    prompt: str | None = "query",
    batch_size: int = 64,
    show_progress: bool = False,
) -> EmbeddingSimilarityEvaluator:
    """sentence-transformers' evaluator over `data`, texts prefixed with the model's `prompt`;
    `show_progress`: a tqdm bar per side of the pairs."""
    prefix = prompt_prefix(model, prompt)
    return EmbeddingSimilarityEvaluator(
        [prefix + s for s in data.dataset["sentence1"]],
        [prefix + s for s in data.dataset["sentence2"]],
        list(data.dataset["score"]),
        batch_size=batch_size,
        main_similarity="cosine",
        name=name,
        write_csv=False,
        show_progress_bar=show_progress,
    )


def evaluate_sts(
    model: SentenceTransformer | Encoder,
    data: LoadedData,
    *,
    prompt: str | None = "query",
    batch_size: int = 64,
    show_progress: bool = False,
) -> StsResult:
    """Spearman/Pearson of `model` on `data`: a `SentenceTransformer` (training's, torch) or an
    `encoder.Encoder`, which encodes on its own backend (`enc.backend`)."""
    from encoder import Encoder

    if isinstance(model, Encoder):
        check_prompt(prompt)

        def embed(texts) -> list:
            return model.encode(list(texts), prompt=prompt, batch_size=batch_size,
                                show_progress=show_progress)
    else:
        prefix = prompt_prefix(model, prompt)

        def embed(texts) -> list:
            return model.encode([prefix + t for t in texts], batch_size=batch_size,
                                convert_to_numpy=True, show_progress_bar=show_progress)

    scores = sts_scores(embed(data.dataset["sentence1"]), embed(data.dataset["sentence2"]),
                        list(data.dataset["score"]))
    return StsResult(
        path=data.path,
        kind=data.kind,
        pairs=len(data),
        spearman=scores["spearman"],
        pearson=scores["pearson"],
        bad_rows=len(data.bad_rows),
    )
