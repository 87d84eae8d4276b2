"""Training commands as jobs (`common.jobs`): which `python -m training ...` command a job runs,
how it continues after a stop, and how far its checkpoints got. A page starts them with
`JobRunner().submit(mlm_heads_job("minilm"))` and finds them again with `heads_key("minilm")`."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from common.home import REPO
from common.jobs import JobSpec

from .checkpoints import complete_checkpoints


def training_command(*args: str, threads: int | None = None) -> tuple[str, ...]:
    """`python -m training [--threads N] ARGS` (torch threads: 1 on a busy machine)."""
    return (sys.executable, "-m", "training", *(("--threads", str(threads)) if threads else ()),
            *args)


def heads_key(name: str) -> str:
    return f"mlm-heads:{name}"


def mlm_heads_job(name: str, *, steps: int | None = None, fingerprint: str | None = None,
                  threads: int | None = None) -> JobSpec:
    """Train bundled model `name`'s MLM + NSP heads (`python -m training mlm-heads NAME`), for
    the weights of `fingerprint` where given. The same command continues a stopped attempt from
    its last checkpoint (every 50 steps)."""
    from encoder.heads import bundled_heads_dir  # torch: not for pages that only list jobs

    argv = training_command("mlm-heads", name, *(("--steps", str(steps)) if steps else ()),
                            *(("--fingerprint", fingerprint) if fingerprint else ()),
                            threads=threads)
    return JobSpec("mlm-heads", heads_key(name), f"Train {name}'s MLM + NSP heads", argv,
                   resume_argv=argv, cwd=str(REPO),
                   outputs={"run": str(bundled_heads_dir(name))})


def fit_job(out: str | Path, flags: Sequence[str], *, title: str | None = None,
            threads: int | None = None, model: str | Path | None = None) -> JobSpec:
    """`python -m training fit FLAGS --out OUT` (a recipe: `flags=("--config", path, ...)`);
    continued with `--resume` from the last checkpoint. `model`: where the model to use lands
    when not at OUT (a cross-validating recipe's `OUT/final`)."""
    argv = training_command("fit", *flags, "--out", str(out), threads=threads)
    return JobSpec("fit", f"fit:{Path(out).resolve()}", title or f"Fine-tune into {out}", argv,
                   resume_argv=(*argv, "--resume"), cwd=str(REPO),
                   outputs={"run": str(model or out)})


def mlm_job(out: str | Path, flags: Sequence[str], *, title: str | None = None,
            threads: int | None = None) -> JobSpec:
    """`python -m training mlm FLAGS --out OUT` (continued MLM pretraining), `--resume`able."""
    argv = training_command("mlm", *flags, "--out", str(out), threads=threads)
    return JobSpec("mlm", f"mlm:{Path(out).resolve()}", title or f"MLM pretraining into {out}",
                   argv, resume_argv=(*argv, "--resume"), cwd=str(REPO),
                   outputs={"run": str(out)})


def adapt_job(index: str | Path, out: str | Path, *, flags: Sequence[str] = (),
              title: str | None = None, threads: int | None = None) -> JobSpec:
    """`python -m training adapt --index INDEX --out OUT FLAGS`: the index's encoder fine-tuned
    on the index's own documents, with its held-out check; continued with `--resume`."""
    argv = training_command("adapt", "--index", str(index), "--out", str(out), *flags,
                            threads=threads)
    return JobSpec("adapt", f"adapt:{Path(out).resolve()}",
                   title or f"Adapt {Path(index).name}'s encoder to its documents into "
                            f"{Path(out).name}", argv, resume_argv=(*argv, "--resume"),
                   cwd=str(REPO), outputs={"run": str(out), "index": str(index)})


def saved_step(run: str | Path) -> int | None:
    """The step of the last complete checkpoint in run folder `run` (its last stage that has
    one): where a resume continues from. None: nothing to continue from."""
    stages = sorted(Path(run).glob("checkpoints/stage-*"), key=lambda p: int(p.name[6:]))
    for stage in reversed(stages):
        found = complete_checkpoints(stage)
        if found:
            return int(found[-1].name.rsplit("-", 1)[1])
    return None
