"""Question → context → prompt, the RAG retrieval step end to end:

    python -m rag.example "What did the central bank decide?"            # the default index
    python -m rag.example "…" --url http://127.0.0.1:8000 --name bbc-news   # through the service
    python -m rag.example "…" --llm-url http://127.0.0.1:8080/v1 --llm-model NAME

prints the prompt (sources cited [1], [2], …); with `--llm-url` it also sends it to that
OpenAI-compatible chat endpoint and prints the answer.
"""

from __future__ import annotations

import argparse
import sys

INSTRUCTIONS = ("Answer the question using only the numbered sources below, and cite the ones "
                "you use as [n]. If they do not hold the answer, say so.")


def build_prompt(question: str, context: str) -> str:
    return f"{INSTRUCTIONS}\n\nSources:\n{context}\n\nQuestion: {question}\nAnswer:"


def retrieve(args) -> str:
    """The context block for the question, from the service (`--url`) or in this process."""
    if args.url:
        from .client import ServiceClient

        client = ServiceClient(args.url)
        return client.context(args.name, args.question, args.max_tokens, k=args.k)["prompt"]
    from indexer import SemanticIndex

    from .context import context_for

    return context_for(SemanticIndex.open(args.index), args.question, args.max_tokens,
                       k=args.k).prompt


def ask(llm_url: str, model: str, prompt: str, api_key: str | None) -> str:
    import httpx

    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    response = httpx.post(f"{llm_url.rstrip('/')}/chat/completions", headers=headers,
                          timeout=300, json={"model": model, "messages": [
                              {"role": "user", "content": prompt}]})
    response.raise_for_status()
    return response.json()["choices"][0]["message"]["content"]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m rag.example", description=__doc__.split("\n")[0])
    p.add_argument("question")
    p.add_argument("--index", default="indexes/bbc-news", help="an index folder (in-process)")
    p.add_argument("--url", help="the service's URL instead of an index in this process")
    p.add_argument("--name", default="bbc-news", help="the index's name on the service")
    p.add_argument("--max-tokens", type=int, default=400, help="the context's token budget")
    p.add_argument("-k", type=int, default=20, help="candidate chunks before packing")
    p.add_argument("--llm-url", help="an OpenAI-compatible base URL (…/v1) to send it to")
    p.add_argument("--llm-model", default="default", help="the chat model's name there")
    p.add_argument("--llm-key", help="its API key, if it needs one")
    args = p.parse_args(argv)
    try:
        prompt = build_prompt(args.question, retrieve(args))
    except (OSError, ValueError, RuntimeError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(prompt)
    if args.llm_url:
        try:
            answer = ask(args.llm_url, args.llm_model, prompt, args.llm_key)
        except Exception as exc:  # noqa: BLE001 - any failure of a remote service: one line
            print(f"error: the chat endpoint at {args.llm_url} failed: {exc}", file=sys.stderr)
            return 1
        print("\n--- answer ---\n" + answer)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
