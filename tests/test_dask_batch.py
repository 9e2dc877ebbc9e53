"""`rennet batch --engine dask`: jobs indexed on the workers of a real LocalCluster (2 worker
processes on loopback), moved as signed bundles, imported into the central store."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager

import dask
import distributed
import pytest

from corpora.fixtures import build_history, build_polyglot
from corpora.synthetic import generate
from indexer.fleet import batch, dask_engine
from indexer.fleet.batch import JobSpec
from indexer.store.database import Store
from tests import dask_tasks


@contextmanager
def _local_cluster() -> Iterator[str]:
    """A cluster of two worker processes, as one deployed with `dask worker` nannies: a nanny
    restarts its worker, however long the start takes. A LocalCluster closes for good the nanny
    of a worker removed from the scheduler and not back within
    `distributed.deploy.lost-worker-timeout` (15 s), read as each worker is removed: on a loaded
    host a worker killed on purpose took longer to start again, its nanny was closed, and with
    both gone the next run found no worker for its 120 s."""
    with dask.config.set({"distributed.deploy.lost-worker-timeout": "1 day"}):
        with dask.config.set({"distributed.scheduler.allowed-failures": 0}):
            local = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                             dashboard_address="127.0.0.1:0")  # any free port: xdist runs two
        try:
            yield local.scheduler_address
        finally:
            local.close()


@pytest.fixture(scope="module")
def cluster():
    with _local_cluster() as address:
        yield address


@pytest.fixture
def own_cluster():
    """A cluster of its own for a test that kills workers on purpose: the module's other tests
    should not inherit one whose workers are still starting again."""
    with _local_cluster() as address:
        yield address


@pytest.fixture(scope="module")
def repos(tmp_path_factory):
    root = tmp_path_factory.mktemp("dask-repos")
    history = build_history(root / "history")
    polyglot = build_polyglot(root / "polyglot")
    generate(root / "synthetic", files=40, seed=3, follow_ups=2)
    generate(root / "long", files=40, seed=5, follow_ups=11)  # 12 commits: two streams of six
    return {"history": history, "polyglot": polyglot, "synthetic": str(root / "synthetic"), "long": str(root / "long")}


def _jobs(repos) -> list[JobSpec]:
    return (batch.range_jobs(str(repos["history"].path), "HEAD~3..HEAD")
            + [JobSpec(str(repos["polyglot"].path), "v1"), JobSpec(str(repos["polyglot"].path), "main")]
            + batch.range_jobs(repos["synthetic"], "HEAD"))


def test_dask_gives_the_local_engines_snapshots(cluster, repos, tmp_path):
    specs = _jobs(repos)
    local = batch.run(Store.open(tmp_path / "local"), specs, workers=2)
    central = Store.open(tmp_path / "central")
    lines = []
    remote = dask_engine.run(central, specs, cluster, on_result=lines.append)
    assert [j.ok for j in local.jobs] == [True] * len(specs)
    assert [(j.oid, j.fingerprint) for j in remote.jobs] == [(j.oid, j.fingerprint) for j in local.jobs]
    assert [j.oid for j in lines] == [j.oid for j in remote.jobs]  # results come in job order
    # The central store answers as the local one does: the snapshot bytes are the same.
    from indexer.api import snapshot

    for spec in specs[:2]:
        a = b"".join(snapshot(spec.repo, spec.rev, store=Store.open(tmp_path / "local"),
                              index_if_absent=False).canonical_lines())
        b = b"".join(snapshot(spec.repo, spec.rev, store=central, index_if_absent=False).canonical_lines())
        assert a == b
    # A rerun is a resume: every job's snapshot is in the central store, nothing is sent.
    again = dask_engine.run(central, specs, cluster, task=dask_tasks.always_dies)
    assert {j.status for j in again.jobs} == {"skipped_existing"}
    # and counts the blob facts it reuses as the local engine counts a skipped job's
    local_again = batch.run(Store.open(tmp_path / "local"), specs, workers=1)
    assert [j.reused_blobs for j in again.jobs] == [j.reused_blobs for j in local_again.jobs]
    assert all(j.reused_blobs > 0 for j in again.jobs)


def test_bundles_leave_out_the_facts_the_central_store_holds(cluster, repos, tmp_path):
    specs = batch.range_jobs(str(repos["history"].path), "HEAD~3..HEAD")
    central = Store.open(tmp_path / "central")
    dask_engine.run(central, specs[:1], cluster)  # the central store holds the first commit
    log = tmp_path / "carried.log"
    remote = dask_engine.run(central, specs, cluster, task=dask_tasks.records_carried(str(log)))
    local = batch.run(Store.open(tmp_path / "local"), specs, workers=1)
    assert [(j.oid, j.fingerprint) for j in remote.jobs] == [(j.oid, j.fingerprint) for j in local.jobs]
    assert [j.status for j in remote.jobs] == ["skipped_existing", "indexed", "indexed"]
    carried = [tuple(map(int, line.split()[1:3])) for line in log.read_text().splitlines()]
    # the later commits move a module (same blob, same key) and change the README: each bundle
    # carries at most that one blob's facts, and the driver listed the ~100 others as held
    assert len(carried) == 2 and sorted(facts for facts, _ in carried) == [0, 1]
    assert all(held >= 100 for _, held in carried)


def test_a_range_goes_to_both_workers_in_runs_of_consecutive_commits(cluster, repos, tmp_path):
    specs = batch.range_jobs(repos["long"], "HEAD")
    local = batch.run(Store.open(tmp_path / "local"), specs, workers=1)
    ran, carried = tmp_path / "ran.log", tmp_path / "carried.log"
    lines = []
    remote = dask_engine.run(Store.open(tmp_path / "central"), specs, cluster, on_result=lines.append,
                             task=dask_tasks.records_workers(str(ran)))
    assert [(j.oid, j.fingerprint) for j in remote.jobs] == [(j.oid, j.fingerprint) for j in local.jobs]
    assert [j.oid for j in lines] == [s.rev for s in specs]  # each job's line once, in job order
    tasks = [line.split() for line in ran.read_text().splitlines()]
    assert len({worker for worker, *_ in tasks}) == 2
    order = [s.rev for s in specs]
    for _, *revs in tasks:  # a task is a run of consecutive commits
        first = order.index(revs[0])
        assert revs == order[first:first + len(revs)] and len(revs) > 1
    # Each bundle after a task's first leaves out the facts of the one before it: it carries the
    # few blobs its commit changed, not the tree.
    dask_engine.run(Store.open(tmp_path / "again"), specs, cluster, task=dask_tasks.records_carried(str(carried)))
    rows = [line.split() for line in carried.read_text().splitlines()]
    later = [int(facts) for oid, facts, _, first in rows if oid != first]
    assert later and max(later) <= 5
    assert sum(int(facts) for oid, facts, _, first in rows if oid == first) >= 40  # a stream's start: whole


def _holds(store: Store) -> tuple[set[str], dict[str, str]]:
    """The commits the store links its repositories to, and each pinned rev's commit."""
    from indexer.store.records import PIN_PREFIX, pin_parts, repo_key_parts

    with store.env.begin(db=store.repos) as txn:
        keys = [(bytes(k), bytes(v)) for k, v in txn.cursor()]
    return ({repo_key_parts(k)[1] for k, _ in keys if not k.startswith(PIN_PREFIX)},
            {pin_parts(k)[1]: v.decode() for k, v in keys if k.startswith(PIN_PREFIX)})


