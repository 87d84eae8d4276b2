"""`read_tokens`: what a tokenizer read of a text, counted without the special framing."""

from encoder.reading import read_tokens


def test_counts_leave_out_the_framing():
    r = read_tokens(["[CLS]", "[UNK]", "[UNK]", "好", "[SEP]"], [True, False, False, False, True],
                    "[UNK]")
    assert (r.tokens, r.unknown, r.word_starts) == (3, 2, 0)
    assert r.unknown_share == 2 / 3 and not r.reads_nothing


def test_framing_alone_reads_nothing():
    r = read_tokens(["<s>", "</s>"], [True, True], "<unk>")
    assert r.reads_nothing and r.unknown_share == 0.0


def test_lone_word_start_marks_are_counted():
    tokens = ["<s>", "▁我", "今天", "</s>", "</s>", "▁", "苹果", "</s>"]
    special = [t in ("<s>", "</s>") for t in tokens]
    assert read_tokens(tokens, special, "<unk>").word_starts == 1
