"""The clients with `--keys` (issue 50): `ServiceClient` and the LangChain and LlamaIndex
retrievers send the caller's key on reads too (`api_key=`, else BERTSCOPE_API_KEY), over a
real server in a thread."""

from __future__ import annotations

import pytest

from common.keys.keyfile import write_keys
from common.keys.principals import Keyring, Principal, hash_key
from rag.client import ServiceClient, ServiceError

KEY = "client-key-0123456789"


@pytest.fixture
def url(thread_server, tmp_path):
    path = tmp_path / "keys.toml"
    write_keys(path, Keyring((Principal("app", (hash_key(KEY, n=16, r=1, p=1),),
                                        scopes=(("tiny", "read"),)),)))
    served, _ = thread_server(keys_file=path)
    return served


def test_the_clients_send_the_key_on_reads(url, monkeypatch):
    from rag.langchain import BertscopeRetriever as LangChainRetriever
    from rag.llamaindex import BertscopeRetriever as LlamaIndexRetriever

    monkeypatch.delenv("BERTSCOPE_API_KEY", raising=False)
    with pytest.raises(ServiceError) as refused:
        ServiceClient(url).search("tiny", "cat")
    assert refused.value.status == 401
    assert [i["name"] for i in ServiceClient(url, api_key=KEY).indexes()] == ["tiny"]
    with pytest.raises(ServiceError) as outside:
        ServiceClient(url, api_key=KEY).search("writable", "cat")
    assert outside.value.status == 403
    docs = LangChainRetriever.from_service(url, "tiny", api_key=KEY, k=3).invoke("cat")
    assert len(docs) == 3
    nodes = LlamaIndexRetriever.from_service(url, "tiny", api_key=KEY, k=2).retrieve("cat")
    assert len(nodes) == 2
    monkeypatch.setenv("BERTSCOPE_API_KEY", KEY)  # the environment's key, when none is given
    assert len(LangChainRetriever.from_service(url, "tiny", k=1).invoke("cat")) == 1
    assert len(ServiceClient(url).search("tiny", "cat", k=2)) == 2