def test_both_engines_pin_the_same_revs(cluster, repos, tmp_path):
    """Either engine has a job pin what it names, built now or stored already: its rev, or a
    range's commit by its OID (was: a range's job pinned nothing); a job told not to pin
    (`--no-pin`) links the repository to its snapshot alone."""
    path, commits = str(repos["history"].path), repos["history"].commits
    built = batch.range_jobs(path, "HEAD~2..HEAD") + [JobSpec(path, "HEAD~1")]
    stored = [JobSpec(path, "main"), JobSpec(path, "HEAD~1")]  # their snapshots are stored: skipped, pinned
    unpinned = batch.range_jobs(path, "HEAD~3..HEAD~2", pin=False) + [JobSpec(path, "HEAD~2", pin=False)]
    local, central = Store.open(tmp_path / "local"), Store.open(tmp_path / "central")
    for specs in (built, stored, unpinned):
        batch.run(local, specs, workers=1)
        dask_engine.run(central, specs, cluster)
    expected = ({commits[-3], commits[-2], commits[-1]},
                {"HEAD~1": commits[-2], "main": commits[-1], commits[-2]: commits[-2], commits[-1]: commits[-1]})
    assert _holds(local) == expected
    assert _holds(central) == expected


def _partial_clone(root) -> tuple[str, str, str]:
    """(source repository, a blobless clone of it lacking all but one blob, the commit)."""
    from corpora.gitbuild import RepoBuilder

    builder = RepoBuilder(root / "src")
    oid = builder.commit({"pkg/a.py": "def alpha():\n    return 1\n",
                          "pkg/b.py": "from pkg.a import alpha\n\n\ndef beta():\n    return alpha()\n",
                          "README.md": "# demo\n"})
    subprocess.run(["git", "-C", str(builder.path), "config", "uploadpack.allowFilter", "true"], check=True)
    part = root / "part"
    subprocess.run(["git", "clone", "-q", "--no-checkout", "--filter=blob:none", f"file://{builder.path}",
                    str(part)], check=True, capture_output=True)
    subprocess.run(["git", "-C", str(part), "cat-file", "-p", f"{oid}:pkg/a.py"], check=True, capture_output=True)
    return str(builder.path), str(part), oid


