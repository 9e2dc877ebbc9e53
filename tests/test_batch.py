"""Batch indexing: ranges, job files, failures that do not stop the others, resume after a kill."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pygit2
import pytest

from corpora.gitbuild import RepoBuilder
from indexer import api
from indexer.fleet import batch
from indexer.store.database import Store, WriteLock
from indexer.store.snapshot import pinned_oid
from tests.cli_runs import run_cli

ROOT = Path(__file__).resolve().parent.parent


def _module(commit: int, i: int) -> str:
    return (f"import os\nfrom pkg import base\n\n\nclass Worker{commit}_{i}:\n    def run(self, x):\n"
            f"        return helper_{i}(x) + {commit}\n\n\ndef helper_{i}(x):\n    return os.path.join(str(x), 'y')\n")


def _history(path: Path, commits: int, files: int) -> tuple[RepoBuilder, list[str]]:
    """A linear history; each commit adds `files` new modules and edits a shared one."""
    builder = RepoBuilder(path)
    oids = []
    for c in range(commits):
        change = {f"pkg/c{c}_{i}.py": _module(c, i) for i in range(files)}
        change["pkg/__init__.py"] = ""
        change["pkg/base.py"] = f"VERSION = {c}\n\n\ndef base():\n    return VERSION\n"
        oids.append(builder.commit(change, message=f"commit {c}"))
    return builder, oids


def rennet(home: Path, *args: str, timeout: int = 300) -> subprocess.CompletedProcess:
    return run_cli(*args, "--store", str(home), timeout=timeout)


def _lines(stdout: str) -> tuple[list[dict], dict]:
    """Job lines, and the result contract on the last line."""
    rows = [json.loads(line) for line in stdout.splitlines() if line.strip()]
    return rows[:-1], rows[-1]


def _clean_fingerprints(tmp_path: Path, repo: Path, oids: list[str]) -> dict[str, str]:
    """What plain `index()` gives commit by commit in a fresh store: the reference a batch must equal."""
    with Store.open(tmp_path / "clean-store") as store:
        return {oid: api.index(str(repo), oid, store=store, workers=1).fingerprint for oid in oids}


def _distinct_blobs(repo: pygit2.Repository, oids: list[str]) -> int:
    blobs = set()
    for oid in oids:
        stack = [repo[oid].peel(pygit2.Commit).tree]
        while stack:
            for e in stack.pop():
                if e.type_str == "tree":
                    stack.append(repo[e.id])
                else:
                    blobs.add(str(e.id))
    return len(blobs)


def test_a_rev_too_long_to_pin_fails_its_job_alone(tmp_path):
    """A job whose rev resolves but is too long to pin (`main~0~0...`): that job fails with
    `bad_input`, before any work; the batch's other jobs are indexed (was: the whole batch
    ended with the error once the first job was indexed and pinned)."""
    from indexer.store.records import PIN_REV_BYTES

    builder, oids = _history(tmp_path / "repo", commits=2, files=2)
    repo, long_rev = str(builder.path), "main" + "~0" * (PIN_REV_BYTES // 2)
    done = rennet(tmp_path / "store", "batch", f"{repo}@{long_rev}", f"{repo}@{oids[0]}", "--json")
    assert done.returncode == 1, done.stderr
    jobs, contract = _lines(done.stdout)
    assert contract["error"]["code"] == "batch_failed" and "1 of 2 jobs failed" in contract["error"]["message"]
    assert jobs[0]["status"] == "failed" and jobs[0]["error"]["code"] == "bad_input"
    assert jobs[1]["ok"] and jobs[1]["status"] == "indexed" and jobs[1]["oid"] == oids[0]


def test_range_with_a_failing_job(tmp_path):
    builder, oids = _history(tmp_path / "repo", commits=5, files=4)
    home = tmp_path / "store"
    repo = str(builder.path)
    done = rennet(home, "batch", "--repo", repo, "--range", f"{oids[0]}..main", f"{repo}@no-such-rev",
                  f"{repo}@main", "--jobs", "2", "--json")
    assert done.returncode == 1, done.stderr
    jobs, contract = _lines(done.stdout)
    assert contract["ok"] is False and contract["error"]["code"] == "batch_failed"
    assert "1 of 6 jobs failed" in contract["error"]["message"]
    # arguments first, then the range oldest first (the range excludes its left end, as git does)
    assert [j["rev"] for j in jobs] == ["no-such-rev", "main"] + oids[1:]
    bad = jobs[0]
    assert bad["ok"] is False and bad["status"] == "failed" and bad["oid"] is None
    assert bad["error"]["code"] == "unknown_rev" and bad["fingerprint"] is None
    good = jobs[1:]
    assert all(j["ok"] and j["error"] is None for j in good)
    for j in good:
        assert set(j) == {"repo", "rev", "oid", "ok", "status", "fingerprint", "error", "seconds", "parsed_blobs",
                          "reused_blobs"}
    # main is the range's last commit: built once, the other job finds it built
    assert jobs[1]["oid"] == oids[-1]
    assert sorted(j["status"] for j in good) == ["indexed"] * 4 + ["skipped_existing"]
    # each distinct blob of the batch parsed exactly once
    assert sum(j["parsed_blobs"] for j in good) == _distinct_blobs(builder.repo, oids[1:])
    clean = _clean_fingerprints(tmp_path, builder.path, oids[1:])
    assert {j["oid"]: j["fingerprint"] for j in good} == clean
    with Store.open(home) as store:
        assert pinned_oid(store, builder.repo, "main") == oids[-1]  # a named rev is pinned
        # and each commit of the range by its OID, as `rennet index --rev SHA` pins it
        assert [pinned_oid(store, builder.repo, oid) for oid in oids] == [None] + oids[1:]


def test_a_range_batch_keeps_its_snapshots_through_gc_unless_told_not_to_pin(tmp_path):
    """A CI job that indexed every commit of a range keeps them: each is pinned by its OID, so
    the next `store gc` drops none (was: linked alone, pinned by nothing, and the next gc dropped
    every one, the range's last commit too). `--no-pin` links them alone, as before, for a store
    kept only to warm blob facts: the next gc drops those nothing else holds."""
    builder, oids = _history(tmp_path / "repo", commits=4, files=2)
    repo = str(builder.path)
    for pin, home in ((True, tmp_path / "pinned"), (False, tmp_path / "unpinned")):
        done = rennet(home, "batch", "--repo", repo, "--range", "main", "--jobs", "1", "--json",
                      *(() if pin else ("--no-pin",)))
        assert done.returncode == 0, done.stderr
        assert [j["oid"] for j in _lines(done.stdout)[0]] == oids
        gc = rennet(home, "store", "gc", "--json")
        assert gc.returncode == 0, gc.stderr
        dropped = json.loads(gc.stdout)["data"]["snapshots"]
        with Store.open(home) as store:
            kept = [oid for oid in oids if _stored(store, repo, oid)]
        if pin:
            assert dropped == 0 and kept == oids
        else:
            assert dropped == len(oids) and kept == []


def _stored(store: Store, repo: str, oid: str) -> bool:
    from indexer.contract.errors import NotIndexed

    try:
        return api.snapshot(repo, oid, store=store, index_if_absent=False).oid == oid
    except NotIndexed:
        return False


def test_job_file_and_human_output(tmp_path):
    one, oids_one = _history(tmp_path / "one", commits=2, files=2)
    two, oids_two = _history(tmp_path / "two", commits=1, files=3)
    jobs_file = tmp_path / "jobs.txt"
    jobs_file.write_text(f"# nightly\n{one.path}@{oids_one[0]}\n\n{one.path} main\n{two.path}\n"
                         f"{tmp_path / 'missing'}@main\n")
    home = tmp_path / "store"
    done = rennet(home, "batch", "--from", str(jobs_file), "--jobs", "1", "--json")
    assert done.returncode == 1
    jobs, contract = _lines(done.stdout)
    assert [(j["rev"], j["status"]) for j in jobs] == [(oids_one[0], "indexed"), ("main", "indexed"),
                                                      ("HEAD", "indexed"), ("main", "failed")]
    assert jobs[3]["error"]["code"] == "not_a_repository"
    assert jobs[2]["oid"] == oids_two[0]
    # without the broken line the same jobs pass, all skipped, and human output names each
    jobs_file.write_text("\n".join(jobs_file.read_text().splitlines()[:-1]) + "\n")
    again = rennet(home, "batch", "--from", str(jobs_file))
    assert again.returncode == 0, again.stderr
    assert again.stdout.strip() == ("batch: 3 jobs, 0 indexed, 3 skipped (snapshot existed), 0 failed in "
                                    + again.stdout.split(" in ")[-1].strip())
    assert again.stderr.count("skipped ") == 3
    spelled = rennet(home, "batch", "--from-file", str(jobs_file), "--json")  # the field's own spelling works too
    assert spelled.returncode == 0 and _lines(spelled.stdout)[1]["data"]["skipped_existing"] == 3
    assert "--from FILE" in rennet(home, "batch", "--help").stdout


def test_resume_after_kill(tmp_path):
    builder, oids = _history(tmp_path / "repo", commits=8, files=20)
    home = tmp_path / "store"
    args = [sys.executable, "-m", "context_tools.faces.cli", "batch", "--repo", str(builder.path), "--range", "main",
            "--jobs", "1", "--json", "--store", str(home)]
    proc = subprocess.Popen(args, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                            start_new_session=True)
    seen = []
    try:
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            seen.append(json.loads(line))
            if seen[-1].get("status") == "indexed":
                break
    finally:
        os.killpg(proc.pid, signal.SIGKILL)  # the batch and its workers: a process group we started
        proc.wait(timeout=60)
    assert seen and seen[0]["status"] == "indexed", "the batch printed no finished job before the kill"
    with Store.open(home) as store:
        with store.env.begin(db=store.snapshots) as txn:
            stored = txn.stat(store.snapshots)["entries"]
    assert 1 <= stored < len(oids), "kill the batch mid-way: some snapshots, not all"
    rerun = rennet(home, "batch", "--repo", str(builder.path), "--range", "main", "--jobs", "2", "--json")
    assert rerun.returncode == 0, rerun.stderr
    jobs, contract = _lines(rerun.stdout)
    assert contract["ok"] is True
    assert contract["data"]["skipped_existing"] == stored and contract["data"]["indexed"] == len(oids) - stored
    assert [j["oid"] for j in jobs] == oids
    assert [j["status"] for j in jobs] == ["skipped_existing"] * stored + ["indexed"] * (len(oids) - stored)
    clean = _clean_fingerprints(tmp_path, builder.path, oids)
    assert {j["oid"]: j["fingerprint"] for j in jobs} == clean


def test_one_writer_at_a_time(tmp_path):
    builder, _ = _history(tmp_path / "repo", commits=1, files=1)
    home = tmp_path / "store"
    Store.open(home).close()
    with WriteLock(home):
        done = rennet(home, "batch", f"{builder.path}@main", "--json")
    assert done.returncode == 1
    assert json.loads(done.stdout.splitlines()[-1])["error"]["code"] == "store_locked"


def test_batch_jobs_are_its_words_or_pairs_options_but_not_both(tmp_path):
    """docs/cli.md: a positional field is also an option of its name: `rennet batch --pairs
    R@REV ...` runs the jobs `rennet batch R@REV ...` does; given both ways, it is a usage error."""
    builder, _ = _history(tmp_path / "repo", commits=1, files=1)
    home = tmp_path / "store"
    by_word = rennet(home, "batch", f"{builder.path}@main", "--json")
    by_option = rennet(home, "batch", "--pairs", f"{builder.path}@main", "--json")
    assert by_word.returncode == by_option.returncode == 0, by_option.stdout + by_option.stderr
    jobs = [[j["oid"] for j in _lines(done.stdout)[0] if j["ok"]] for done in (by_word, by_option)]
    assert jobs[0] == jobs[1] and len(jobs[0]) == 1, jobs
    both = rennet(home, "batch", f"{builder.path}@main", "--pairs", f"{builder.path}@main")
    assert both.returncode == 2 and "not both" in both.stderr, both.stderr


def test_bad_batch_input(tmp_path):
    builder, _ = _history(tmp_path / "repo", commits=1, files=1)
    home = tmp_path / "store"
    for args, code in ((("batch",), "bad_input"),
                       (("batch", "--repo", str(builder.path), "--range", "a...b"), "bad_input"),
                       (("batch", "--repo", str(builder.path), "--range", "nope..main"), "unknown_rev"),
                       (("batch", "--from", str(tmp_path / "absent.txt")), "bad_input"),
                       (("batch", "--repo", str(builder.path)), "bad_input")):
        done = rennet(home, *args, "--json")
        assert done.returncode == 1, args
        assert json.loads(done.stdout)["error"]["code"] == code, args


def test_parse_pair_and_python_face(tmp_path):
    at_dir = tmp_path / "team@corp" / "svc"
    builder, oids = _history(at_dir, commits=2, files=1)
    assert batch.parse_pair(str(at_dir)) == batch.JobSpec(str(at_dir), "HEAD")
    assert batch.parse_pair(f"{at_dir}@main~1") == batch.JobSpec(str(at_dir), "main~1")
    assert batch.parse_pair(f"{at_dir}@HEAD@{{1}}") == batch.JobSpec(str(at_dir), "HEAD@{1}")
    seen = []
    with Store.open(tmp_path / "store") as store:
        report = batch.run(store, [batch.parse_pair(f"{at_dir}@main~1"), batch.JobSpec(str(at_dir), "main")],
                           workers=1, on_result=seen.append)
    assert [r.oid for r in report.jobs] == oids and report.failed == 0
    assert seen == report.jobs


def test_a_job_with_no_repository_before_its_rev_is_bad_input(tmp_path, monkeypatch):
    """`@main` (REPO left out) was the repository `@main` at `main`, failing as `@main does not
    exist`; it is bad_input saying what to write, before any job runs. A folder named so stays one."""
    from indexer.contract.errors import BadInput

    monkeypatch.chdir(tmp_path)
    with pytest.raises(BadInput, match=r"job '@main' names no repository before '@': write REPO@REV"):
        batch.parse_pair("@main")
    jobs = tmp_path / "jobs.txt"
    jobs.write_text("# fleet\n./a@main\n@main\n")
    with pytest.raises(BadInput, match=rf"^bad_input: {re.escape(str(jobs))}:3: job '@main' names no repository"):
        batch.read_pairs(str(jobs))
    (tmp_path / "@main").mkdir()
    assert batch.parse_pair("@main") == batch.JobSpec("@main", "HEAD")


def test_later_waves_start_from_earlier_snapshots_and_match_clean_indexes(tmp_path):
    """With one job per wave, each commit is assembled from the snapshot of its parent (import
    resolution and marks carried over): through edits, an attributes change and a move, every
    fingerprint must still be the one a clean index gives."""
    builder, oids = _history(tmp_path / "repo", commits=2, files=3)
    oids.append(builder.commit({".gitattributes": "pkg/c0_1.py linguist-generated\n"}, message="attributes"))
    oids.append(builder.commit({"pkg/c0_2.py": None, "pkg/moved.py": "from pkg import base\nimport pkg.c0_2\n"},
                               message="move"))
    oids.append(builder.commit({"pkg/base.py": "VERSION = 9\n"}, message="edit"))
    with Store.open(tmp_path / "store") as store:
        report = batch.run(store, [batch.JobSpec(str(builder.path), oid, pin=False) for oid in oids],
                           workers=2, wave=1)
        assert [r.status for r in report.jobs] == ["indexed"] * len(oids)
        marked = api.snapshot(str(builder.path), oids[2], store=store, index_if_absent=False).file("pkg/c0_1.py")
        assert (marked.mark, marked.mark_rule) == ("generated", "gitattributes:linguist-generated")
    assert {r.oid: r.fingerprint for r in report.jobs} == _clean_fingerprints(tmp_path, builder.path, oids)


def test_a_job_file_that_never_ends_is_bad_input_within_a_bounded_read():
    """`--from /dev/zero` (or any file past `JOB_FILE_BYTES`) is refused after reading one past
    the bound: a process held to 1 GiB of address space says so, never runs out of memory."""
    code = ("import resource; resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))\n"
            "from indexer.contract.errors import BadInput\nfrom indexer.fleet import batch\n"
            "try:\n    batch.read_pairs('/dev/zero')\nexcept BadInput as exc:\n    print(exc.code, exc.message)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=120,
                          cwd=Path(__file__).resolve().parent.parent)
    assert done.returncode == 0, done.stderr.decode()[-300:]
    assert done.stdout.decode().startswith("bad_input job file /dev/zero is over 64 MiB")


def test_a_blob_that_does_not_read_fails_its_jobs_alone_with_why(tmp_path):
    """A loose blob whose checksum is cut off: the commit needing it fails with the read's own
    code (twice in one wave, both jobs say so, not `job lost`); the commit before it is indexed.
    Its header still reads, so the job is planned and fails at extraction."""
    import zlib

    builder = RepoBuilder(tmp_path / "repo")
    first = builder.commit({"ok.py": "x = 1\n"})
    second = builder.commit({"big.py": "".join(f"def f{i}():\n    return {i}\n" for i in range(50))})
    blob = str(builder.repo.revparse_single(f"{second}:big.py").id)
    loose = Path(builder.repo.path) / "objects" / blob[:2] / blob[2:]
    whole = zlib.compress(zlib.decompress(loose.read_bytes()))
    loose.chmod(0o644)
    loose.write_bytes(whole[:-4])
    repo = str(builder.path)
    with Store.open(tmp_path / "store") as store:
        report = batch.run(store, [batch.JobSpec(repo, second), batch.JobSpec(repo, first), batch.JobSpec(repo, second)],
                           workers=1)
    assert [(r.oid, r.status) for r in report.jobs] == [(second, "failed"), (first, "indexed"), (second, "failed")]
    assert [r.error.code for r in report.jobs if r.error] == ["missing_objects", "missing_objects"]
    assert blob[:12] in report.jobs[0].error.message and report.jobs[2].error.message == report.jobs[0].error.message


def test_job_lines_and_ranges_are_read_as_documented(tmp_path):
    """A job line that is itself an existing path (a space in it) is a repository at HEAD;
    `REPO@` is HEAD; with no prefix an existing path, the first '@' splits; a range is `A..B`
    or one rev, whose whole history is its jobs, however far from HEAD."""
    from indexer.contract.errors import BadInput

    spaced = tmp_path / "my repo"
    builder, oids = _history(spaced, commits=3, files=1)
    jobs_file = tmp_path / "jobs.txt"
    jobs_file.write_text(f"{spaced}\n/nowhere/repo main\n")
    assert batch.read_pairs(str(jobs_file)) == [batch.JobSpec(str(spaced), "HEAD"), batch.JobSpec("/nowhere/repo", "main")]
    assert batch.parse_pair(f"{spaced}@") == batch.JobSpec(str(spaced), "HEAD")
    assert batch.parse_pair("/nowhere/repo@HEAD@{1}") == batch.JobSpec("/nowhere/repo", "HEAD@{1}")
    for spec in ("a..b..c", "..", ".", "a...b"):
        with pytest.raises(BadInput):
            batch.range_jobs(str(spaced), spec)
    assert [j.rev for j in batch.range_jobs(str(spaced), oids[1])] == oids[:2]
    assert [j.rev for j in batch.range_jobs(str(spaced), f"{oids[0]}..")] == oids[1:]


def test_a_range_past_its_commit_limit_is_refused_before_any_commit_is_indexed(tmp_path):
    """A pull request chooses how many commits `main..HEAD` holds, each a snapshot to index:
    a range holding more than `range_commits` ($RENNET_LIMITS) is `too_large` in one line naming
    the setting, and nothing is indexed; one holding exactly that many is indexed whole."""
    from tests.cli_runs import cli_env

    builder, oids = _history(tmp_path / "repo", commits=5, files=1)
    home = tmp_path / "store"
    env = {**cli_env(None), "RENNET_LIMITS": "range_commits=3"}
    refused = run_cli("batch", "--repo", str(builder.path), "--range", "main", "--store", str(home), env=env)
    assert refused.returncode != 0 and "Traceback" not in refused.stderr, refused.stderr
    assert refused.stderr.strip().splitlines() == [
        "rennet: too_large: range 'main' holds more than 3 commits, each a snapshot to index "
        "($RENNET_LIMITS=range_commits=6 raises it); nothing indexed"], refused.stderr
    assert not home.exists()  # refused before the store was opened
    done = run_cli("batch", "--repo", str(builder.path), "--range", f"{oids[1]}..main", "--json",
                   "--store", str(home), env=env)
    assert done.returncode == 0, done.stderr
    assert [json.loads(line)["rev"] for line in done.stdout.splitlines() if '"rev"' in line] == oids[2:]


def test_a_range_of_merges_lists_its_commits_as_git_rev_list_topo_order_reverse(tmp_path):
    """Oldest first, each commit after its parents, as `git rev-list --topo-order --reverse`."""
    builder = RepoBuilder(tmp_path / "repo")
    root = builder.commit({"a.py": "x = 0\n"})
    left = builder.commit({"b.py": "y = 1\n"}, parents=[root])
    right = builder.commit({"c.py": "z = 2\n"}, parents=[root])
    builder.commit({"b.py": "y = 1\n", "c.py": "z = 2\n"}, parents=[left, right])
    builder.commit({"d.py": "w = 3\n"})
    listed = subprocess.run(["git", "rev-list", "--topo-order", "--reverse", "HEAD"], cwd=builder.path,
                            capture_output=True, text=True, check=True).stdout.split()
    assert len(listed) == 5
    assert [j.rev for j in batch.range_jobs(str(builder.path), "HEAD")] == listed
