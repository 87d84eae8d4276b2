"""Milvus addresses: parsed with clear errors, told apart from folders, and a server that does
not answer refused with one line within the connect timeout (no hang)."""

from __future__ import annotations

import socket
import time

import pytest

from indexer import IndexerError, SemanticIndex
from indexer.milvus import (
    CONNECT_TIMEOUT_S,
    MilvusAddress,
    connect,
    is_milvus,
    milvus_address,
    parse_address,
)

pytest.importorskip("pymilvus")


def test_addresses_parse(tmp_path):
    lite = parse_address(f"milvus://{tmp_path}/x.db?collection=scifact")
    assert lite == MilvusAddress(f"{tmp_path}/x.db", "scifact") and lite.lite
    assert str(lite) == f"milvus://{tmp_path}/x.db?collection=scifact"
    server = parse_address("milvus://db.example.com?collection=c_1")
    assert server.uri == "http://db.example.com:19530" and not server.lite
    assert parse_address("milvus://https://10.0.0.5:443?collection=c").uri == \
        "https://10.0.0.5:443"
    assert milvus_address("127.0.0.1:19531", "c").uri == "http://127.0.0.1:19531"
    assert is_milvus("milvus://x.db?collection=c") and not is_milvus(tmp_path)
    assert not is_milvus("indexes/bbc-news")


@pytest.mark.parametrize("bad, said", [
    ("milvus://x.db", "collection=NAME"),
    ("milvus://x.db?collection=", "collection=NAME"),
    ("milvus://x.db?collection=a&collection=b", "collection=NAME"),
    ("milvus://x.db?collection=1abc", "not a Milvus collection name"),
    ("milvus://x.db?collection=a-b", "not a Milvus collection name"),
    ("milvus://x.db?collection=c&token=t", "unknown parameter 'token'"),
    ("milvus://host:port:9?collection=c", "neither a .db path"),
    ("milvus://?collection=c", "give a .db path"),
    ("indexes/bbc", "not a Milvus address"),
])
def test_bad_addresses_say_what_is_wrong(bad, said):
    with pytest.raises(IndexerError, match=said):
        parse_address(bad)


def test_a_missing_db_file_is_not_created_by_open(tmp_path):
    with pytest.raises(FileNotFoundError, match="does not exist"):
        SemanticIndex.open(f"milvus://{tmp_path}/none.db?collection=c")
    assert not (tmp_path / "none.db").exists()


def test_a_closed_port_is_refused_at_once():
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    clock = time.monotonic()
    with pytest.raises(IndexerError, match=f"cannot reach Milvus at http://127.0.0.1:{port}"):
        connect(milvus_address(f"127.0.0.1:{port}", "c"), timeout=3)
    assert time.monotonic() - clock < 3 + 2


def test_a_server_that_never_answers_is_refused_within_the_timeout():
    """A port that accepts connections and says nothing (a hung server, a firewall that
    swallows packets, the wrong service): refused after the timeout, not waited on forever."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        port = listener.getsockname()[1]
        clock = time.monotonic()
        with pytest.raises(IndexerError) as caught:
            connect(parse_address(f"milvus://127.0.0.1:{port}?collection=c"), timeout=2)
        waited = time.monotonic() - clock
    message = str(caught.value)
    assert "\n" not in message and "waited at most 2 s" in message
    assert 1.5 < waited < 2 + 3


def test_open_and_the_cli_refuse_an_unreachable_server_in_one_line(run_cli, monkeypatch):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    assert CONNECT_TIMEOUT_S == 10  # the documented default
    with pytest.raises(IndexerError, match="waited at most 10 s"):
        SemanticIndex.open(f"milvus://127.0.0.1:{port}?collection=c")
    monkeypatch.setenv("BERTSCOPE_MILVUS_TIMEOUT_S", "2.5")
    with pytest.raises(IndexerError, match="waited at most 2.5 s"):
        SemanticIndex.open(f"milvus://127.0.0.1:{port}?collection=c")
    monkeypatch.setenv("BERTSCOPE_MILVUS_TIMEOUT_S", "soon")
    with pytest.raises(IndexerError, match="give seconds"):
        SemanticIndex.open(f"milvus://127.0.0.1:{port}?collection=c")
    monkeypatch.delenv("BERTSCOPE_MILVUS_TIMEOUT_S")
    run = run_cli("indexer", "info", f"milvus://127.0.0.1:{port}?collection=c")
    assert run.code == 1 and run.error.startswith(f"error: cannot reach Milvus at "
                                                  f"http://127.0.0.1:{port}")


def test_a_db_file_another_process_holds_is_refused_saying_so(tmp_path):
    import subprocess
    import sys

    db = tmp_path / "held.db"
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, pymilvus; c = pymilvus.MilvusClient(sys.argv[1]); "
         "print('ready', flush=True); sys.stdin.read()", str(db)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "ready"
        with pytest.raises(IndexerError, match="another process may hold it"):
            connect(parse_address(f"milvus://{db}?collection=c"))
    finally:
        holder.communicate("", timeout=30)


def test_a_pointer_file_names_a_milvus_index(tmp_path):
    from indexer.milvus import milvus_target

    pointer = tmp_path / "news.milvus"
    pointer.write_text("milvus:///data/news.db?collection=news\n", encoding="utf-8")
    assert milvus_target(pointer) == "milvus:///data/news.db?collection=news"
    assert milvus_target("milvus://h:1?collection=c") == "milvus://h:1?collection=c"
    assert milvus_target(tmp_path) is None and milvus_target(tmp_path / "absent.milvus") is None
    pointer.write_text("indexes/news\n", encoding="utf-8")
    with pytest.raises(IndexerError, match="should hold one Milvus address"):
        SemanticIndex.open(pointer)