def test_both_engines_build_a_stored_partial_snapshot_again_once_its_blobs_are_at_hand(cluster, tmp_path):
    """The rule of `indexer.build.complete_enough` serves both engines: a stored partial snapshot
    is skipped while its missing blobs are missing, and built again, complete, in its place once
    they are in the object database."""
    from indexer import api

    src, part, oid = _partial_clone(tmp_path)
    with Store.open(tmp_path / "cold") as cold:
        complete = api.index(src, store=cold, workers=1).fingerprint
    stores = {"local": Store.open(tmp_path / "local"), "dask": Store.open(tmp_path / "central")}
    partial = {name: api.index(part, store=store, workers=1).fingerprint for name, store in stores.items()}
    assert partial["local"] == partial["dask"] != complete
    specs = [JobSpec(part, "HEAD")]

    def both() -> dict[str, batch.JobResult]:
        [local] = batch.run(stores["local"], specs, workers=1).jobs
        [remote] = dask_engine.run(stores["dask"], specs, cluster).jobs
        return {"local": local, "dask": remote}

    for job in both().values():  # its blobs still missing: it serves as it is
        assert (job.status, job.fingerprint, job.missing_objects) == ("skipped_existing", partial["local"], 2)
    subprocess.run(["git", "-C", part, "reset", "-q", "--hard"], check=True, capture_output=True)  # fetches them
    for name, job in both().items():
        assert (job.ok, job.status, job.oid, job.fingerprint, job.missing_objects) == (
            True, "indexed", oid, complete, 0), name
        snap = api.snapshot(part, "HEAD", store=stores[name], index_if_absent=False)
        assert snap.record.fingerprint == complete and snap.missing_objects == 0, name
        assert [s.name for s in snap.facts("pkg/b.py").symbols] == ["beta"], name
    assert {job.status for job in both().values()} == {"skipped_existing"}  # complete now: skipped


