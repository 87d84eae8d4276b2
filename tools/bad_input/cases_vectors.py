"""Bad `--vectors` files for `python -m indexer build` (vectors made elsewhere, one row per
document of W/corpus.jsonl): every one refused in words before anything is written."""

from __future__ import annotations

import io

import numpy as np

from .probe import Case, cli

ROWS, DIM = 6, 384  # W/corpus.jsonl's documents; minilm's dimension


def _npy(array: np.ndarray) -> bytes:
    out = io.BytesIO()
    np.save(out, array, allow_pickle=array.dtype == object)
    return out.getvalue()


def _arrays() -> dict[str, np.ndarray]:
    good = np.random.default_rng(0).normal(size=(ROWS, DIM)).astype(np.float32)
    nan, inf, zero = good.copy(), good.copy(), good.copy()
    nan[2, 5], inf[3, 0], zero[4] = np.nan, np.inf, 0
    return {"good": good, "float64": good.astype(np.float64), "dim3": good[:, :3],
            "rows5": good[:5], "rows7": np.vstack([good, good[:1]]), "flat": good[0],
            "nan": nan, "inf": inf, "zero": zero, "int": good.astype(np.int64),
            "objects": np.array([["a"] * DIM] * ROWS, dtype=object),
            "empty": np.empty((0, DIM), np.float32)}


FILES: dict[str, bytes] = {f"vectors/{name}.npy": _npy(a) for name, a in _arrays().items()}
FILES["vectors/text.npy"] = b"0.1 0.2 0.3\n"
FILES["vectors/two.npz"] = b"PK\x03\x04 not really a zip"


def _b(bad: str, *argv: str, expect: str | int = "refused", note: str = "") -> Case:
    return Case("python -m indexer build", bad,
                cli("indexer", "build", "--corpus", "{W}/corpus.jsonl", "--model", "minilm",
                    *argv), expect, note)


def _v(name: str, out: str = "{W}/ov") -> tuple[str, ...]:
    return ("--vectors", f"{{W}}/vectors/{name}", "--out", out)


VECTORS = [
    _b("--vectors: a good float32 file", *_v("good.npy", "{W}/ov1"), expect=0,
       note="one chunk per document, nothing encoded"),
    _b("--vectors: float64 rows", *_v("float64.npy", "{W}/ov2"), expect=0,
       note="taken as float32"),
    _b("--vectors: 3 dimensions for a 384-dimension model", *_v("dim3.npy")),
    _b("--vectors: 5 rows for 6 documents", *_v("rows5.npy")),
    _b("--vectors: 7 rows for 6 documents", *_v("rows7.npy")),
    _b("--vectors: a 1-D array", *_v("flat.npy")),
    _b("--vectors: a NaN in row 2", *_v("nan.npy")),
    _b("--vectors: infinity in row 3", *_v("inf.npy")),
    _b("--vectors: row 4 all zeros", *_v("zero.npy")),
    _b("--vectors: integers", *_v("int.npy")),
    _b("--vectors: an array of Python objects (pickled)", *_v("objects.npy")),
    _b("--vectors: no rows", *_v("empty.npy")),
    _b("--vectors: a text file named .npy", *_v("text.npy")),
    _b("--vectors: an .npz archive", *_v("two.npz")),
    _b("--vectors: a file that does not exist", *_v("nope.npy")),
    _b("--vectors: a folder", "--vectors", "{W}/vectors", "--out", "{W}/ov"),
    _b("--vectors with --chunk-tokens 64", *_v("good.npy"), "--chunk-tokens", "64"),
    _b("--vectors with --engine ray", *_v("good.npy"), "--engine", "ray"),
    _b("--vectors with a corpus holding a duplicate id", "--vectors",
       "{W}/vectors/good.npy", "--out", "{W}/ov", "--corpus", "{W}/dupes.jsonl"),
]
