"""BERTScope's shared core: load bundled or local BERT encoders offline, encode, look inside.

Knows nothing of FAISS, training or Streamlit.
"""

from .backends import AUTO, BACKENDS, FIDELITY_GATE, check_backend, query_backend_error
from .encoder import Encoded, Encoder
from .errors import ConversionError, EncoderNotFoundError
from .explain import ExplainError, Explanation
from .fill_mask import DrawScore, MaskFill, score_draw
from .heads import NoHeadError
from .info import EncoderInfo
from .inspection import Inspection, merge_subwords
from .loading import load_encoder
from .masking import BertMasker, MaskDraw, draw_mask
from .registry import BUNDLED, BundledModel, bundled_names
from .trajectory import WordTrajectory, anisotropy
from .validation import check_text, check_texts
from .words import WordGroup

__all__ = [
    "AUTO",
    "BACKENDS",
    "BUNDLED",
    "BertMasker",
    "BundledModel",
    "ConversionError",
    "DrawScore",
    "Encoded",
    "Encoder",
    "EncoderInfo",
    "EncoderNotFoundError",
    "FIDELITY_GATE",
    "ExplainError",
    "Explanation",
    "Inspection",
    "MaskDraw",
    "MaskFill",
    "NoHeadError",
    "WordGroup",
    "WordTrajectory",
    "anisotropy",
    "bundled_names",
    "check_backend",
    "check_text",
    "check_texts",
    "draw_mask",
    "load_encoder",
    "merge_subwords",
    "query_backend_error",
    "score_draw",
]