def test_a_url_job_completes_a_stored_partial_snapshot_of_its_commit(cluster, tmp_path):
    """The driver reads no object of a commit named by URL, so it cannot apply `complete_enough`:
    the worker's bundle, built from a full clone, takes the place of the stored partial snapshot
    because every blob it lacks the stored one lacks too, and the stored one lacks more."""
    from indexer import api

    src, part, oid = _partial_clone(tmp_path)
    with Store.open(tmp_path / "cold") as cold:
        complete = api.index(src, store=cold, workers=1).fingerprint
    central = Store.open(tmp_path / "central")
    partial = api.index(part, store=central, workers=1).fingerprint
    assert partial != complete
    [job] = dask_engine.run(central, [JobSpec(f"file://{src}", oid, pin=False)], cluster).jobs
    assert (job.ok, job.status, job.oid, job.fingerprint, job.missing_objects) == (True, "indexed", oid, complete, 0)
    snap = api.snapshot(src, oid, store=central, index_if_absent=False)
    assert snap.record.fingerprint == complete and snap.missing_objects == 0
    # the complete snapshot does not give way to the partial one a later local index builds
    [again] = dask_engine.run(central, [JobSpec(part, "HEAD")], cluster).jobs
    assert (again.status, again.fingerprint) == ("skipped_existing", complete)


def test_a_killed_workers_task_is_retried_job_by_job(cluster, repos, tmp_path):
    specs = batch.range_jobs(repos["long"], "HEAD")
    local = batch.run(Store.open(tmp_path / "local"), specs, workers=1)
    lines = []
    marker = dask_tasks.marker_path(tmp_path)
    remote = dask_engine.run(Store.open(tmp_path / "central"), specs, cluster, retries=1, on_result=lines.append,
                             task=dask_tasks.dies_at(specs[4].rev, marker))
    assert os.path.exists(marker)  # the worker died with the job in hand
    assert [(j.oid, j.fingerprint) for j in remote.jobs] == [(j.oid, j.fingerprint) for j in local.jobs]
    assert [j.oid for j in lines] == [s.rev for s in specs] and all(j.status == "indexed" for j in lines)


def test_streams_are_contiguous_runs_balanced_over_the_workers():
    jobs = [dask_engine._Job(i, JobSpec("r", f"c{i}", pin=False), "r", "r", None) for i in range(10)]
    streams = dask_engine.split_streams(jobs, 2)
    assert [[j.index for j in s] for s in streams] == [[0, 1, 2, 3, 4], [5, 6, 7, 8, 9]]
    assert [j.position for j in streams[1]] == [0, 1, 2, 3, 4] and {j.stream for j in streams[1]} == {1}
    assert len(dask_engine.split_streams(jobs[:7], 2)) == 1  # too short to split: one worker parses the tree
    assert [len(t) for t in dask_engine.split_tasks(streams[0])] == [2, 2, 1]
    many = [dask_engine._Job(i, JobSpec(f"repo{i % 5}", "HEAD"), "", None, None) for i in range(5 * (1 + 5))]
    many = many[:5] + [j for j in many[5:] if j.spec.repo in ("repo0", "repo1")]  # two long, three short
    streams = dask_engine.split_streams(many, 2)
    assert len(streams) == 5  # one per repository: enough to keep every thread busy
    placed = dask_engine.place_streams(streams, {"tcp://a": 1, "tcp://b": 1})
    load = {w: sum(len(s) for s, p in zip(streams, placed) if p == w) for w in ("tcp://a", "tcp://b")}
    assert sorted(load.values()) == [7, 8]


def test_a_job_whose_worker_died_is_retried(own_cluster, repos, tmp_path):
    spec = JobSpec(str(repos["polyglot"].path), "v1")
    report = dask_engine.run(Store.open(tmp_path / "s"), [spec], own_cluster, retries=1,
                             task=dask_tasks.dies_once(dask_tasks.marker_path(tmp_path)))
    assert os.path.exists(dask_tasks.marker_path(tmp_path))  # it did die once
    assert report.jobs[0].ok and report.jobs[0].status == "indexed"


