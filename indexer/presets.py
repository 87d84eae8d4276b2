"""Named FAISS presets built through `index_factory` (cosine = inner product on unit vectors),
each wrapped in IDMap2 for stable int64 ids, and the per-query knobs each one takes."""

from __future__ import annotations

import math
from dataclasses import dataclass

import faiss
import numpy as np

from .diskivf import DiskIVFPQ, DiskParams

PRESETS = ("flat", "hnsw", "ivf", "ivfpq", "ivfpq-disk", "sq8", "auto")
KNOBS = ("nprobe", "efSearch", "rerank")
HNSW_M = 32
# graph quality and search depth, chosen on the scale corpus for recall@10 >= 0.95 at the lowest
# search cost (bench/results/scale-hnsw-100000.md); Milvus's HNSW is built with 200 too
HNSW_EF_CONSTRUCTION = 200
HNSW_EF_SEARCH = 256
RERANK = 8  # ivfpq: exact re-ranking of rerank * k shortlisted vectors
DISK_NPROBE, DISK_RERANK = 16, 16  # ivfpq-disk: cheaper nprobe (nlist/64), a longer shortlist
TRAIN_PER_LIST = 64  # k-means samples per inverted list (fast at 1M)


@dataclass(frozen=True)
class Spec:
    preset: str
    factory: str  # the index_factory string
    knobs: dict[str, int]  # default search knobs


def auto_preset(n: int) -> str:
    """Exact search while it is cheap; a graph up to a few million vectors; compressed beyond."""
    if n <= 20_000:
        return "flat"
    if n <= 2_000_000:
        return "hnsw"
    return "ivfpq"


