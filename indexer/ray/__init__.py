"""The Ray build (`build_index(..., engine="ray")`, `--engine ray`): `cluster` joins or starts
Ray, `encode` chunks and embeds shards of documents on Ray workers, `ivf` keeps their vectors in
shard files and builds `ivfpq-disk` from them. Imported only for a Ray build: a local build never
loads this package.

On a cluster, the index folder must be a path every node sees (a shared filesystem) and every
node needs this repository and its requirements at the same path.
"""