def test_a_job_that_keeps_losing_its_worker_fails_typed_and_the_others_go_on(own_cluster, repos, tmp_path):
    good = JobSpec(str(repos["polyglot"].path), "v1")
    dead = JobSpec(str(repos["history"].path), "HEAD")
    store = Store.open(tmp_path / "s")
    lost = dask_engine.run(store, [dead], own_cluster, retries=1, task=dask_tasks.always_dies)
    assert lost.jobs[0].status == "failed" and lost.jobs[0].error.code == "worker_lost"
    ok = dask_engine.run(store, [good], own_cluster)  # the cluster replaced its workers
    assert ok.jobs[0].ok


def test_a_cluster_the_engine_starts_waits_for_a_worker_however_long_its_restart(repos, tmp_path):
    """`--scheduler local:N`: a job whose worker died is retried once its nanny has started the
    worker again, however long that takes within the run's patience. A LocalCluster closes for
    good the nanny of a worker not back within `distributed.deploy.lost-worker-timeout` (15 s):
    on a loaded host the run was left with no worker. Set here to 0.1 s, so that any restart
    is a slow one: the retry found no worker (was: `worker_lost`)."""
    marker = dask_tasks.marker_path(tmp_path)
    with dask.config.set({"distributed.deploy.lost-worker-timeout": "100ms"}):
        report = dask_engine.run(Store.open(tmp_path / "s"), [JobSpec(str(repos["polyglot"].path), "v1")],
                                 "local:1", retries=1, task=dask_tasks.dies_once(marker), patience=30.0)
        assert dask.config.get("distributed.deploy.lost-worker-timeout") == "100ms"  # the caller's again
    assert os.path.exists(marker)  # it did die once
    assert report.jobs[0].ok and report.jobs[0].status == "indexed", report.jobs[0]


def test_jobs_fail_typed_once_the_cluster_has_had_no_worker_for_the_patience(repos, tmp_path):
    """A cluster with no worker (none ever joined: as one whose workers all died for good) holds
    the run for `patience` seconds, not forever: every job still out fails `worker_lost`, and
    nothing is imported."""
    with dask.config.set({"distributed.scheduler.allowed-failures": 0}):
        empty = distributed.LocalCluster(n_workers=0, processes=True, host="127.0.0.1",
                                         dashboard_address="127.0.0.1:0")
    try:
        specs = batch.range_jobs(str(repos["history"].path), "HEAD~1..HEAD") + [
            JobSpec(str(repos["polyglot"].path), "v1")]
        store = Store.open(tmp_path / "s")
        report = dask_engine.run(store, specs, empty.scheduler_address, patience=1.0)
    finally:
        empty.close()
    assert len(specs) == 2
    assert [(j.status, j.error.code if j.error else None) for j in report.jobs] == [("failed", "worker_lost")] * 2
    assert all("no worker for 1 s" in j.error.message for j in report.jobs if j.error)
    from indexer.api import snapshot
    from indexer.contract.errors import NotIndexed

    with pytest.raises(NotIndexed):
        snapshot(specs[-1].repo, specs[-1].rev, store=store, index_if_absent=False)


def test_an_unreachable_repository_is_a_typed_failure(cluster, repos, tmp_path):
    specs = [JobSpec(str(tmp_path / "not-here"), "HEAD"), JobSpec(str(repos["polyglot"].path), "v1")]
    report = dask_engine.run(Store.open(tmp_path / "s"), specs, cluster)
    assert report.jobs[0].status == "failed" and report.jobs[0].error.code == "repository_unreachable"
    assert report.jobs[1].ok


