"""Sync's `--access` rules (issue 50): a glob over each file's path relative to the folder gives
its readers, the last matching rule wins, a file no rule matches is every reader's, front
matter never sets `access`; a changed rule rewrites exactly the files it changes, and a run
that forgets the rules is refused rather than making restricted files public."""

from __future__ import annotations

import pytest

from indexer import IndexerError, SemanticIndex, sync_folder
from indexer.access_rules import access_for, parse_rule, parse_rules

RULES = ["**=staff", "hr/**=hr", "public/**="]
FILES = {"hr/pay.md": "# Pay\n\nsalaries rise in spring for the whole payroll team.\n",
         "public/news.md": "---\naccess: everyone\n---\n# News\n\nthe canteen opens at noon.\n",
         "notes.md": "# Notes\n\nstaff meeting minutes about the canteen menu.\n"}


def target(store: str, tmp_path) -> str:
    if store == "milvus":
        pytest.importorskip("milvus_lite")
        return f"milvus://{tmp_path}/s.db?collection=s"
    return str(tmp_path / "idx")


@pytest.fixture
def folder(tmp_path):
    root = tmp_path / "docs"
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


def test_rules_parse_and_the_last_match_wins():
    rules = parse_rules(RULES)
    assert access_for("hr/pay.md", rules) == ["hr"]
    assert access_for("hr/deep/x.pdf", rules) == ["hr"]
    assert access_for("public/a.md", rules) is None and access_for("a.md", rules) == ["staff"]
    assert access_for("a.md", parse_rules(["hr/**=hr"])) is None  # no rule: every reader
    assert parse_rule("a=b/**= x , y").names == ("x", "y")  # the last '=' splits
    for bad, said in (("hr", "has no '='"), ("=hr", "no glob"), ("hr/**=a,,b", "empty name"),
                      ("x=" + "n" * 300, "at most 200")):
        with pytest.raises(ValueError, match=said):
            parse_rule(bad)


@pytest.mark.parametrize("store", ["folder", "milvus"])
def test_sync_gives_each_file_the_readers_its_rule_says(store, folder, tmp_path, tiny_encoder):
    where = target(store, tmp_path)
    first = sync_folder(folder, where, model=tiny_encoder, preset="flat", access=RULES)
    assert first.created and sorted(first.added) == sorted(FILES)
    index = SemanticIndex.open(where, encoder=tiny_encoder)
    meta = {d.id: d.metadata for d in index.all_documents()}
    assert meta["hr/pay.md"]["access"] == ["hr"] and meta["notes.md"]["access"] == ["staff"]
    assert "access" not in meta["public/news.md"]  # its front matter's 'everyone' ignored
    assert any("'access'" in note for rel, note in first.notes if rel == "public/news.md")
    seen = {h.doc_id for h in index.search("salaries payroll canteen staff", k=10,
                                           mode="lexical", readers=["staff"])}
    assert seen == {"notes.md", "public/news.md"}
    with pytest.raises(KeyError):
        index.document("hr/pay.md", readers=["staff"])
    index.close()
    again = sync_folder(folder, where, model=tiny_encoder, access=RULES)
    assert again.unchanged == 3 and not again.updated
    # a changed rule rewrites the files it changes, and only those
    moved = sync_folder(folder, where, model=tiny_encoder, access=[*RULES, "hr/**=hr,boss"])
    assert moved.updated == ["hr/pay.md"] and moved.unchanged == 2
    index = SemanticIndex.open(where, encoder=tiny_encoder)
    assert index.document("hr/pay.md", readers=["boss"]).metadata["access"] == ["boss", "hr"]
    index.close()
    with pytest.raises(IndexerError, match="give the rules again"):
        sync_folder(folder, where, model=tiny_encoder)
    public = sync_folder(folder, where, model=tiny_encoder, access=["**="])
    assert sorted(public.updated) == ["hr/pay.md", "notes.md"]
    index = SemanticIndex.open(where, encoder=tiny_encoder)
    assert index.counts(readers=[])["documents"] == 3
    index.close()


def test_the_cli_takes_access_rules_and_refuses_bad_ones(folder, tmp_path, tiny_model_dir,
                                                         run_cli):
    out = tmp_path / "cli-idx"
    done = run_cli("indexer", "sync", folder, out, "--model", tiny_model_dir, "--index", "flat",
                   "--access", "hr/**=hr", "--access", "public/**=")
    assert done.code == 0, done
    assert SemanticIndex.open(out).document("hr/pay.md").metadata["access"] == ["hr"]
    bad = run_cli("indexer", "sync", folder, out, "--access", "hr/**")
    assert bad.code == 2 and "--access" in bad.err and "has no '='" in bad.err, bad
    forgot = run_cli("indexer", "sync", folder, out)
    assert forgot.code == 1 and "give the rules again" in forgot.error, forgot
