"""The forkserver preload of a host that chose it (`worker_start.from_forkserver`): the
indexer, and every language's extraction set up (`indexer.extract.prepared`), each as far as
its import goes (`forkserver_first.preload`)."""

from indexer.forkserver_first import preload

preload("indexer.build", "indexer.extract.prepared")
