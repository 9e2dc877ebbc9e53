"""The indexing pipeline: a rev -> a snapshot in four stages, each a module.

    plan      the tree at a commit, each blob's facts key, the earlier snapshot to start from
    extract   blobs never seen -> blob facts, in worker processes, written by this one
    assemble  the tree's facts -> the snapshot record (marks, imports, manifests, rank, fingerprint)
    commit    the record -> the store, in the one snapshot-commit transaction (indexer/store/commit.py)

`collector` pauses the cyclic garbage collector while they run. `indexer.build.index` drives
them for one rev, `indexer.fleet.batch` for many, and the benchmark probes call the stages
they time.
"""
