"""Prompt prefixes: the text a model puts before an input of a given role (E5's "query: " and
"passage: "); models without prompts put nothing."""

from __future__ import annotations

from collections.abc import Mapping

PROMPTS = ("query", "passage")


def prompt_prefix(prompts: Mapping[str, str] | None, prompt: str | None) -> str:
    """The prefix `prompts` (a model's prompt table) gives `prompt`; "" for None or a model
    without that prompt. A prompt name that is neither None nor one of PROMPTS raises."""
    if prompt is None:
        return ""
    if prompt not in PROMPTS:
        raise ValueError(f"Invalid prompt {prompt!r}. Valid: None, {', '.join(PROMPTS)}")
    return (prompts or {}).get(prompt, "")
