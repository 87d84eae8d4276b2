"""BERT's pretraining objectives on your corpus: masked-language modelling (80/10/10) and
next-sentence prediction, full or head-only; the bundled models' heads; the experiments."""

from .collator import MlmCollator
from .config import MlmConfig
from .examples import IS_NEXT, NOT_NEXT, chunk_documents, mlm_examples, nsp_examples
from .model import BertPretrainer, build_pretrainer, load_pretraining_model
from .pretrain import PretrainResult, pretrain

__all__ = [
    "IS_NEXT",
    "NOT_NEXT",
    "BertPretrainer",
    "MlmCollator",
    "MlmConfig",
    "PretrainResult",
    "build_pretrainer",
    "chunk_documents",
    "load_pretraining_model",
    "mlm_examples",
    "nsp_examples",
    "pretrain",
]