def test_a_task_holds_the_drivers_limits_whatever_its_workers_environment_says(cluster, repos, tmp_path,
                                                                               monkeypatch):
    """The cluster's workers started without `$RENNET_LIMITS`; the driver's setting still
    decides each job's verdict: with a `files` limit below the polyglot tree's, its job is
    `bad_tree` naming that limit, and under the defaults the same job is indexed. So it is
    when the workers' own stores hold the job's snapshot, made under the defaults (was: a
    worker shipped that one, and the driver's import refused it as `bad_bundle`)."""
    spec = [JobSpec(str(repos["polyglot"].path), "v1")]
    for n in range(2):
        assert dask_engine.run(Store.open(tmp_path / f"before{n}"), spec, cluster).jobs[0].ok
    monkeypatch.setenv("RENNET_LIMITS", "files=2")
    for n in range(2):
        refused = dask_engine.run(Store.open(tmp_path / f"s{n}"), spec, cluster)
        assert refused.jobs[0].status == "failed" and refused.jobs[0].error.code == "bad_tree", refused.jobs[0]
        assert "over 2 files" in refused.jobs[0].error.message
        assert "$RENNET_LIMITS=files=4 raises it" in refused.jobs[0].error.message
    monkeypatch.delenv("RENNET_LIMITS")
    assert dask_engine.run(Store.open(tmp_path / "s"), spec, cluster).jobs[0].ok


