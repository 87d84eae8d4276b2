"""No page lets the browser drop a long paste without a word: no widget has `max_chars`; each
page reads the first N characters of longer text and says so."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from apptest_helpers import texts

APP = Path(__file__).resolve().parents[2] / "app"


def test_no_text_widget_caps_its_input_in_the_browser():
    capped = [f"{path.relative_to(APP)}:{node.lineno}"
              for path in sorted(APP.rglob("*.py"))
              for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
              if isinstance(node, ast.keyword) and node.arg == "max_chars"]
    assert not capped, f"max_chars drops a longer paste silently: {capped}"


@pytest.mark.slow  # the page loads minilm
def test_a_long_word_on_the_disambiguation_page_is_cut_with_a_warning(page):
    at = page("disambiguation")
    at.text_input[0].set_value("apple" * 30).run()  # 150 characters, limit 100
    assert not at.exception
    assert any("150 characters" in t and "first 100" in t for t in texts(at.warning))
