"""The Milvus store: the index contract (`indexer.SemanticIndex`) on milvus-lite (embedded, a
`.db` file) or a Milvus server / cluster by URI. Address: `milvus://<.db path or host:port>?
collection=NAME` (`address.py`). See index.py for what runs in Milvus and what differs from a
folder index; location.py for how the door (`indexer.stores`) builds, copies and opens here.

    SemanticIndex.open(address, *, encoder=None, backend=None) -> MilvusIndex
    indexer.build_index(corpus, address, ...)  # builds into Milvus (publish_milvus; on Ray,
                                               # ray_staging: the workers write the rows)
    is_milvus(target); parse_address(target) -> MilvusAddress; milvus_address(uri, collection)
    milvus_target(path) -> the address a `NAME.milvus` pointer file (or an address) names
"""

from .address import (
    POINTER_SUFFIX,
    MilvusAddress,
    is_milvus,
    milvus_address,
    parse_address,
)
from .build import Staging, open_staging, publish_milvus, ray_staging, work_folder
from .connect import CONNECT_TIMEOUT_S, connect
from .index import MilvusIndex
from .location import MilvusLocation
from .pointer import milvus_target
from .schema import PRESETS, index_type
from .sink import ChunkSink, worker_sink

__all__ = ["CONNECT_TIMEOUT_S", "POINTER_SUFFIX", "PRESETS", "ChunkSink", "MilvusAddress",
           "MilvusIndex", "MilvusLocation", "Staging", "connect", "index_type", "is_milvus",
           "milvus_address", "milvus_target", "open_staging", "parse_address", "publish_milvus",
           "ray_staging", "work_folder", "worker_sink"]
