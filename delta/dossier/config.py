"""Dossier settings: tracker prefixes, Jira and Linear endpoints, bounds, and where each may come from.

Two kinds of source. TRUSTED sources are the user's own: their config file
(`$RENNET_HOME/config.toml` when RENNET_HOME is set, else `$XDG_CONFIG_HOME/rennet/config.toml`,
default `~/.config/rennet/config.toml`), the environment (`RENNET_JIRA_URL`,
`RENNET_JIRA_TOKEN_ENV`, `RENNET_JIRA_PROJECTS`, `RENNET_LINEAR_URL`, `RENNET_LINEAR_TOKEN_ENV`,
`RENNET_LINEAR_TEAMS`), command-line flags,
and a mapping a Python caller passes. REPOSITORY sources travel with the code under review:
`.rennet.toml` in the tree at the head OID, else `[tool.rennet]` of `pyproject.toml` there,
else an uncommitted `.rennet.toml` in the work directory (a checkout of the reviewed branch).

A setting that names a credential or where it is sent (`base_url`, `token_env` of a tracker)
is taken only from a trusted source; a repository that names one is not obeyed, and the
dossier carries an `untrusted_config` fact saying so. A repository may still give the
non-secret settings (tracker prefixes, projects, teams, `github_repo`, and bounds, which it
may lower but not raise above the user's own or the defaults: an `untrusted_config` fact
names a bound it would raise). Which other GitHub repositories' issues may be read with the
user's gh credentials though they are not public (`github_allow`) is the user's alone too:
`RENNET_GITHUB_ALLOW` (comma-separated), the `--github-allow` flag or their config file; every
trusted source adds to the list. A `github_repo` the repository gives names its `#N`
references, but is not trusted to be a repository the user may read: unless the user's own
sources or the git remote name it, it is fetched from only as another repository. A token is
never part of any config: only the NAME of the environment variable that holds it, read at
call time by the tracker client. Which Jira projects and Linear teams are read with the user's
token is the user's alone too: a repository's `projects` and `teams` add keys to recognise in
the change, and a key of a project or team only the repository lists is not read.

    [dossier]
    tracker_prefixes = ["OPS"]        # extra tracker-key prefixes of this project
    github_repo = "owner/repo"        # default: the github.com remote (origin first)
    github_allow = ["acme/private-lib", "acme-infra/*"]   # user config, env or flag only
    timeout_seconds = 10
    item_body_chars = 2000
    item_bytes = 8000
    dossier_bytes = 32000
    max_references = 50               # references fetched; the rest are recorded as omitted

    [dossier.jira]
    base_url = "https://acme.atlassian.net"   # user config, env or flag only
    token_env = "JIRA_TOKEN"                  # user config, env or flag only
    projects = ["ABC"]                # keys read: only of the projects your own config lists ("*": any)
    api_version = 2                   # 2 or 3

    [dossier.linear]
    base_url = "https://api.linear.app/graphql"   # user config, env or flag only
    token_env = "LINEAR_API_KEY"                  # user config, env or flag only
    teams = ["ENG"]                   # keys read: only of the teams your own config lists ("*": any)
    auth_scheme = ""                  # "" for a personal API key, "Bearer" for an OAuth token
"""

from __future__ import annotations

import math
import os
import re
import stat
from pathlib import Path
from typing import Mapping

import msgspec
import pygit2
from msgspec import Struct, field

from delta.dossier.items import Fact
from indexer.contract.decode import Undecodable, decode_toml
from indexer.contract.errors import BadInput
from indexer.git.read import blob_oid_at, blob_size, read_blob


class JiraConfig(Struct, forbid_unknown_fields=True):
    base_url: str = ""  # "" when no trusted source names one
    token_env: str = ""
    projects: list[str] = field(default_factory=list)
    api_version: int = 2


