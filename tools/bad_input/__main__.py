"""`python -m tools.bad_input [--out docs/BAD_INPUT.md] [--only TEXT]`: try every case, write the
table. Offline: any model-hub lookup fails at once instead of waiting on the network."""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

for _name in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_DATASETS_OFFLINE"):
    os.environ.setdefault(_name, "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from .probe import REPO, quiet_logging, run_case  # noqa: E402
from .render import render  # noqa: E402
from .workspace import Workspace  # noqa: E402


def all_cases() -> list:
    from . import (
        cases_access,
        cases_access_index,
        cases_adapt,
        cases_app,
        cases_app_reader,
        cases_flags,
        cases_indexer_cli,
        cases_library,
        cases_messages,
        cases_mlm_cli,
        cases_pages,
        cases_readers,
        cases_service,
        cases_sync_foreign,
        cases_training_cli,
        cases_trust,
        cases_writes,
    )

    minilm, case = cases_library.shared_minilm, cases_indexer_cli._case
    third = [*cases_writes.library_cases(minilm), *cases_messages.TRAINING,  # issue 41; each
             *cases_writes.encoder_cases(minilm), *cases_messages.ENCODER,  # joins the table
             *[c for cs in cases_writes.cli_cases(case, minilm, cases_indexer_cli.M).values()
               for c in cs],  # of its entry point
             *cases_messages.FIT, *cases_messages.APP, *cases_writes.service_cases(),
             *cases_messages.JOBS,
             *cases_trust.library_cases(minilm), *cases_trust.cli_cases(minilm),  # issue 52
             *cases_trust.service_cases(), *cases_trust.BERTSCOPE_APP,
             *cases_pages.CASES,  # issue 51
             *cases_readers.library_cases(), *cases_adapt.nan_model_cases(),  # issue 52,
             *cases_sync_foreign.sync_cases(), *cases_adapt.training_cases(),  # fourth round
             *cases_flags.SERVICE_FLAGS, *cases_flags.service_cases(), *cases_flags.WORDS,
             *cases_access.CASES,  # issue 50: the service's keys; the index's access:
             *cases_access_index.CASES, *cases_access_index.library_cases(minilm),
             *cases_app_reader.CASES]  # issue 50: who reads in the app
    return [*[c for cs in cases_library.ENTRIES.values() for c in cs],
            *[c for cs in cases_indexer_cli.COMMANDS.values() for c in cs],
            *[c for cs in cases_training_cli.COMMANDS.values() for c in cs],
            *[c for cs in cases_mlm_cli.COMMANDS.values() for c in cs],
            *cases_app.APP, *cases_service.SERVICE, *third]


def main() -> int:
    p = argparse.ArgumentParser(prog="python -m tools.bad_input", description=__doc__)
    p.add_argument("--out", default=str(REPO / "docs" / "BAD_INPUT.md"))
    p.add_argument("--only", help="run the entry points whose name contains this text")
    args = p.parse_args()
    out = Path(args.out).resolve()  # before the probe moves into its workspace
    quiet_logging()
    cases = [c for c in all_cases() if not args.only or args.only in c.entry]
    results = []
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="bad-input-") as tmp:
        ws = Workspace(Path(tmp))
        ws.build_index()
        os.chdir(ws.root)  # a relative path in a case lands in W, never in the checkout
        for n, case in enumerate(cases, start=1):
            t0 = time.perf_counter()
            outcome = run_case(case, ws)
            ok = case.verdict(outcome)
            results.append((case, outcome, ok))
            print(f"[{n}/{len(cases)}] {'ok ' if ok else 'BAD'} {case.entry} · {case.bad} "
                  f"({time.perf_counter() - t0:.1f} s): {outcome.what} {outcome.message[:120]}",
                  file=sys.__stdout__, flush=True)
    text = render(results, minutes=(time.perf_counter() - started) / 60)
    if not args.only:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text, encoding="utf-8")
        print(f"wrote {out}", file=sys.__stdout__)
    bad = sum(not ok for _, _, ok in results)
    print(f"{len(results)} cases, {bad} not as expected", file=sys.__stdout__)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
