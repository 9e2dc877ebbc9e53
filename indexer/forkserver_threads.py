"""The forkserver preload for workers started beside other threads of a host that did not
choose it (`worker_start.for_threads`): the indexer, without the queries compiled, each as
far as its import goes (`forkserver_first.preload`)."""

from indexer.forkserver_first import preload

preload("indexer.build", "indexer.extract.blob")
