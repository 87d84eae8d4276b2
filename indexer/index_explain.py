"""`Explaining`: what the index contract says about a query and a hit, through the index's
encoder: whether dense search reads the whole query (`query_too_long`), why a hit matched
(`explain`) and what that costs (`explain_work`). A part of `SemanticIndex` (its mixin), kept
apart so that the contract's file holds what each store implements."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from .chunking import ChunkingConfig, chunk_input
from .documents import Hit


class Explaining:
    """Needs `encoder`, `manifest` and `document` (`SemanticIndex`'s)."""

    def query_too_long(self, query: str) -> bool:
        """True when dense search would see only the start of `query` (beyond the encoder's
        `max_length` tokens)."""
        enc = self.encoder
        return enc.token_lengths([query], prompt="query")[0] > enc.max_length

    def explain(self, query: str, hit: Hit, *, method: str = "integrated-jacobians",
                steps: int = 16, progress: Callable[[int, int], None] | None = None,
                readers: Iterable[str] | None = None):
        """Why `hit` matched `query`: the index's encoder explains the query against the hit's
        chunk as it was encoded (title included where the index puts it), with the query and
        passage prompts → `encoder.Explanation`: its `backend_score` is the hit's dense cosine
        (the index's backend), its `score` the torch fp32 cosine the attributions explain.
        `progress(done, total)`: see `encoder.explain.explain` (raise in it to cancel).
        `readers`: a hit of a document hidden from them raises `KeyError` as a missing one."""
        self._check_visible(hit, readers)
        return self.encoder.explain(query, self._passage(hit), method=method, steps=steps,
                                    prompt_a="query", prompt_b="passage", progress=progress)

    def explain_work(self, query: str, hit: Hit, steps: int = 16,
                     method: str = "integrated-jacobians", *,
                     readers: Iterable[str] | None = None) -> int:
        """The token passes `explain(query, hit, method=method, steps=steps)` takes (checked as
        it would be, nothing computed): what a caller's time estimate scales with
        (`encoder.explain.estimate`)."""
        from encoder.explain import occlusion_work, work_units

        self._check_visible(hit, readers)
        if method == "occlusion":
            return occlusion_work(self.encoder, query, self._passage(hit), prompt_a="query",
                                  prompt_b="passage")
        return work_units(self.encoder, query, self._passage(hit), steps=steps,
                          prompt_a="query", prompt_b="passage")

    def _check_visible(self, hit: Hit, readers: Iterable[str] | None) -> None:
        if readers is not None and isinstance(hit, Hit):
            self.document(hit.doc_id, readers=readers)  # hidden: KeyError, as a missing id

    def _passage(self, hit: Hit) -> str:
        if not isinstance(hit, Hit):
            raise TypeError(f"hit must be a Hit from this index's search, got {type(hit).__name__}")
        return chunk_input(self.encoder, hit.title, hit.text,
                           ChunkingConfig(**self.manifest["chunking"]))
