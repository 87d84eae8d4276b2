"""BERTScope's HTTP retrieval service for RAG (FastAPI): OpenAI-compatible embeddings, search,
context packing, document writes, explanations, over every index under a root folder.

    python -m service --index-root indexes --port 8000     # or: make serve
    create_app(ServiceConfig(index_root=..., api_key=...)) -> FastAPI

One encoder per model per process (`Encoders`, loaded once under a lock), concurrent encodings
batched into one call (`Batcher`, `BatchedEncoder`); `/health`, `/ready`, `/metrics`, a bound on
concurrent requests (429) and connection timeouts for running it in production; with `--keys`,
principals with per-index scopes, an audit log and per-principal rate limits
(service/access.py; `readers_of(request)`: who the caller is, for per-document access); see
docs/API.md and docs/SECURITY.md.
"""

from .access import readers_of
from .app import create_app
from .batching import BatchedEncoder, Batcher
from .config import Limits, ServiceConfig
from .encoders import Encoders

__all__ = ["BatchedEncoder", "Batcher", "Encoders", "Limits", "ServiceConfig", "create_app",
           "readers_of"]
