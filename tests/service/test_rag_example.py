"""The example script: question → context → prompt, in-process and through the service, and
with --llm-url sent to an OpenAI-compatible chat endpoint (a fake one here, which echoes)."""

from __future__ import annotations

from conftest import SUBJECTS, serve_in_thread
from fastapi import FastAPI

from rag.example import main


def test_the_prompt_in_process_and_through_the_service(server, capsys):
    assert main([SUBJECTS[2], "--index", str(server.root / "tiny"), "--max-tokens", "80"]) == 0
    local = capsys.readouterr().out
    assert "Sources:\n[1] Note" in local and local.rstrip().endswith("Answer:")
    assert f"Question: {SUBJECTS[2]}" in local
    code = main([SUBJECTS[2], "--url", server.url, "--name", "tiny", "--max-tokens", "80"])
    assert code == 0 and capsys.readouterr().out == local


def test_llm_url_sends_the_prompt_to_a_chat_endpoint(server, capsys):
    chat = FastAPI()
    seen = []
    chat.get("/health")(lambda: {"status": "ok"})  # what serve_in_thread waits for

    @chat.post("/v1/chat/completions")
    def complete(body: dict) -> dict:
        seen.append(body)
        said = body["messages"][0]["content"]
        return {"choices": [{"message": {"role": "assistant",
                                         "content": f"echo of {len(said)} characters [1]"}}]}

    url, srv, thread = serve_in_thread(chat)
    try:
        code = main(["rain", "--url", server.url, "--name", "tiny", "--llm-url", f"{url}/v1",
                     "--llm-model", "m"])
    finally:
        srv.should_exit = True
        thread.join(timeout=10)
    out = capsys.readouterr().out
    assert code == 0 and seen[0]["model"] == "m"
    prompt = seen[0]["messages"][0]["content"]
    assert prompt in out and f"--- answer ---\necho of {len(prompt)} characters [1]" in out


def test_a_missing_index_is_one_error_line(tmp_path, capsys):
    assert main(["x", "--index", str(tmp_path / "none")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "Traceback" not in err
