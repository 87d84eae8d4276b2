"""Long-lived milvus-lite connections: a client idle for minutes (a build encoding, an index
nobody searched) must not draw GOAWAY `too_many_pings` from milvus-lite's gRPC server, nor print
gRPC's error lines. Time is shortened, not waited: the server allows a ping only every 2 s
(gRPC's default is 5 minutes), and the clients ping every 0.2 s when they ping at all. A
control with pymilvus's own options at that scale shows the server bites; the product's
client, through a real build whose encoding takes 5 s and an idle index, draws nothing."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("milvus_lite")

STRICT_SERVER = textwrap.dedent('''
    import sys, time
    from concurrent import futures
    import grpc
    import milvus_lite.adapter.grpc.server as server
    from milvus_lite.adapter.grpc.servicer import MilvusServicer
    from pymilvus.grpc_gen import milvus_pb2_grpc

    def strict(db, max_workers):  # milvus-lite's server, its ping window cut from 300 s to 2 s
        s = grpc.server(futures.ThreadPoolExecutor(max_workers=max_workers), options=[
            ("grpc.http2.min_ping_interval_without_data_ms", 2000)])
        milvus_pb2_grpc.add_MilvusServiceServicer_to_server(MilvusServicer(db), s)
        return s

    server._build_server = strict
    db, model, case = sys.argv[1:4]
''')

CONTROL = STRICT_SERVER + textwrap.dedent('''
    from pymilvus import MilvusClient
    client = MilvusClient(uri=db, grpc_options={  # pymilvus's defaults, 10 s scaled to 0.2 s
        "grpc.keepalive_time_ms": 200, "grpc.keepalive_timeout_ms": 100,
        "grpc.keepalive_permit_without_calls": 1, "grpc.http2.max_pings_without_data": 0})
    client.list_collections()
    time.sleep(5)
    client.list_collections()
''')

PRODUCT = STRICT_SERVER + textwrap.dedent('''
    from indexer import SemanticIndex, build_index
    docs = [{"id": f"d{i}", "text": f"cats purr on the sofa in story {i}."} for i in range(40)]
    slept = []

    def slow_encoding(p):  # the client opened before encoding sits idle for 5 s
        if p.stage == "encode" and not slept:
            slept.append(time.sleep(5))

    address = f"milvus://{db}?collection=c"
    build_index(docs, address, model=model, preset="flat", progress=slow_encoding)
    index = SemanticIndex.open(address)
    time.sleep(5)  # an index nobody searched
    print("hits", len(index.search("cats", k=3)), "documents", len(index))
''')


@pytest.mark.slow  # two processes that wait out milvus-lite's keepalive: 28 s of the quick lane
@pytest.mark.parametrize("case", ["control", "product"])
def test_idle_milvus_lite_clients_draw_no_goaway(case, tmp_path, tiny_model_dir):
    script = CONTROL if case == "control" else PRODUCT
    run = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path / "k.db"), str(tiny_model_dir), case],
        capture_output=True, text=True, timeout=180,
        env={**__import__("os").environ, "BERTSCOPE_MILVUS_KEEPALIVE_S": "0.2",
             "BERTSCOPE_HOME": str(tmp_path / "home"), "PYTHONPATH": str(REPO)})
    noise = [line for line in run.stderr.splitlines() if "too_many_pings" in line
             or "GOAWAY" in line or "chttp2" in line]
    if case == "control":  # the shortened server does refuse a client that pings while idle
        assert run.returncode == 0 and noise, run.stderr
    else:
        assert run.returncode == 0, run.stderr
        assert not noise, "\n".join(noise)
        assert "hits 3 documents 40" in run.stdout


REPO = __import__("pathlib").Path(__file__).resolve().parents[3]