class LinearConfig(Struct, forbid_unknown_fields=True):
    token_env: str = ""
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
    # Other repositories whose issues may be read with the user's gh credentials though not public:
    # "owner/repo" or "owner/*"
    github_allow: list[str] = field(default_factory=list)
    origin: str = "defaults"  # where the settings were read: "explicit", ".rennet.toml@<oid>", ...
    refused: list[Fact] = field(default_factory=list)  # repository settings not obeyed (untrusted_config)
    # the github_repo a trusted source gave ("" when none did, or only the repository under review)
    trusted_github_repo: str = ""
    # the Jira projects and Linear teams the user's own sources list: keys of others are not read
    trusted_projects: list[str] = field(default_factory=list)
    trusted_teams: list[str] = field(default_factory=list)

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

    def reads_key(self, tracker: str, key: str) -> bool:
        """Whether `key` may be read from `tracker` with the user's token: its project (Jira) or
        team (Linear) is one the user's own settings list, or they list `*`. The change under
        review names the keys, and its settings may add projects to recognise, not to read."""
        listed = {p.upper() for p in (self.trusted_projects if tracker == "jira" else self.trusted_teams)}
        return ANY_PROJECT in listed or key.rsplit("-", 1)[0].upper() in listed


MAX_CONFIG_BYTES = 1024 * 1024  # settings are a few lines; a larger file is not one
_REPO_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9._-]+$")
_ALLOWED_REPO = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*/(?:\*|[A-Za-z0-9._-]+)$")
_INTERNAL = ("origin", "refused", "trusted_github_repo", "trusted_projects",
             "trusted_teams")  # set here, never read from a table
ANY_PROJECT = "*"  # in the user's own projects or teams: a key of any project or team is read
_TOKEN_LIKE_KEYS = {"token", "api_key", "apikey", "password", "secret"}


def _reject_inline_tokens(table: Mapping[str, object], where: str) -> None:
    for key, value in table.items():
        if key.lower() in _TOKEN_LIKE_KEYS:
            raise BadInput(f"{where}: '{key}' must not hold a secret; name the environment variable in token_env")
        if isinstance(value, Mapping):
            _reject_inline_tokens(value, f"{where}.{key}")


def parse_config(table: object, origin: str) -> DossierConfig:
    """Validate a `[dossier]` table; a bad value is a one-line `bad_input` naming the field."""
    if not isinstance(table, Mapping):
        raise BadInput(f"{origin}: [dossier] must be a table")
    _reject_inline_tokens(table, f"{origin} [dossier]")
    if internal := [name for name in _INTERNAL if name in table]:
        raise BadInput(f"{origin}: invalid dossier setting: unknown field {internal[0]!r}")
    try:
        cfg = msgspec.convert(dict(table), DossierConfig)
    except msgspec.ValidationError as exc:
        raise BadInput(f"{origin}: invalid dossier setting: {exc}") from None
    if cfg.github_repo and not _REPO_NAME.match(cfg.github_repo):
        raise BadInput(f"{origin}: dossier.github_repo must look like owner/repo")
    if bad := [name for name in cfg.github_allow if not _ALLOWED_REPO.match(name)]:
        raise BadInput(f"{origin}: dossier.github_allow entries must look like owner/repo or owner/*, "
                       f"not {bad[0][:80]!r}")
    if cfg.jira and cfg.jira.api_version not in (2, 3):
        raise BadInput(f"{origin}: dossier.jira.api_version must be 2 or 3")
    for tracker in (cfg.jira, cfg.linear):
        if tracker and tracker.token_env and not _ENV_NAME.match(tracker.token_env):
            raise BadInput(f"{origin}: token_env must be an environment variable name")
    if cfg.linear and not re.fullmatch(r"[A-Za-z]*", cfg.linear.auth_scheme):
        raise BadInput(f"{origin}: dossier.linear.auth_scheme must be a word such as Bearer, or empty")
    if not 0 < cfg.timeout_seconds < math.inf or cfg.item_body_chars <= 0 or cfg.dossier_bytes <= 0 \
            or cfg.item_bytes <= 0:
        raise BadInput(f"{origin}: dossier timeouts and bounds must be positive and finite")
    if cfg.max_references < 0:
        raise BadInput(f"{origin}: dossier.max_references must not be negative")
    cfg.origin = origin
    return cfg


_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def _toml(data: bytes, origin: str) -> dict[str, object]:
    try:
        return decode_toml(data, max_bytes=MAX_CONFIG_BYTES)
    except Undecodable as exc:
        raise BadInput(f"{origin}: not valid TOML ({exc})") from None


