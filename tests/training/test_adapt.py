"""`python -m training adapt --index DIR --out RUN` on a small index of a tiny model: the
documents come from the index (through `python -m indexer export`), (title, passage) pairs
train without a negative column, the held-out check's figures before and after are printed and
kept with the run, and RUN is a model folder that `load_encoder` and `rebuild` take, reading as
far as the model it started from."""

from __future__ import annotations

import json

import pytest

TOPICS = ("solar panels and batteries", "football transfers and coaches",
          "central bank interest rates", "new smartphone cameras", "river floods and rain")


def documents(n: int = 240) -> list[dict]:
    docs = []
    for i in range(n):
        topic = TOPICS[i % len(TOPICS)]
        text = (f"Report {i} looks at {topic}. Experts from town {i % 17} explain the latest "
                f"figures. The numbers for {topic} changed in week {i % 9}. Readers asked "
                f"what comes next for {topic.split()[0]}.")
        docs.append({"id": f"doc-{i:03d}", "title": f"What changed for {topic} in town {i % 17}",
                     "text": text})
    return docs


@pytest.fixture(scope="module")
def index(tmp_path_factory, tiny_encoder):
    from indexer import build_index

    out = tmp_path_factory.mktemp("adapt") / "index"
    build_index(documents(), out, model=tiny_encoder, preset="flat")
    return out


@pytest.mark.training
def test_adapt_prints_its_check_and_leaves_a_model_that_reindexes(run_cli, index, tmp_path,
                                                                  monkeypatch):
    monkeypatch.setenv("BERTSCOPE_HOME", str(tmp_path / "home"))
    run = tmp_path / "run"
    done = run_cli("training", "adapt", "--index", str(index), "--out", str(run),
                   "--max-length", "32", "--batch-size", "8", "--no-progress")
    assert done.code == 0, done
    printed = done.out
    assert "self-check before: nDCG@10 " in printed and "self-check after:  nDCG@10 " in printed
    record = json.loads((run / "adapt.json").read_text())
    assert record["pairs"] == {"title": record["documents"] - record["check"]["documents"]}
    assert record["check"]["queries"] == 2 * record["check"]["documents"]  # title + sentence
    assert record["verdict"]["text"] in printed
    assert ("re-index with it" in printed) == record["recommended"]
    metrics = json.loads((run / "metrics.json").read_text())
    assert metrics["adapt"]["verdict"] == record["verdict"]  # what the Training page reads
    assert metrics["stages"][0]["rows"] == sum(record["pairs"].values())  # no negative column

    from encoder import load_encoder

    adapted = load_encoder(run, backend="torch")
    assert adapted.max_length == 64  # trained at 32 tokens, reads as far as the tiny model
    rebuilt = run_cli("indexer", "rebuild", str(index), "--model", str(run), "--out",
                      str(tmp_path / "new"))
    assert rebuilt.code == 0, rebuilt
    from indexer import SemanticIndex

    assert len(SemanticIndex.open(tmp_path / "new")) == len(SemanticIndex.open(index))


def test_adapt_refuses_what_cannot_work_in_one_line(run_cli, index, tmp_path, monkeypatch):
    monkeypatch.setenv("BERTSCOPE_HOME", str(tmp_path / "home"))
    missing = run_cli("training", "adapt", "--index", str(tmp_path / "nowhere"), "--out",
                      str(tmp_path / "run"))
    assert missing.code == 2 and "--index" in missing.error and "nowhere" in missing.error
    bad = run_cli("training", "adapt", "--index", str(index), "--out", str(tmp_path / "run"),
                  "--pairs", "title,headlines")
    assert bad.code == 2
    assert bad.error == ("error: --pairs: unknown source 'headlines'. Valid: title, heading, "
                         "neighbours, ict, simcse")
    corpus = tmp_path / "untitled.jsonl"
    corpus.write_text("".join(json.dumps({"id": f"u{i}", "text": f"Plain text number {i}."})
                              + "\n" for i in range(30)))
    none = run_cli("training", "adapt", "--corpus", str(corpus), "--model", "x", "--out",
                   str(tmp_path / "run"))
    assert none.code == 2 and "carry no titles or headings" in none.error
