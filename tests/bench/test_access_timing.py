"""bench/access_timing/, as invariants: the command refuses settings it cannot run, naming the
flag; a query window is whole words of exactly the asked token count."""

from __future__ import annotations

import math

import pytest

from bench.access_timing import parse_args, window


@pytest.mark.parametrize("argv, flag", [
    (["--reps", "0"], "--reps"), (["--reps", "ten"], "--reps"), (["--hidden", "5"], "--hidden"),
    (["--docs", "50"], "--docs"), (["--docs", "9000"], "--docs"), (["--tokens", "3"], "--tokens"),
    (["--preset", "ivf"], "--preset"), (["--warm", "-1"], "--warm"),
    (["--docs", "200", "--hidden", "100"], "--hidden")])
def test_the_command_refuses_what_it_cannot_run(argv, flag, capsys):
    with pytest.raises(SystemExit) as stop:
        parse_args(argv)
    assert stop.value.code == 2
    assert flag in capsys.readouterr().err


def test_the_defaults_parse():
    args = parse_args([])
    assert 3 * args.hidden <= args.docs and args.reps >= 20


def test_a_window_is_whole_words_of_exactly_the_tokens_asked():
    def count(text: str) -> int:  # a word of n letters is ceil(n / 4) tokens
        return sum(math.ceil(len(w) / 4) for w in text.split())

    text = "a bb ccccc dddddddddd e ff ggggggggg hh i jjjjj"
    for tokens in range(1, 8):
        got = window(text, tokens, count)
        assert got is not None and count(got) == tokens and got in text
        assert set(got.split()) <= set(text.split())
    assert window("abcdefghijkl", 2, count) is None  # one word of 3 tokens: no run of 2
    assert window("", 1, count) is None