def _blob_at(repo: pygit2.Repository, commit_oid: str, path: str) -> bytes | None:
    """The file at `path` in the commit under review, its size checked before it is read."""
    if (oid := blob_oid_at(repo, commit_oid, path)) is None:
        return None
    if (size := blob_size(repo, oid)) > MAX_CONFIG_BYTES:
        raise BadInput(f"{path}@{commit_oid[:12]}: not valid TOML (larger than {MAX_CONFIG_BYTES} bytes ({size}))")
    return read_blob(repo, oid)


# --- where settings may come from ---------------------------------------------------------

TRACKERS = ("jira", "linear")
TRUSTED_ONLY = ("base_url", "token_env")  # where a token goes, and which variable holds it
# What the dossier may spend: the time an exchange takes, what it keeps and how many it asks.
BOUNDS = ("timeout_seconds", "item_body_chars", "item_bytes", "dossier_bytes", "max_references")
# Trusted overrides by environment variable, and the flag names of the dossier command.
ENV_OVERRIDES = {"jira.base_url": "RENNET_JIRA_URL", "jira.token_env": "RENNET_JIRA_TOKEN_ENV",
                 "linear.base_url": "RENNET_LINEAR_URL", "linear.token_env": "RENNET_LINEAR_TOKEN_ENV"}
# The Jira projects and Linear teams read with the user's token, comma-separated: they add to
# the config file's lists (a CI job sets them beside its URL and token variable).
READ_ENV = {"jira.projects": "RENNET_JIRA_PROJECTS", "linear.teams": "RENNET_LINEAR_TEAMS"}
# Other repositories the user lets the dossier read with their gh credentials, comma-separated;
# also the flag "github_allow". Never the repository's: a reference in the change under review
# would otherwise choose which private repository is read and published.
ALLOW_ENV = "RENNET_GITHUB_ALLOW"
ALLOW = "github_allow"
_KEY_LISTS = ("tracker_prefixes", "projects", "teams")  # a repository's keys add to the user's


def user_config_path(environ: Mapping[str, str] | None = None) -> Path:
    """The user's own config file: `$RENNET_HOME/config.toml` when RENNET_HOME is set, else
    `config.toml` in the platform config folder (`$XDG_CONFIG_HOME/rennet`, `~/.config/rennet`)."""
    env = os.environ if environ is None else environ
    if home := env.get("RENNET_HOME"):
        return Path(home).expanduser() / "config.toml"
    base = env.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base).expanduser() / "rennet" / "config.toml"


def _user_table(environ: Mapping[str, str] | None) -> tuple[dict[str, object], str]:
    path = user_config_path(environ)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return {}, ""
    except OSError as exc:
        raise BadInput(f"{path}: cannot read your config ({exc.strerror})") from None
    table = _toml(data, str(path)).get("dossier", {})
    if not isinstance(table, Mapping):
        raise BadInput(f"{path}: [dossier] must be a table")
    return dict(table), str(path)


def _repository_table(repo: pygit2.Repository, head_oid: str) -> tuple[dict[str, object], str]:
    """The `[dossier]` table the repository under review gives, and where it was read."""
    if (data := _blob_at(repo, head_oid, ".rennet.toml")) is not None:
        origin = f".rennet.toml@{head_oid[:12]}"
        return _table(_toml(data, origin).get("dossier", {}), origin), origin
    if (data := _blob_at(repo, head_oid, "pyproject.toml")) is not None:
        origin = f"pyproject.toml@{head_oid[:12]}"
        tool = _toml(data, origin).get("tool", {})
        rennet = tool.get("rennet") if isinstance(tool, Mapping) else None
        if isinstance(rennet, Mapping) and "dossier" in rennet:
            return _table(rennet["dossier"], origin + " [tool.rennet]"), origin + " [tool.rennet]"
    if repo.workdir:
        local = os.path.join(repo.workdir, ".rennet.toml")
        if (data := _checkout_file(local)) is not None:
            return _table(_toml(data, local).get("dossier", {}), local), local
    return {}, ""


