"""Pieces of the converter on hand-made data: q4_0 dequantisation, the unknown-char pattern."""

import re

import numpy as np

from encoder.e5_image import Q4_BLOCK, dequantize_q4_0
from encoder.e5_tokenizer import unknown_char_pattern


def test_dequantize_q4_0_by_hand():
    block = np.zeros(1, Q4_BLOCK)
    block["d"] = 0.5
    qs = np.arange(16, dtype=np.uint8)
    block["qs"] = qs | ((15 - qs) << 4)  # low nibble j, high nibble 15 - j
    out = dequantize_q4_0(block)
    assert out.shape == (32,) and out.dtype == np.float32
    assert np.allclose(out[:16], (qs.astype(np.float32) - 8) * 0.5)
    assert np.allclose(out[16:], (15 - qs.astype(np.float32) - 8) * 0.5)


def test_unknown_char_pattern_matches_only_chars_in_no_piece():
    onig = unknown_char_pattern(["▁a", "bc", "d", "苹果"])  # Oniguruma spells code points \x{..}
    python = re.sub(r"\\x\{([0-9A-F]+)\}", lambda m: f"\\U{int(m.group(1), 16):08X}", onig)
    pattern = re.compile(python)
    assert pattern.fullmatch("z") and pattern.fullmatch("😀") and pattern.fullmatch("梨")
    for ch in "▁abcd苹果":
        assert not pattern.fullmatch(ch)