def test_a_rev_too_long_to_pin_fails_its_job_alone_built_or_stored(cluster, repos, tmp_path):
    """A job whose rev resolves but is too long to pin fails with `bad_input`, alone, whether
    its commit is built on a worker or stored already (was, stored: the driver's pin raised,
    and the whole run ended with the error)."""
    from indexer.store.records import PIN_REV_BYTES

    path = str(repos["history"].path)
    long_rev = "HEAD" + "~0" * (PIN_REV_BYTES // 2)
    store = Store.open(tmp_path / "central")
    for _ in ("built", "stored"):
        report = dask_engine.run(store, [JobSpec(path, long_rev), JobSpec(path, "HEAD")], cluster)
        assert report.jobs[0].status == "failed" and report.jobs[0].error.code == "bad_input"
        assert report.jobs[1].ok


def test_a_tampered_bundle_from_a_worker_is_refused(cluster, repos, tmp_path):
    spec = JobSpec(str(repos["polyglot"].path), "v1")
    store = Store.open(tmp_path / "s")
    report = dask_engine.run(store, [spec], cluster, task=dask_tasks.tampers)
    assert report.jobs[0].status == "failed" and report.jobs[0].error.code == "bad_bundle"
    from indexer.api import snapshot
    from indexer.contract.errors import NotIndexed

    with pytest.raises(NotIndexed):
        snapshot(spec.repo, spec.rev, store=store, index_if_absent=False)


def test_the_cli_runs_on_a_cluster_and_prints_json_lines(cluster, repos, tmp_path):
    env = dict(os.environ, RENNET_HOME=str(tmp_path / "home"))
    done = subprocess.run([sys.executable, "-m", "context_tools.faces.cli", "batch", "--engine", "dask",
                           "--scheduler", cluster, "--repo", str(repos["history"].path), "--range", "HEAD~1..HEAD",
                           "--json"], capture_output=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr.decode()
    lines = [json.loads(line) for line in done.stdout.decode().splitlines()]
    assert lines[0]["ok"] and lines[0]["status"] == "indexed" and lines[-1]["data"]["indexed"] == 1


def test_a_local_cluster_takes_no_well_known_port_and_says_nothing_of_one(repos, tmp_path):
    """`--scheduler local:N` starts a LocalCluster whose scheduler served HTTP on 8787 by default,
    and warned on stderr (`Port 8787 is already in use`) when another cluster or notebook held
    it. Now it takes a free loopback port, and stderr holds nothing of it."""
    import socket

    held = socket.socket()
    try:
        held.bind(("127.0.0.1", 8787))
        held.listen()
    except OSError:
        pass  # something holds it already: the condition this test is about
    try:
        env = dict(os.environ, RENNET_HOME=str(tmp_path / "home"))
        done = subprocess.run([sys.executable, "-m", "context_tools.faces.cli", "batch", "--engine", "dask",
                               "--scheduler", "local:1", "--repo", str(repos["history"].path), "--range",
                               "HEAD~1..HEAD", "--json"], capture_output=True, env=env, timeout=180)
    finally:
        held.close()
    assert done.returncode == 0, done.stderr.decode()
    assert b"8787" not in done.stderr and b"Warning" not in done.stderr, done.stderr.decode()


def test_without_the_extra_the_engine_is_a_typed_error_naming_it(repos, tmp_path):
    code = ("import sys; sys.modules['distributed'] = None\n"
            "from context_tools.faces.cli import run\n"
            "sys.argv = ['rennet', 'batch', '--engine', 'dask', '--json', " + repr(str(repos['polyglot'].path)) + "]\n"
            "run()\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=60,
                          env=dict(os.environ, RENNET_HOME=str(tmp_path / "home")))
    assert done.returncode == 1
    envelope = json.loads(done.stdout)
    assert envelope["error"]["code"] == "engine_unavailable" and "rennet-context[dask]" in envelope["error"]["message"]
    assert b"Traceback" not in done.stderr


def test_scheduler_syntax():
    assert dask_engine.parse_scheduler("local") == ("local", None)
    assert dask_engine.parse_scheduler("local:3") == ("local", 3)
    assert dask_engine.parse_scheduler("tcp://127.0.0.1:8786") == ("tcp://127.0.0.1:8786", None)
    from indexer.contract.errors import BadInput

    for bad in ("", "local:0", "local:x", "local:65"):
        with pytest.raises(BadInput):
            dask_engine.parse_scheduler(bad)


def test_a_killed_driver_leaves_the_store_consistent_and_a_rerun_completes(cluster, repos, tmp_path):
    env = dict(os.environ, RENNET_HOME=str(tmp_path / "home"))
    args = [sys.executable, "-m", "context_tools.faces.cli", "batch", "--engine", "dask", "--scheduler", cluster,
            "--repo", repos["long"], "--range", "HEAD", "--json"]
    driver = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    # the first job's line comes once its transaction (with the jobs that came with it) is committed
    first = json.loads(driver.stdout.readline())  # kill the driver now
    driver.kill()
    driver.wait(timeout=30)
    assert first["ok"]
    done = subprocess.run(args, capture_output=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr.decode()
    lines = [json.loads(line) for line in done.stdout.decode().splitlines()[:-1]]
    local = batch.run(Store.open(tmp_path / "local"), batch.range_jobs(repos["long"], "HEAD"), workers=1)
    assert [(j["oid"], j["fingerprint"]) for j in lines] == [(j.oid, j.fingerprint) for j in local.jobs]
    # the first task's two jobs went in in one transaction, before the first line came out
    assert [line["status"] for line in lines[:2]] == ["skipped_existing"] * 2


# The CLI with the Dask engine's connection to its cluster made at the edge: room for a thread's
# stack and 8 KiB, set as the connection is entered and again as its first thread starts,
# whatever came between; room given back after (1 GiB more), under a limit still, as its error
# is typed under it.
_CLUSTER_AT_THE_EDGE = """
import resource, threading
from context_tools.faces import cli
from indexer.contract.memory_limit import mapped_bytes
from indexer.fleet import dask_engine
import distributed  # loaded: the edge meets the cluster's start alone

stack = resource.getrlimit(resource.RLIMIT_STACK)[0]
hard = resource.getrlimit(resource.RLIMIT_AS)[1]
start = threading.Thread.start
made = dask_engine._client

def edge():
    resource.setrlimit(resource.RLIMIT_AS, (mapped_bytes() + stack + (8 << 10), hard))

def starting(thread):
    threading.Thread.start = start
    edge()
    start(thread)

def at_the_edge(scheduler):
    threading.Thread.start = starting
    edge()
    try:
        return made(scheduler)
    finally:
        threading.Thread.start = start
        resource.setrlimit(resource.RLIMIT_AS, (mapped_bytes() + (1 << 30), hard))

dask_engine._client = at_the_edge
cli.run()
"""


@pytest.mark.parametrize("scheduler", ["local:1", "tcp://127.0.0.1:9"])
def test_a_cluster_whose_threads_meet_room_for_a_stack_but_not_a_start_is_out_of_memory(repos, tmp_path, scheduler):
    """`rennet batch --engine dask` whose connection to its cluster (a LocalCluster it starts,
    or a scheduler's address) would start its threads with room for a thread's stack and 8 KiB:
    the one `out_of_memory` line naming the thread, exit 1, and nothing of the cluster left
    running (was: the new thread died as it began and `Thread.start` waited for it for good, a
    LocalCluster's with SIGTERM and SIGINT held: the command never ended)."""
    from tests.test_interrupt import ended_within

    p = subprocess.Popen([sys.executable, "-c", _CLUSTER_AT_THE_EDGE, "batch", "--engine", "dask", "--scheduler",
                          scheduler, "--repo", str(repos["history"].path), "--range", "HEAD~1..HEAD"],
                         env=dict(os.environ, RENNET_HOME=str(tmp_path / "home")), stdin=subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    out, err = ended_within(p, 60, "the batch whose cluster's threads met the edge never ended")
    assert (p.returncode, out, len(err.splitlines())) == (1, "", 1), err
    assert err.startswith("rennet: out_of_memory: this process's address-space limit (`ulimit -v` is "), err
    assert "(RuntimeError: can't start new thread); nothing stored was lost" in err, err
    with pytest.raises(ProcessLookupError):  # no process is left in its group
        os.killpg(p.pid, 0)


def test_a_gc_between_finding_a_stored_snapshot_and_pinning_it_has_the_job_build_it_again(cluster, tmp_path,
                                                                                          monkeypatch):
    """The driver finds a job's snapshot stored (held by nothing), then a `store gc` in another
    process drops it before the driver pins it. Was: the job `skipped_existing`, its rev pinned
    to the dropped snapshot, and a read of it `not_indexed`. Now the pin finds the record gone
    and the job goes to the cluster like one never stored."""
    from corpora.gitbuild import RepoBuilder
    from indexer import api

    builder = RepoBuilder(tmp_path / "repo")
    first = builder.commit({"a.py": "def alpha():\n    return 1\n"})
    home, repo = str(tmp_path / "store"), str(builder.path)
    store = Store.open(home)
    api.index(repo, "main", store=store)
    builder.commit({"a.py": "def alpha():\n    return 2\n"})
    api.index(repo, "main", store=store)  # main moved on: nothing holds the first commit's snapshot
    located = dask_engine._locate
    dropped: list[str] = []

    def gc_once_found(spec, index, store, repos):  # a gc in another process, between find and pin
        job, head = located(spec, index, store, repos)
        if head is not None and not dropped:
            out = subprocess.run([sys.executable, "-c", "import sys\nfrom indexer.store.database import Store\n"
                                  "from indexer.store.gc import collect\n"
                                  "print(*[s.oid for s in collect(Store.open(sys.argv[1])).snapshots])", home],
                                 env={**os.environ, "PYTHONPATH": os.getcwd()}, capture_output=True, text=True,
                                 timeout=120, check=True)
            dropped.append(out.stdout.strip())
        return job, head

    monkeypatch.setattr(dask_engine, "_locate", gc_once_found)
    report = dask_engine.run(store, [JobSpec(repo, first)], cluster)
    assert dropped == [first]
    assert api.snapshot(repo, first, store=store, index_if_absent=False).oid == first
    assert [(r.oid, r.status) for r in report.jobs] == [(first, "indexed")]
    store.close()


def test_a_workers_clone_and_its_fetch_leave_no_repository_in_a_cycle(tmp_path):
    """A worker serves many jobs: the clone of a job's URL it makes, and its fetch of it for the
    next job, free each repository as they end (was: pygit2's own Repository, its packs and object
    cache held by a cycle of its views until a full collection)."""
    from indexer.pipeline.collector import collector_paused
    from tests.cycles import left_in_cycles

    origin = build_history(tmp_path / "origin")
    home = tmp_path / "worker" / "rennet-store"
    url = f"file://{origin.path}"
    left_in_cycles()  # what building the history left
    with collector_paused():
        first = dask_engine._open_repository(url, home)
        again = dask_engine._open_repository(url, home)
        assert first == again and os.path.isdir(first)
        assert left_in_cycles() == []