def _checkout_file(path: str) -> bytes | None:
    """A file of the checkout under review, None when there is none or it is no regular file.
    It is never read through a link (`.rennet.toml -> /proc/self/environ`, or any file outside
    the repository: `BadInput`), nor a FIFO opened to block on, nor more of it than a config
    may hold."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        return None
    except OSError as exc:
        why = "a symbolic link" if os.path.islink(path) else (exc.strerror or type(exc).__name__)
        raise BadInput(f"{path}: not read ({why})") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):  # a folder, a FIFO, a device: no settings
            return None
        with os.fdopen(fd, "rb", closefd=False) as file:
            return file.read(MAX_CONFIG_BYTES + 1)  # one byte over: the decoder refuses it as too large
    finally:
        os.close(fd)


def _table(value: object, origin: str) -> dict[str, object]:
    if not isinstance(value, Mapping):
        raise BadInput(f"{origin}: [dossier] must be a table")
    return dict(value)


def _keys(value: object) -> list[str] | None:
    return value if isinstance(value, list) and all(isinstance(v, str) for v in value) else None


def _overlay(base: dict[str, object], extra: Mapping[str, object]) -> None:
    """Put `extra`'s values over `base`; lists of tracker keys are joined, not replaced."""
    for key, value in extra.items():
        mine, theirs = _keys(base.get(key)), _keys(value)
        if key in _KEY_LISTS and mine is not None and theirs is not None:
            base[key] = mine + [v for v in theirs if v not in mine]
        else:
            base[key] = value


