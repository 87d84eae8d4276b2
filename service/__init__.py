"""BERTScope's HTTP retrieval service for RAG (FastAPI): OpenAI-compatible embeddings, search,
context packing, document writes, explanations, over every index under a root folder.

    python -m service --index-root indexes --port 8000     # or: make serve
    create_app(ServiceConfig(index_root=..., api_key=...)) -> FastAPI

One encoder per model per process (`Encoders`, loaded once under a lock), concurrent encodings
batched into one call (`Batcher`, `BatchedEncoder`); `/health`, `/ready`, `/metrics`, a bound on
concurrent requests (429) and connection timeouts for running it in production; see
docs/API.md.
"""

from .app import create_app
from .batching import BatchedEncoder, Batcher
from .config import Limits, ServiceConfig
from .encoders import Encoders

__all__ = ["BatchedEncoder", "Batcher", "Encoders", "Limits", "ServiceConfig", "create_app"]
