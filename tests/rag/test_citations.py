"""Citations everywhere: chunks of a user's files reach the RAG context as
"[1] reports/annual-2023.pdf, p. 2" and "[n] notes.md, § Notes > Part 1", through the
library, the service's /context, and the LangChain / LlamaIndex retrievers' metadata."""

from __future__ import annotations

import re

import pytest

from bench.kit.docwriters import write_markdown, write_pdf
from indexer import ChunkingConfig, SemanticIndex, build_index
from rag import context_for

pytest.importorskip("reportlab")

TEXT = "the harvest report counts apples and pears from every orchard in the valley."


@pytest.fixture(scope="module")
def built(tmp_path_factory, tiny_encoder):
    root = tmp_path_factory.mktemp("files")
    (root / "reports").mkdir()
    write_pdf(root / "reports" / "annual-2023.pdf", [(f"Part {i}", f"{TEXT} ({i})")
                                                     for i in range(3)])
    write_markdown(root / "notes.md", [(f"Part {i}", f"{TEXT} [{i}]") for i in range(2)],
                   title="Notes")
    out = tmp_path_factory.mktemp("idx") / "files"
    build_index(str(root), out, model=tiny_encoder, preset="flat",
                chunking=ChunkingConfig(chunk_tokens=64, overlap=8))
    return out


def heads(prompt: str) -> list[str]:
    return re.findall(r"^\[\d+\] .*$", prompt, flags=re.M)


def check_heads(found: list[str]) -> None:
    assert found
    for head in found:
        assert re.fullmatch(r"\[\d+\] (reports/annual-2023\.pdf, p\. [123]|notes\.md, "
                            r"§ Notes( > Part [01])?)", head), head
    assert any(", p. " in h for h in found) and any(", § " in h for h in found)


def test_library_context_cites_page_and_section(built, tiny_encoder):
    index = SemanticIndex.open(built, encoder=tiny_encoder)
    ctx = context_for(index, "apples and pears", max_tokens=2000, k=20, max_chunks_per_doc=5)
    check_heads(heads(ctx.prompt))
    assert [c.cite for c in ctx.chunks] == [h.split("] ", 1)[1] for h in heads(ctx.prompt)]


def test_service_context_cites_page_and_section(built, tmp_path):
    import shutil

    from fastapi.testclient import TestClient

    from service.app import create_app
    from service.config import ServiceConfig

    root = tmp_path / "root"
    shutil.copytree(built, root / "files")
    with TestClient(create_app(ServiceConfig(index_root=root))) as api:
        got = api.post("/v1/indexes/files/context",
                       json={"query": "apples and pears", "max_tokens": 2000, "k": 20,
                             "max_chunks_per_doc": 5}).json()
    check_heads(heads(got["prompt"]))
    for chunk in got["chunks"]:
        assert chunk["source"] == chunk["metadata"]["source"] == chunk["doc_id"]


def test_retrievers_carry_source_page_and_section(built, tiny_encoder):
    pytest.importorskip("langchain_core")
    pytest.importorskip("llama_index.core")
    from rag import langchain, llamaindex

    index = SemanticIndex.open(built, encoder=tiny_encoder)
    docs = langchain.BertscopeRetriever.from_index(index, k=10).invoke("apples")
    nodes = llamaindex.BertscopeRetriever(index, k=10).retrieve("apples")
    for meta in [d.metadata for d in docs] + [n.node.metadata for n in nodes]:
        assert meta["source"] == meta["doc_id"]
        if meta["source"].endswith(".pdf"):
            assert meta["page"] in (1, 2, 3) and "section" not in meta
        else:
            assert meta["section"].startswith("Notes") and "page" not in meta