def _raises(value: object, bound: float) -> bool:
    """Whether a repository's `value` for a bound is a finite number above the trusted `bound`
    (any other value is left to `parse_config` to refuse)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value > bound


def _raised(name: str, bound: float, origin: str, user_path: str) -> Fact:
    return Fact("untrusted_config", "repository", f"dossier.{name}",
                f"{origin} raises dossier.{name} above {bound:g}; not obeyed: the code under review may "
                f"lower what the dossier spends, not raise it (yours are set in {user_path})")


def _untrusted(tracker: str, name: str, origin: str, user_path: str) -> Fact:
    return Fact("untrusted_config", tracker, f"dossier.{tracker}.{name}",
                f"{origin} names dossier.{tracker}.{name}; not obeyed: where a token is sent and which "
                f"variable holds it come only from your own config ({user_path}), the environment "
                f"({ENV_OVERRIDES[f'{tracker}.{name}']}) or a flag")


def _allow_list(text: str) -> list[str]:
    return [name.strip() for name in text.split(",") if name.strip()]


def trusted_settings(environ: Mapping[str, str] | None = None,
                     flags: Mapping[str, str | None] | None = None) -> tuple[dict[str, object], list[str]]:
    """The `[dossier]` table the user's own sources give (config file, environment, flags; later
    wins, but each adds to `github_allow`, "github_allow" of `flags` being comma-separated), and
    the names of those sources."""
    env = os.environ if environ is None else environ
    table, path = _user_table(environ)
    sources = [path] if path else []
    for layer, values in (("environment", {**{k: env.get(v) for k, v in (*ENV_OVERRIDES.items(), *READ_ENV.items())},
                                           ALLOW: env.get(ALLOW_ENV)}),
                          ("flags", dict(flags or {}))):
        given = False
        for dotted, value in values.items():
            if value and dotted == ALLOW:
                mine = _keys(table.get(ALLOW, []))
                if mine is not None:  # else the config file's own value is refused by parse_config
                    table[ALLOW] = mine + [name for name in _allow_list(value) if name not in mine]
                given = True
            elif value:
                tracker, name = dotted.split(".")
                # the user's section as decoded: parse_config validates the layers once merged,
                # but a value to set within it must first be a table (`jira = "x"` is not one)
                current = table.get(tracker)
                if current is None:
                    current = {}
                elif not isinstance(current, Mapping):
                    raise BadInput(f"{path}: dossier.{tracker} must be a table, as the {layer} sets "
                                   f"{dotted} within it")
                section = table[tracker] = dict(current)
                if dotted in READ_ENV:
                    mine = _keys(section.get(name, []))
                    if mine is not None:  # else the config file's own value is refused by parse_config
                        section[name] = mine + [key for key in _allow_list(value) if key not in mine]
                else:
                    section[name] = value
                given = True
        if given:
            sources.append(layer)
    return table, sources


def load_config(repo: pygit2.Repository, head_oid: str,
                explicit: Mapping[str, object] | DossierConfig | None = None, *,
                environ: Mapping[str, str] | None = None,
                flags: Mapping[str, str | None] | None = None) -> DossierConfig:
    """The dossier settings for reviewing `head_oid` (defaults when none are written).

    An `explicit` mapping or config from the caller is used alone, as a trusted source. Else
    the user's trusted settings (see `trusted_settings`; `flags` maps "jira.base_url" and the
    like to a value) are overlaid with the repository's non-secret settings; a credential
    setting the repository names is refused as an `untrusted_config` fact in `refused`."""
    if isinstance(explicit, DossierConfig):
        return explicit
    if explicit is not None:
        table = explicit.get("dossier", explicit) if isinstance(explicit, Mapping) else explicit
        cfg = parse_config(table, "explicit")
        return _vouched(cfg, cfg)
    merged, sources = trusted_settings(environ, flags)
    trusted = parse_config(merged, " + ".join(sources)) if sources else DossierConfig()  # yours: errors are yours
    _vouched(trusted, trusted)
    user_path = str(user_config_path(environ))
    repo_origin = ".rennet.toml"
    try:
        repo_table, repo_origin = _repository_table(repo, head_oid)
        refused: list[Fact] = []
        for key, value in repo_table.items():
            if key in TRACKERS and isinstance(value, Mapping):
                current = merged.get(key)  # a table or none: parse_config took `merged` above
                section = dict(current) if isinstance(current, Mapping) else {}
                for name, setting in value.items():
                    if name in TRUSTED_ONLY:
                        if setting != section.get(name):
                            refused.append(_untrusted(key, name, repo_origin, user_path))
                        continue
                    _overlay(section, {name: setting})
                merged[key] = section
            elif key in BOUNDS and _raises(value, getattr(trusted, key)):
                refused.append(_raised(key, getattr(trusted, key), repo_origin, user_path))
            elif key == ALLOW:
                if value != merged.get(ALLOW, []):
                    refused.append(Fact("untrusted_config", "github", f"dossier.{ALLOW}",
                                        f"{repo_origin} names dossier.{ALLOW}; not obeyed: which private "
                                        f"repositories your gh credentials read comes only from your own config "
                                        f"({user_path}), the environment ({ALLOW_ENV}) or --github-allow"))
            else:
                _overlay(merged, {key: value})
        if repo_origin:
            sources.append(repo_origin)
        if not sources:
            return DossierConfig()
        cfg = parse_config(merged, " + ".join(sources))
    except BadInput as exc:
        # The branch under review wrote settings this tool cannot use: a fact in the dossier, and
        # the review goes on with the user's own settings alone.
        trusted.refused = [Fact("bad_config", "repository", repo_origin,
                                f"{exc.message}; the repository's dossier settings are ignored")]
        return trusted
    cfg.refused = refused
    return _vouched(cfg, trusted)


def _vouched(cfg: DossierConfig, trusted: DossierConfig) -> DossierConfig:
    """`cfg`, told what the user's own settings (`trusted`) vouch for: their `github_repo`, and
    the projects and teams whose keys may be read with their tokens."""
    cfg.trusted_github_repo = trusted.github_repo
    cfg.trusted_projects = list(trusted.jira.projects) if trusted.jira is not None else []
    cfg.trusted_teams = list(trusted.linear.teams) if trusted.linear is not None else []
    return cfg


_REMOTE = re.compile(r"(?i)github\.com[:/]+([A-Za-z0-9][A-Za-z0-9._-]*)/([A-Za-z0-9._-]+?)(?:\.git)?/?$")


def github_repo(repo: pygit2.Repository, cfg: DossierConfig) -> str:
    """"owner/repo" of this repository on GitHub: configured, else the origin (or first) github.com remote."""
    return cfg.github_repo or remote_github_repo(repo)


def home_github_repo(repo: pygit2.Repository, cfg: DossierConfig) -> str:
    """The GitHub repository the user vouches for as this one: from their own settings, else the
    git remote (the clone's own config, not the tree under review); "" when neither names one."""
    return cfg.trusted_github_repo or remote_github_repo(repo)


def remote_github_repo(repo: pygit2.Repository) -> str:
    """"owner/repo" of the origin (or first) github.com remote, "" when there is none."""
    remotes = sorted(repo.remotes, key=lambda r: (r.name != "origin", r.name))
    for remote in remotes:
        if remote.url and (m := _REMOTE.search(remote.url)):
            return f"{m.group(1)}/{m.group(2)}"
    return ""
