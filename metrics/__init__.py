"""Evaluation shared by `indexer/` and `training/` (which never import each other): retrieval
metrics (nDCG@k, Recall@k, MRR@k), BEIR folder reading, and STS correlations, as pure functions.
"""

from .beir import judged_queries, load_beir, read_queries
from .ir import evaluate_run, mrr_at_k, ndcg_at_k, recall_at_k
from .sts import paired_cosine, pearson, spearman, sts_scores

__all__ = [
    "evaluate_run",
    "judged_queries",
    "load_beir",
    "mrr_at_k",
    "ndcg_at_k",
    "paired_cosine",
    "pearson",
    "read_queries",
    "recall_at_k",
    "spearman",
    "sts_scores",
]
