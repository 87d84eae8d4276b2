"""BERTScope's shared core: load bundled or local BERT encoders offline, encode, look inside.

Knows nothing of FAISS, training or Streamlit.

The names below are imported on first use (PEP 562), so `from encoder.backends import BACKENDS`
or `import encoder.registry` costs no torch / transformers import; `encoder.Encoder` and the
other heavy names load their module when first asked for.
"""

from __future__ import annotations

import importlib
import importlib.util

# module → the public names it provides
_PUBLIC = {
    "backends": ("AUTO", "BACKENDS", "FIDELITY_GATE", "check_backend", "query_backend_error"),
    "encoder": ("Encoded", "Encoder"),
    "errors": ("BrokenModelError", "ConversionError", "EncoderNotFoundError"),
    "explain": ("ExplainError", "Explanation"),
    "fill_mask": ("DrawScore", "HeadsState", "HeadsStatus", "MaskFill", "heads_status",
                  "score_draw"),
    "heads": ("NoHeadError",),
    "info": ("EncoderInfo",),
    "inspection": ("Inspection", "merge_subwords"),
    "loading": ("load_encoder",),
    "masking": ("BertMasker", "MaskDraw", "draw_mask"),
    "registry": ("BUNDLED", "BundledModel", "bundled_names"),
    "sense_contexts": ("SENSE_CONTEXTS", "SenseContexts"),
    "sense_compare": ("SenseComparison", "compare_senses"),
    "senses": ("SenseSeparation", "measure_senses", "sense_separation", "split_labelled"),
    "tokens": ("Token", "Tokenized", "tokenize"),
    "trajectory": ("WordTrajectory", "anisotropy", "pca_2d"),
    "validation": ("check_text", "check_texts"),
    "words": ("WordGroup",),
}
_MODULE_OF = {name: module for module, names in _PUBLIC.items() for name in names}

__all__ = sorted(_MODULE_OF)


def __getattr__(name: str):
    """A public name (imported from its module, then kept) or a submodule not imported yet."""
    module = _MODULE_OF.get(name)
    if module is not None:
        value = getattr(importlib.import_module(f".{module}", __name__), name)
        globals()[name] = value
        return value
    if not name.startswith("_") and importlib.util.find_spec(f"{__name__}.{name}") is not None:
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
