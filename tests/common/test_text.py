"""`has_visible_text`: text a reader sees nothing of (whitespace, control, zero-width, BOM,
fillers) counts as empty everywhere a text is required."""

from __future__ import annotations

import pytest

from common.text import check_text, has_visible_text, lone_surrogate

INVISIBLE = ["", " \t\n", "\x00\x01\x07\x1b", "\u200b\u200c\u200d\u2060", "\ufeff",
             "\u00ad", "\u202e\u2066", "\u3164\u115f", "\ufe0f", "\u2028\u3000", "\x7f\x85"]
VISIBLE = ["a", "\ufeffcats", "\u200bx", "苹果", "🍎", "\u00e9", "\x00.", "\ufffd"]


@pytest.mark.parametrize("text", INVISIBLE)
def test_invisible_text(text):
    assert not has_visible_text(text)


@pytest.mark.parametrize("text", VISIBLE)
def test_visible_text(text):
    assert has_visible_text(text)


def test_a_lone_surrogate_is_named_where_text_is_checked():
    assert lone_surrogate("ok 🍎") is None and lone_surrogate("ab\udfffc") == 2
    with pytest.raises(ValueError) as info:
        check_text("apple \ud800", "query")
    assert str(info.value).startswith("query holds a lone surrogate ('\\ud800' at character 6")
