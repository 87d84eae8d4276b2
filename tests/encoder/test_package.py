"""`encoder`'s public names load their modules on first use (PEP 562), so the light parts
(`encoder.backends`, `encoder.registry`) can be imported without torch: the indexer CLI's
`--backend` choices come from `encoder.BACKENDS` itself and `--help` stays quick."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import encoder

REPO = Path(__file__).resolve().parents[2]  # this checkout's encoder, not the installed one
HEAVY = {"torch", "transformers", "sentence_transformers"}


def test_the_light_parts_import_no_torch():
    code = ("import sys, encoder, encoder.backends, encoder.registry, indexer.cli_args; "
            f"print(sorted({{m.split('.')[0] for m in sys.modules}} & {HEAVY!r}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=REPO)
    assert out.stdout.strip() == "[]"


def test_every_public_name_resolves_to_its_module():
    for name in encoder.__all__:
        value = getattr(encoder, name)
        assert name in dir(encoder)
        assert getattr(sys.modules[f"encoder.{encoder._MODULE_OF[name]}"], name) is value


def test_submodules_resolve_and_unknown_names_are_refused():
    assert encoder.registry.BUNDLED is encoder.BUNDLED
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        encoder.nope  # noqa: B018
