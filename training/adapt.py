"""`adapt`: fine-tune an encoder on a user's own documents, with no labels, and measure it.

1. The documents (an index's own, or a corpus file) are split: a slice is held out for the
   check (`adapt_check`), the rest gives (anchor, positive) pairs (`adapt_pairs`).
2. The check scores the model as it is on the held-out slice's pseudo-queries.
3. `fit` trains on the pairs with MNRL (in-batch negatives only): its checkpoints, resume, logs,
   curves and job progress are the same as any run's.
4. The check scores the adapted model; the verdict (better only when the whole 95 % interval of
   the difference lies above 0) is printed, kept in `adapt.json` and `metrics.json`, and decides
   whether the model is recommended for re-indexing.

The adapted model reads as far as the model it started from (trained at `max_seq_length`, saved
with the source's own window), so an index re-encoded with it keeps its chunks whole.
Defaults: `bench/results/adapt_scifact.md` (titles and headings only, a low rate: the sources
and rates that did not hurt real queries).
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from common import bertscope_home, write_json_atomic
from common.atomic import write_atomic
from common.jobs import job_progress_file

from .adapt_check import CheckScores, check_set, score, split_documents, verdict
from .adapt_config import AdaptConfig, check_adapt_config
from .adapt_pairs import count_sources, make_pairs
from .adapt_source import Source
from .errors import TrainingError

log = logging.getLogger("bertscope.training")

ADAPT_FILE = "adapt.json"
NO_PAIRS = ("{n} documents carry no titles or headings to pair with their text, so there is "
            "nothing to adapt on with the default pairs. --pairs neighbours trains on "
            "neighbouring passages instead; on SciFact that lowered real-query nDCG@10 while the "
            "self-check rose (bench/results/adapt_scifact.md), so it is not the default")


@dataclass
class AdaptResult:
    out: Path
    before: CheckScores
    after: CheckScores
    record: dict[str, Any]

    @property
    def better(self) -> bool:
        return self.record["verdict"]["better"]

    def lines(self) -> list[str]:
        r = self.record
        pairs = ", ".join(f"{n:,} {s}" for s, n in r["pairs"].items())
        if not r["check"]["queries"]:
            return [f"documents: {r['source']}; too few to hold any out for a check, all "
                    f"trained on ({pairs} pairs)", r["verdict"]["text"]]
        return [
            f"documents: {r['source']}; {r['check']['documents']:,} held out for the check, "
            f"the rest gave {pairs} pairs",
            f"self-check before: nDCG@10 {self.before.ndcg10:.4f}, MRR@10 {self.before.mrr10:.4f} "
            f"({r['check']['queries']:,} pseudo-queries)",
            f"self-check after:  nDCG@10 {self.after.ndcg10:.4f}, MRR@10 {self.after.mrr10:.4f}",
            r["verdict"]["text"],
        ]


def scratch_dir(out: str | Path) -> Path:
    """Where a run keeps its documents, pairs and first check until it is done (so a resumed
    run reads the same ones): under $BERTSCOPE_HOME/adapt, keyed by the run folder."""
    key = hashlib.sha256(str(Path(out).resolve()).encode()).hexdigest()[:16]
    path = bertscope_home("adapt") / key
    path.mkdir(parents=True, exist_ok=True)
    return path


def adapt(config: AdaptConfig, source: Source, *, resume: bool = False) -> AdaptResult:
    """Adapt `config.model` (else the index's encoder) to `source`'s documents into
    `config.out`; raises `TrainingError` for what a user can fix, before any model loads."""
    from .checks import check_config
    from .config import FitConfig, Stage
    from .fit import fit
    from .run_folder import prepare_out

    check_adapt_config(config)
    report = job_progress_file() or (lambda *a, **k: None)
    model = config.model or source.model
    if not model:
        raise TrainingError("--model: name the encoder to adapt (a corpus file has none of its "
                            "own; an index uses the one it was built with)")
    started = time.perf_counter()
    report(0, None, phase="pairs")
    train_docs, check_docs = split_documents(source.documents, share=config.check_share,
                                             seed=config.seed)
    checks = check_set(check_docs, seed=config.seed)
    pairs = make_pairs(train_docs, config.sources, seed=config.seed, limit=config.max_pairs)
    if not pairs:
        raise TrainingError(NO_PAIRS.format(n=f"{len(train_docs):,}"))
    scratch = scratch_dir(config.out)
    pairs_file = scratch / "pairs.jsonl"
    with write_atomic(pairs_file, "w", encoding="utf-8") as fh:
        for p in pairs:
            fh.write(json.dumps({"anchor": p.anchor, "positive": p.positive},
                                ensure_ascii=False) + "\n")
    steps = max(1, round(len(pairs) // config.batch_size * config.epochs))
    fit_config = FitConfig(
        model=model, out=config.out,
        stages=(Stage(train=(str(pairs_file),), loss="mnrl", epochs=config.epochs,
                      name="adapt"),),
        batch_size=config.batch_size, learning_rate=config.learning_rate,
        max_seq_length=config.max_seq_length, seed=config.seed, prompt="query",
        eval_steps=max(10, steps // 4), logging_steps=max(1, min(10, steps // 20)),
        show_progress=config.show_progress,
        extra={"adapt": {"source": source.description, "sources": list(config.sources)}})
    check_config(fit_config)
    prepare_out(config.out, fit_config.identity(), resume=resume)  # a bad --out fails now
    before = _before(scratch, model, checks, report)
    result = fit(fit_config, resume=resume)
    after = score(_encoder(_read_as_far_as(result.out, model), "check after", report, checks),
                  checks)
    decided = verdict(before, after, seed=config.seed)
    record = {
        "format": 1,
        "source": source.description,
        "index": source.index,
        "model": model,
        "settings": config.to_dict(),
        "pairs": count_sources(pairs),
        "documents": len(source.documents),
        "check": checks.to_dict(),
        "before": before.to_dict(),
        "after": after.to_dict(),
        "verdict": decided.to_dict(),
        "recommended": decided.better,
        "wall_s": round(time.perf_counter() - started, 1),
    }
    report(1, 1, phase="save")
    write_json_atomic(result.out / ADAPT_FILE, record)
    metrics = json.loads((result.out / "metrics.json").read_text(encoding="utf-8"))
    write_json_atomic(result.out / "metrics.json", {**metrics, "adapt": record})
    return AdaptResult(result.out, before, after, record)


def read_adapt(run: str | Path) -> dict[str, Any] | None:
    """The `adapt.json` of run folder `run`, None when it is not an adaptation (or unreadable)."""
    try:
        return json.loads((Path(run) / ADAPT_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _before(scratch: Path, model: str, checks, report) -> CheckScores:
    """The model as it is, scored on the check; kept in `scratch` for a resumed run."""
    from .siamese import build_siamese

    saved = scratch / "before.json"
    key = {"model": model, "check": checks.to_dict(), "queries": sorted(checks.queries)}
    if saved.is_file():
        data = json.loads(saved.read_text(encoding="utf-8"))
        if data.get("key") == key:
            return CheckScores(**data["scores"])
    scores = score(_encoder(build_siamese(model), "check before", report, checks), checks)
    write_json_atomic(saved, {"key": key, "scores": asdict(scores)})
    return scores


def _read_as_far_as(out: Path, source: str):
    """The adapted model, saved back with the window of the model it started from."""
    from sentence_transformers import SentenceTransformer

    from .siamese import build_siamese

    window = build_siamese(source).max_seq_length
    model = SentenceTransformer(str(out), device="cpu", local_files_only=True)
    if model.max_seq_length != window:
        model.max_seq_length = window
        model.save(str(out), create_model_card=False)
    return model


def _encoder(model, phase: str, report, checks) -> Callable[[Sequence[str], str], Any]:
    """`adapt_check`'s encode function over a sentence-transformers model, with its prompts,
    reporting the check's texts done to the job's progress."""
    import numpy as np

    total = len(checks.queries) + len(checks.passages)
    done = [0]

    def encode(texts: Sequence[str], kind: str):
        prompt = kind if kind in (model.prompts or {}) else None
        out = []
        for at in range(0, len(texts), 256):
            part = list(texts[at:at + 256])
            out.append(model.encode(part, prompt_name=prompt, normalize_embeddings=True,
                                    batch_size=32, show_progress_bar=False))
            done[0] += len(part)
            report(done[0], total, unit="texts", phase=phase)
        return np.vstack(out)

    return encode