def nlist_for(n: int) -> int:
    """Inverted lists: ~4·sqrt(n), with at least 39 training points per list."""
    return max(1, min(int(4 * math.sqrt(max(n, 1))), n // 39))


def spec_for(preset: str, n: int, dim: int) -> Spec:
    """The FAISS spec of `preset` for `n` vectors of `dim` dimensions."""
    if preset not in PRESETS:
        raise ValueError(f"Invalid index preset {preset!r}. Valid: {', '.join(PRESETS)}")
    if preset == "auto":
        preset = auto_preset(n)
    nlist = nlist_for(n)
    if preset == "flat":
        return Spec(preset, "IDMap2,Flat", {})
    if preset == "sq8":
        return Spec(preset, "IDMap2,SQ8", {})
    if preset == "hnsw":
        return Spec(preset, f"IDMap2,HNSW{HNSW_M},Flat", {"efSearch": HNSW_EF_SEARCH})
    nprobe = min(nlist, max(16, nlist // 8))  # recall@10 ≈ 0.95+ on real minilm vectors
    if preset == "ivf":
        return Spec(preset, f"IDMap2,IVF{nlist},Flat", {"nprobe": nprobe})
    # m sub-quantisers of 8 bits (fewer bits where training points are scarce)
    m = next(m for m in (dim // 8, dim // 4, dim // 2, dim) if m and dim % m == 0)
    bits = 8 if n >= 256 * 39 else max(4, min(8, int(math.log2(max(n // 39, 16)))))
    if n < 2**bits:
        raise ValueError(f"{preset} needs at least {2**bits} vectors, got {n}: use preset flat")
    if preset == "ivfpq-disk":  # lists and re-rank vectors on disk (see diskivf)
        return Spec(preset, f"IVF{nlist},PQ{m}x{bits}",
                    {"nprobe": min(nlist, max(DISK_NPROBE, nlist // 64)), "rerank": DISK_RERANK})
    factory = f"IDMap2,IVF{nlist},PQ{m}x{bits},RFlat"
    return Spec(preset, factory, {"nprobe": nprobe, "rerank": RERANK})


def create(spec: Spec, dim: int) -> faiss.Index | DiskIVFPQ:
    if spec.preset == "ivfpq-disk":
        return DiskIVFPQ.create(spec.factory, dim)
    index = faiss.index_factory(dim, spec.factory, faiss.METRIC_INNER_PRODUCT)
    hnsw = find_inner(index, faiss.IndexHNSW)
    if hnsw is not None:
        hnsw.hnsw.efConstruction = HNSW_EF_CONSTRUCTION
    ivfpq = find_inner(index, faiss.IndexIVFPQ)
    if ivfpq is not None:
        # polysemous training serves Hamming-distance filtering, which search does not use;
        # it took ~97% of the build time (measured: 530 s → seconds for 20k vectors)
        ivfpq.do_polysemous_training = False
    return index


def train(index: faiss.Index | DiskIVFPQ, vectors: np.ndarray, seed: int = 0) -> None:
    """Train the coarse quantiser (k-means, seeded) and PQ of an IVF index on `vectors`."""
    ivf = find_inner(index, faiss.IndexIVF)
    if ivf is not None:
        ivf.cp.seed = seed
        ivf.cp.min_points_per_centroid = 1
        ivf.cp.max_points_per_centroid = TRAIN_PER_LIST  # k-means on ≤ 64·nlist samples
    if len(vectors) == 0:
        raise ValueError("cannot train an index on 0 vectors")
    need = training_needs(index)
    if len(vectors) < need:  # FAISS would say "number of training points (5) should be ..."
        raise ValueError(f"this index has no trained quantiser and {len(vectors)} vectors are "
                         f"too few to train one (it takes {need}: one per inverted list and "
                         f"PQ centroid): add at least {need} chunks at once, or rebuild the "
                         "index with preset flat")
    index.train(vectors)


def training_needs(index: faiss.Index | DiskIVFPQ) -> int:
    """The fewest vectors that train `index`: one per inverted list, one per PQ centroid."""
    ivf = find_inner(index, faiss.IndexIVF)
    if ivf is None:
        return 1
    pq = find_inner(index, faiss.IndexIVFPQ)
    return max(int(ivf.nlist), int(pq.pq.ksub) if pq is not None else 1)


def emptied(index: faiss.Index | DiskIVFPQ) -> faiss.Index | DiskIVFPQ:
    """A copy of `index` without its vectors: its training (quantiser, codebooks) kept, so that
    an index whose documents were (nearly) all deleted still takes new ones."""
    if isinstance(index, DiskIVFPQ):
        return index.emptied()
    copy = faiss.deserialize_index(faiss.serialize_index(index))
    copy.reset()
    return copy


def train_and_add(index: faiss.Index, vectors: np.ndarray, ids: np.ndarray, seed: int = 0) -> None:
    """Train (k-means / PQ, seeded) when needed, then add `vectors` under `ids`."""
    if not index.is_trained:
        train(index, vectors, seed)
    if len(vectors):
        index.add_with_ids(vectors, ids)


def add_rows(index, rows, ids: np.ndarray, progress=lambda done: None, seed: int = 0) -> None:
    """Train `index` when needed, on a sample of `rows` (`indexer.vector_rows.VectorRows`) as
    large as training uses (all of them when fewer), then add them a batch at a time."""
    if not index.is_trained:
        ivf = find_inner(index, faiss.IndexIVF)
        want = train_sample_size(int(ivf.nlist)) if ivf is not None else 4 * 65_536
        train(index, rows.sample(want, seed), seed)
    for first, batch in rows.batches():
        index.add_with_ids(batch, ids[first:first + len(batch)])
        progress(first + len(batch))


def train_sample_size(nlist: int) -> int:
    """Vectors that training uses at most (k-means: 64 per list; PQ: 256 per centroid of 8
    bits): faiss subsamples larger sets to this, so such a sample trains as well as all."""
    return max(TRAIN_PER_LIST * nlist, 256 * 256)


def find_inner(index: faiss.Index, cls):
    """The first sub-index of type `cls` under IDMap / Refine wrappers, or None."""
    index = getattr(index, "base", index)  # a folder version's base + delta: the base
    seen = index.ivf if isinstance(index, DiskIVFPQ) else index
    for _ in range(4):
        seen = faiss.downcast_index(seen)
        if isinstance(seen, cls):
            return seen
        inner = getattr(seen, "index", None) or getattr(seen, "base_index", None)
        if inner is None:
            return None
        seen = inner
    return None


def check_knobs(spec: Spec, knobs: dict[str, int]) -> dict[str, int]:
    """Defaults overridden by `knobs`; errors name the knobs this preset takes."""
    for name, value in knobs.items():
        if name not in spec.knobs:
            valid = ", ".join(spec.knobs) or "none"
            raise ValueError(f"search knob {name!r} does not apply to preset {spec.preset!r}. "
                             f"Valid knobs: {valid} (all: {', '.join(KNOBS)})")
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"search knob {name!r} must be a positive integer, got {value!r}")
    return {**spec.knobs, **knobs}


def exhaustive_knobs(spec: Spec, index: faiss.Index) -> dict[str, int]:
    """Knobs that make the preset visit every stored vector (the fallback of filtered search)."""
    out = dict(spec.knobs)
    if "nprobe" in out:
        out["nprobe"] = find_inner(index, faiss.IndexIVF).nlist
    if "efSearch" in out:
        out["efSearch"] = max(out["efSearch"], int(index.ntotal))
    if "rerank" in out:
        out["rerank"] = max(out["rerank"], 64)
    return out


def search_params(spec: Spec, knobs: dict[str, int], sel: faiss.IDSelector | None,
                  index: faiss.Index):
    """faiss SearchParameters for the knobs, restricted to the external ids `sel` accepts."""
    if spec.preset == "ivfpq" and sel is not None:
        # IndexRefine passes only base_index_params down, so IDMap2's own id translation is
        # lost: translate here (IDMap2 then leaves an IDSelectorTranslated as it is).
        outer = sel
        sel = faiss.IDSelectorTranslated(faiss.downcast_index(index).id_map, outer)
        sel._outer = outer
    if spec.preset == "ivfpq-disk":
        return DiskParams(knobs["nprobe"], knobs["rerank"], sel)
    if spec.preset == "hnsw":
        return faiss.SearchParametersHNSW(efSearch=knobs["efSearch"], sel=sel)
    if spec.preset == "ivf":
        return faiss.SearchParametersIVF(nprobe=knobs["nprobe"], sel=sel)
    if spec.preset == "ivfpq":
        base = faiss.SearchParametersIVF(nprobe=knobs["nprobe"], sel=sel)
        params = faiss.IndexRefineSearchParameters(k_factor=float(knobs["rerank"]),
                                                   base_index_params=base, sel=sel)
        params._base = base  # keep the Python object alive as long as params
        return params
    return faiss.SearchParameters(sel=sel) if sel is not None else None
