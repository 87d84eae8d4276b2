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


def test_unreadable_text_is_named_with_the_model_and_its_unknown_token(tiny_encoder):
    from encoder.reading import read_text, unreadable_note

    tok = tiny_encoder.tokenizer  # minilm's WordPiece: Chinese and emoji are mostly [UNK]
    english = read_text(tok, "rising oil prices")
    assert english.tokens == 3 and unreadable_note(english, "minilm", "[UNK]") is None
    emoji = read_text(tok, "🛢️📈🔥")
    assert emoji.unknown_share > 0.25
    note = unreadable_note(emoji, "minilm", "[UNK]", "this query")
    assert "[UNK]" in note and "minilm" in note and "this query" in note
    assert note.endswith("is not about its meaning.")  # no advice the caller cannot back up
    fixed = unreadable_note(emoji, "minilm", "[UNK]", "this query", fix="Pick another model.")
    assert fixed == note + " Pick another model."
    nothing = read_text(tok, "\u200b")
    assert nothing.reads_nothing and "reads no token" in unreadable_note(nothing, "m", "[UNK]")
