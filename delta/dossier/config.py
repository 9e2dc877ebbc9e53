"""Per-project dossier settings: tracker prefixes, Jira and Linear endpoints, bounds.

Read, first found wins, from: an explicit mapping given by the caller; `.rennet.toml`
in the tree at the head OID; `[tool.rennet]` of `pyproject.toml` at the head OID; an
uncommitted `.rennet.toml` in the repository's work directory (a local settings write).
The committed files are read through pygit2 from the pinned commit, never from a
working tree. A token is never part of the config: only the NAME of the environment
variable that holds it, read at call time by the tracker client.

    [dossier]
    tracker_prefixes = ["OPS"]        # extra tracker-key prefixes of this project
    github_repo = "owner/repo"        # default: the github.com remote (origin first)
    timeout_seconds = 10
    item_body_chars = 2000
    item_bytes = 8000
    dossier_bytes = 32000
    max_references = 50               # references fetched; the rest are recorded as omitted

    [dossier.jira]
    base_url = "https://acme.atlassian.net"
    token_env = "JIRA_TOKEN"
    projects = ["ABC"]
    api_version = 2                   # 2 or 3

    [dossier.linear]
    base_url = "https://api.linear.app/graphql"
    token_env = "LINEAR_API_KEY"
    teams = ["ENG"]
    auth_scheme = ""                  # "" for a personal API key, "Bearer" for an OAuth token
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Mapping

import msgspec
import pygit2
from msgspec import Struct, field

from indexer.contract.decode import Undecodable, decode_toml
from indexer.contract.errors import BadInput


class JiraConfig(Struct, forbid_unknown_fields=True):
    base_url: str
    token_env: str
    projects: list[str] = field(default_factory=list)
    api_version: int = 2


class LinearConfig(Struct, forbid_unknown_fields=True):
    token_env: str
    base_url: str = "https://api.linear.app/graphql"
    teams: list[str] = field(default_factory=list)
    auth_scheme: str = ""


class DossierConfig(Struct, forbid_unknown_fields=True):
    tracker_prefixes: list[str] = field(default_factory=list)
    github_repo: str = ""
    timeout_seconds: float = 10.0
    item_body_chars: int = 2000
    item_bytes: int = 8000
    dossier_bytes: int = 32000
    max_references: int = 50
    jira: JiraConfig | None = None
    linear: LinearConfig | None = None
    origin: str = "defaults"  # where the settings were read: "explicit", ".rennet.toml@<oid>", ...

    def prefixes(self) -> list[str]:
        out = [p.upper() for p in self.tracker_prefixes]
        if self.jira:
            out += [p.upper() for p in self.jira.projects]
        if self.linear:
            out += [p.upper() for p in self.linear.teams]
        return sorted(set(out))

    def tracker_for_key(self, key: str) -> str | None:
        """"jira" or "linear" for a tracker key, None when no configured tracker claims it."""
        prefix = key.rsplit("-", 1)[0].upper()
        if self.jira and prefix in {p.upper() for p in self.jira.projects}:
            return "jira"
        if self.linear and prefix in {p.upper() for p in self.linear.teams}:
            return "linear"
        configured = [name for name, c in (("jira", self.jira), ("linear", self.linear)) if c is not None]
        return configured[0] if len(configured) == 1 else None


MAX_CONFIG_BYTES = 1024 * 1024  # settings are a few lines; a larger file is not one
_REPO_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9._-]+$")
_TOKEN_LIKE_KEYS = {"token", "api_key", "apikey", "password", "secret"}


def _reject_inline_tokens(table: Mapping[str, Any], where: str) -> None:
    for key, value in table.items():
        if key.lower() in _TOKEN_LIKE_KEYS:
            raise BadInput(f"{where}: '{key}' must not hold a secret; name the environment variable in token_env")
        if isinstance(value, Mapping):
            _reject_inline_tokens(value, f"{where}.{key}")


def parse_config(table: Mapping[str, Any], origin: str) -> DossierConfig:
    """Validate a `[dossier]` table; a bad value is a one-line `bad_input` naming the field."""
    if not isinstance(table, Mapping):
        raise BadInput(f"{origin}: [dossier] must be a table")
    _reject_inline_tokens(table, f"{origin} [dossier]")
    try:
        cfg = msgspec.convert(dict(table), DossierConfig)
    except msgspec.ValidationError as exc:
        raise BadInput(f"{origin}: invalid dossier setting: {exc}") from None
    if cfg.github_repo and not _REPO_NAME.match(cfg.github_repo):
        raise BadInput(f"{origin}: dossier.github_repo must look like owner/repo")
    if cfg.jira and cfg.jira.api_version not in (2, 3):
        raise BadInput(f"{origin}: dossier.jira.api_version must be 2 or 3")
    for tracker in (cfg.jira, cfg.linear):
        if tracker and not re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", tracker.token_env):
            raise BadInput(f"{origin}: token_env must be an environment variable name")
    if cfg.timeout_seconds <= 0 or cfg.item_body_chars <= 0 or cfg.dossier_bytes <= 0 or cfg.item_bytes <= 0:
        raise BadInput(f"{origin}: dossier timeouts and bounds must be positive")
    cfg.origin = origin
    return cfg


def _toml(data: bytes, origin: str) -> dict[str, Any]:
    try:
        return decode_toml(data, max_bytes=MAX_CONFIG_BYTES)
    except Undecodable as exc:
        raise BadInput(f"{origin}: not valid TOML ({exc})") from None


def _blob_at(repo: pygit2.Repository, commit_oid: str, path: str) -> bytes | None:
    tree = repo[commit_oid].peel(pygit2.Tree)
    try:
        entry = tree[path]
    except KeyError:
        return None
    obj = repo[entry.id]
    return obj.data if isinstance(obj, pygit2.Blob) else None


def load_config(repo: pygit2.Repository, head_oid: str,
                explicit: Mapping[str, Any] | DossierConfig | None = None) -> DossierConfig:
    """The dossier settings of the project at `head_oid` (defaults when none are written)."""
    if isinstance(explicit, DossierConfig):
        return explicit
    if explicit is not None:
        table = explicit.get("dossier", explicit) if isinstance(explicit, Mapping) else explicit
        return parse_config(table, "explicit")
    if (data := _blob_at(repo, head_oid, ".rennet.toml")) is not None:
        origin = f".rennet.toml@{head_oid[:12]}"
        return parse_config(_toml(data, origin).get("dossier", {}), origin)
    if (data := _blob_at(repo, head_oid, "pyproject.toml")) is not None:
        origin = f"pyproject.toml@{head_oid[:12]}"
        tool = _toml(data, origin).get("tool", {}).get("rennet")
        if isinstance(tool, Mapping) and "dossier" in tool:
            return parse_config(tool["dossier"], origin + " [tool.rennet]")
    if repo.workdir:
        local = Path(repo.workdir) / ".rennet.toml"
        if local.is_file():
            return parse_config(_toml(local.read_bytes(), str(local)).get("dossier", {}), str(local))
    return DossierConfig()


_REMOTE = re.compile(r"(?i)github\.com[:/]+([A-Za-z0-9][A-Za-z0-9._-]*)/([A-Za-z0-9._-]+?)(?:\.git)?/?$")


def github_repo(repo: pygit2.Repository, cfg: DossierConfig) -> str:
    """"owner/repo" of this repository on GitHub: configured, else the origin (or first) github.com remote."""
    if cfg.github_repo:
        return cfg.github_repo
    remotes = sorted(repo.remotes, key=lambda r: (r.name != "origin", r.name))
    for remote in remotes:
        if remote.url and (m := _REMOTE.search(remote.url)):
            return f"{m.group(1)}/{m.group(2)}"
    return ""
