"""Git repositories with a real history, made from consecutive released versions of real projects.

Each release is fetched once from its package registry with the registry's own client
(`pip download` for a PyPI sdist, `npm pack` for an npm tarball) into a cache
(`$RENNET_CORPORA_CACHE`, else `~/.cache/rennet-corpora/`), then unpacked in memory: every
version becomes one commit on the `releases` branch whose tree is that release's files
(tree replaced, so deletions and renames between releases are real), tagged `v<version>`.
Nothing is extracted to disk and no working tree is written.

    python -m corpora.registry_corpus django --out DIR       # Django 5.0.1 .. 5.0.6, ~2,800 .py files
    python -m corpora.registry_corpus date-fns --out DIR     # date-fns 3.0.0 .. 3.0.5 (alias: npm-pkg)
    python -m corpora.registry_corpus requests --out DIR     # requests 2.31.0, 2.32.3
    python -m corpora.registry_corpus flask --out DIR        # Flask 3.0.2, 3.0.3
    python -m corpora.registry_corpus mobx --out DIR         # mobx 6.13.4, 6.13.5 (TypeScript src/)
    python -m corpora.registry_corpus express --out DIR      # express 4.21.1, 4.21.2 (CommonJS)

With an empty cache and the registry out of reach, building fails with `registry_unavailable`.
"""

from __future__ import annotations

import argparse
import json
import os
import posixpath
import re
import subprocess
import sys
import tarfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from corpora.gitbuild import Content, Exec, Link, RepoBuilder
from indexer.contract.errors import BadInput, RennetError


class RegistryUnavailable(RennetError):
    code = "registry_unavailable"


class ArchiveError(RennetError):
    code = "bad_archive"


@dataclass(frozen=True)
class CorpusSpec:
    name: str
    ecosystem: str  # "pypi" | "npm"
    package: str
    versions: tuple[str, ...]


SPECS = {
    "django": CorpusSpec("django", "pypi", "Django", ("5.0.1", "5.0.2", "5.0.3", "5.0.4", "5.0.5", "5.0.6")),
    "date-fns": CorpusSpec("date-fns", "npm", "date-fns", ("3.0.0", "3.0.1", "3.0.2", "3.0.3", "3.0.4", "3.0.5")),
    # small, well-known Python libraries: the precision benchmark's corpora (benchmarks/precision.py)
    "requests": CorpusSpec("requests", "pypi", "requests", ("2.31.0", "2.32.3")),
    "flask": CorpusSpec("flask", "pypi", "Flask", ("3.0.2", "3.0.3")),
    # npm packages shipping their own sources: TypeScript (mobx's src/) and CommonJS (express 4)
    "mobx": CorpusSpec("mobx", "npm", "mobx", ("6.13.4", "6.13.5")),
    "express": CorpusSpec("express", "npm", "express", ("4.21.1", "4.21.2")),
}
ALIASES = {"npm-pkg": "date-fns"}
BRANCH = "releases"
FETCH_TIMEOUT = 600


@dataclass
class RegistryCorpus:
    path: Path
    spec: CorpusSpec
    commits: list[str] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)
    files: list[int] = field(default_factory=list)  # files per version

    def summary(self) -> dict:
        return {"path": str(self.path), "name": self.spec.name, "package": self.spec.package,
                "ecosystem": self.spec.ecosystem, "branch": BRANCH, "versions": list(self.spec.versions),
                "commits": self.commits, "tags": self.tags, "files": self.files}


def cache_dir() -> Path:
    env = os.environ.get("RENNET_CORPORA_CACHE")
    return Path(env) if env else Path.home() / ".cache" / "rennet-corpora"


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def cached_archive(spec: CorpusSpec, version: str, cache: Path) -> Path | None:
    """The cached release archive of `version`, whatever case or separator its file name uses."""
    folder = cache / spec.ecosystem / _norm(spec.package)
    if not folder.is_dir():
        return None
    want = f"{_norm(spec.package)}-{version}"
    for p in sorted(folder.iterdir()):
        stem = p.name
        for ext in (".tar.gz", ".tgz", ".zip"):
            if stem.endswith(ext) and _norm(stem[: -len(ext)]) == _norm(want):
                return p
    return None


