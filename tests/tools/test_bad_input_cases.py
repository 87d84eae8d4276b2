"""The bad-input probe covers every entry point with at least 20 cases; a new CLI command (read
from the parsers) without its cases fails here. Nothing is run: the cases are only counted."""

from __future__ import annotations

from collections import Counter

from tools.bad_input.__main__ import all_cases
from tools.bad_input.cases_app_reader import ENTRY as READER_ENTRY

MINIMUM = 20


def _subcommands(parser) -> list[str]:
    sub = next(a for a in parser._actions if a.dest in ("command", "experiment")
               and getattr(a, "choices", None))
    return list(sub.choices)


def test_every_entry_point_has_at_least_20_bad_inputs():
    from indexer.cli_args import parser as indexer_parser
    from training.cli import build_parser

    counts = Counter(c.entry for c in all_cases())
    expected = [f"python -m indexer {c}" for c in _subcommands(indexer_parser())]
    for command in _subcommands(build_parser()):
        if command == "experiment":
            expected.append("python -m training experiment pooling")
        else:
            expected.append(f"python -m training {command}")
    expected += ["indexer library", "training library", "encoder library",
                 "app (Streamlit pages)", "service (HTTP)", "python -m service",
                 "python -m service (keys, audit, rate limits)", "python -m service keys",
                 READER_ENTRY]
    short = {e: counts.get(e, 0) for e in expected if counts.get(e, 0) < MINIMUM}
    assert not short, f"entry points with fewer than {MINIMUM} bad inputs: {short}"


def test_case_names_are_unique_per_entry_point():
    seen = Counter((c.entry, c.bad) for c in all_cases())
    assert [k for k, n in seen.items() if n > 1] == []


def test_a_refusal_that_does_not_name_the_limit_falls_short():
    from tools.bad_input.probe import Case, Outcome

    case = Case("service (HTTP)", "300 inputs", lambda ws: None, 413, names=("max_inputs",),
                unit="HTTP")
    named = Outcome("HTTP 413", "300 inputs; the limit is 256 (max_inputs)", refused=True,
                    code=413)
    assert case.verdict(named)
    assert not case.verdict(Outcome("HTTP 413", "too large", refused=True, code=413))
    assert not case.verdict(Outcome("HTTP 422", named.message, refused=True, code=422))