def fetch(spec: CorpusSpec, version: str, cache: Path | None = None) -> Path:
    """The release archive, downloaded into the cache on first use."""
    cache = cache or cache_dir()
    hit = cached_archive(spec, version, cache)
    if hit:
        return hit
    folder = cache / spec.ecosystem / _norm(spec.package)
    folder.mkdir(parents=True, exist_ok=True)
    if spec.ecosystem == "pypi":
        cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:",
               "--disable-pip-version-check", "-q", f"{spec.package}=={version}", "-d", str(folder)]
    else:
        cmd = ["npm", "pack", f"{spec.package}@{version}", "--pack-destination", str(folder), "--silent"]
    try:
        run = subprocess.run(cmd, capture_output=True, text=True, timeout=FETCH_TIMEOUT)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise RegistryUnavailable(f"{spec.package} {version} is not in the cache ({folder}) and "
                                  f"the registry client failed: {exc}") from None
    hit = cached_archive(spec, version, cache)
    if run.returncode != 0 or hit is None:
        last = (run.stderr.strip().splitlines() or ["no output"])[-1][:200]
        raise RegistryUnavailable(f"{spec.package} {version} is not in the cache ({folder}) and "
                                  f"the registry could not be reached: {last}")
    return hit


def _clean(name: str) -> str | None:
    """A member path without its top folder (`Django-5.0.1/`, `package/`); None if unsafe or empty."""
    name = posixpath.normpath(name.replace("\\", "/"))
    if name.startswith(("/", "../")) or name in (".", ".."):
        return None
    _, _, rest = name.partition("/")
    return rest or None


def unpack(archive: Path) -> dict[str, Content]:
    """Release files as path -> content, read from the archive in memory."""
    files: dict[str, Content] = {}
    try:
        if archive.name.endswith(".zip"):
            with zipfile.ZipFile(archive) as zf:
                for info in zf.infolist():
                    path = _clean(info.filename)
                    if path and not info.is_dir():
                        files[path] = zf.read(info)
            return files
        with tarfile.open(archive, "r:*") as tf:
            for member in tf:
                path = _clean(member.name)
                if path is None:
                    continue
                if member.issym():
                    files[path] = Link(member.linkname)
                elif member.isfile():
                    extracted = tf.extractfile(member)  # a regular file's member always has its data
                    data = extracted.read() if extracted is not None else b""
                    files[path] = Exec(data) if member.mode & 0o111 else data
    except (tarfile.TarError, zipfile.BadZipFile, OSError, EOFError) as exc:
        raise ArchiveError(f"{archive} is not a readable release archive: {exc}") from None
    if not files:
        raise ArchiveError(f"{archive} holds no files")
    # a directory and a file of the same name cannot both be in a git tree: keep the directory
    dirs = {posixpath.dirname(p) for p in files}
    for d in list(dirs):
        while d:
            dirs.add(d)
            d = posixpath.dirname(d)
    return {p: c for p, c in files.items() if p not in dirs}


def build(name: str, out: str | Path, cache: Path | None = None,
          versions: tuple[str, ...] | None = None) -> RegistryCorpus:
    """A bare repository at `out` with one commit per release of corpus `name`, oldest first."""
    name = ALIASES.get(name, name)
    if name not in SPECS:
        raise BadInput(f"unknown corpus {name!r}; choose one of {', '.join(sorted(SPECS) + sorted(ALIASES))}")
    spec = SPECS[name]
    if versions:
        spec = CorpusSpec(spec.name, spec.ecosystem, spec.package, tuple(versions))
    out = Path(out)
    if out.exists() and any(out.iterdir()):
        raise BadInput(f"{out} exists and is not empty; choose a new --out directory")
    archives = [fetch(spec, v, cache) for v in spec.versions]  # everything fetched before anything is written
    corpus = RegistryCorpus(path=out, spec=spec)
    builder = RepoBuilder(out, bare=True, branch=BRANCH)
    for version, archive in zip(spec.versions, archives):
        files = unpack(archive)
        oid = builder.commit(files, message=f"{spec.package} {version}", replace=True)
        builder.tag(f"v{version}", oid)
        corpus.commits.append(oid)
        corpus.tags.append(f"v{version}")
        corpus.files.append(len(files))
    (out / "corpus.json").write_text(json.dumps(corpus.summary(), indent=1))
    return corpus


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m corpora.registry_corpus", description=__doc__.split("\n\n")[0])
    ap.add_argument("name", choices=sorted(SPECS) + sorted(ALIASES))
    ap.add_argument("--out", required=True, help="directory for the bare repository (new or empty)")
    ap.add_argument("--cache", help="release cache (default $RENNET_CORPORA_CACHE or ~/.cache/rennet-corpora)")
    ap.add_argument("--versions", help="comma-separated versions instead of the default list")
    args = ap.parse_args(argv)
    try:
        corpus = build(args.name, args.out, Path(args.cache) if args.cache else None,
                       tuple(v for v in args.versions.split(",") if v) if args.versions else None)
    except RennetError as exc:
        print(str(exc), file=sys.stderr)
        return 1
    print(json.dumps(corpus.summary(), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
