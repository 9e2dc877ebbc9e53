"""Per-project settings read from the pinned head commit, and their validation."""

from __future__ import annotations

from pathlib import Path

import pytest

from corpora.gitbuild import RepoBuilder
from delta.dossier.config import (
    ENV_OVERRIDES,
    READ_ENV,
    DossierConfig,
    github_repo,
    load_config,
    parse_config,
    user_config_path,
)
from indexer.contract.errors import BadInput

RENNET = """
[dossier]
tracker_prefixes = ["OPS"]
timeout_seconds = 3

[dossier.jira]
base_url = "https://acme.atlassian.net"
token_env = "ACME_JIRA"
projects = ["ABC"]
"""

PYPROJECT = """
[project]
name = "w"

[tool.rennet.dossier.linear]
token_env = "LIN"
teams = ["ENG"]
"""


@pytest.fixture(autouse=True)
def own_config(tmp_path, monkeypatch):
    """The user's own config folder, empty unless a test writes to it; no trusted overrides."""
    monkeypatch.delenv("RENNET_HOME", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    for name in (*ENV_OVERRIDES.values(), *READ_ENV.values()):
        monkeypatch.delenv(name, raising=False)
    return tmp_path / "xdg" / "rennet" / "config.toml"


def write_user_config(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def repo_with(tmp_path, base_files, head_files):
    b = RepoBuilder(tmp_path / "r")
    base = b.commit(base_files, "base")
    head = b.commit(head_files, "head")
    return b.repo, base, head


def test_rennet_toml_at_the_head_commit_gives_only_non_secret_settings(tmp_path, own_config):
    repo, base, head = repo_with(tmp_path, {"a": "1"}, {".rennet.toml": RENNET})
    cfg = load_config(repo, head)
    assert cfg.jira is not None and cfg.timeout_seconds == 3 and cfg.prefixes() == ["ABC", "OPS"]
    # where the token goes and which variable holds it: not taken from the commit under review
    assert (cfg.jira.base_url, cfg.jira.token_env) == ("", "")
    assert [(f.code, f.ref) for f in cfg.refused] == [("untrusted_config", "dossier.jira.base_url"),
                                                      ("untrusted_config", "dossier.jira.token_env")]
    assert str(own_config) in cfg.refused[0].message and "acme" not in cfg.refused[0].message
    assert cfg.origin == f".rennet.toml@{head[:12]}"
    assert load_config(repo, base) == DossierConfig()  # the base commit has none


def test_credential_settings_come_from_the_users_config_environment_and_flags(tmp_path, own_config, monkeypatch):
    repo, _, head = repo_with(tmp_path, {"a": "1"}, {".rennet.toml": RENNET})
    write_user_config(own_config, '[dossier.jira]\nbase_url = "https://jira.example.org"\ntoken_env = "MY_JIRA"\n'
                                  'projects = ["MINE"]\n')
    cfg = load_config(repo, head)
    assert (cfg.jira.base_url, cfg.jira.token_env) == ("https://jira.example.org", "MY_JIRA")
    assert cfg.jira.projects == ["MINE", "ABC"] and cfg.prefixes() == ["ABC", "MINE", "OPS"]
    assert {f.ref for f in cfg.refused} == {"dossier.jira.base_url", "dossier.jira.token_env"}
    assert cfg.origin == f"{own_config} + .rennet.toml@{head[:12]}"
    monkeypatch.setenv("RENNET_JIRA_URL", "https://env.example.org")
    assert load_config(repo, head).jira.base_url == "https://env.example.org"
    flagged = load_config(repo, head, flags={"jira.base_url": "https://flag.example.org", "jira.token_env": None})
    assert (flagged.jira.base_url, flagged.jira.token_env) == ("https://flag.example.org", "MY_JIRA")
    # a repository repeating the user's own value is not a refusal
    same = RENNET.replace("https://acme.atlassian.net", "https://jira.example.org").replace("ACME_JIRA", "MY_JIRA")
    monkeypatch.delenv("RENNET_JIRA_URL")
    repo2, _, head2 = repo_with(tmp_path / "two", {"a": "1"}, {".rennet.toml": same})
    assert load_config(repo2, head2).refused == []


def test_the_user_config_lives_in_rennet_home_when_it_is_set(tmp_path, monkeypatch):
    assert user_config_path({"XDG_CONFIG_HOME": "/x"}) == Path("/x/rennet/config.toml")
    assert user_config_path({"RENNET_HOME": "/h", "XDG_CONFIG_HOME": "/x"}) == Path("/h/config.toml")
    monkeypatch.setenv("RENNET_HOME", str(tmp_path / "home"))
    write_user_config(tmp_path / "home" / "config.toml", '[dossier.linear]\ntoken_env = "LIN_KEY"\n')
    repo, _, head = repo_with(tmp_path, {"a": "1"}, {"pyproject.toml": PYPROJECT})
    cfg = load_config(repo, head)
    assert cfg.linear.token_env == "LIN_KEY" and cfg.linear.teams == ["ENG"]
    assert [f.ref for f in cfg.refused] == ["dossier.linear.token_env"]


def test_pyproject_tool_rennet(tmp_path):
    repo, _, head = repo_with(tmp_path, {"a": "1"}, {"pyproject.toml": PYPROJECT})
    cfg = load_config(repo, head)
    assert cfg.linear is not None and cfg.linear.teams == ["ENG"]
    assert cfg.linear.base_url == "https://api.linear.app/graphql"
    assert cfg.tracker_for_key("ENG-1") == "linear" and cfg.tracker_for_key("XYZ-1") == "linear"


def test_the_committed_file_wins_over_the_working_tree(tmp_path):
    repo, _, head = repo_with(tmp_path, {"a": "1"}, {".rennet.toml": RENNET})
    (tmp_path / "r" / ".rennet.toml").write_text('[dossier]\ntracker_prefixes = ["WORKTREE"]\n')
    assert load_config(repo, head).prefixes() == ["ABC", "OPS"]


def test_an_uncommitted_local_settings_file_applies_when_nothing_is_committed(tmp_path):
    repo, _, head = repo_with(tmp_path, {"a": "1"}, {"b": "2"})
    local = tmp_path / "r" / ".rennet.toml"
    local.write_text('[dossier]\ntracker_prefixes = ["LOCAL"]\n')
    cfg = load_config(repo, head)
    assert cfg.prefixes() == ["LOCAL"] and cfg.origin == str(local)


def test_explicit_config_overrides_the_repository(tmp_path):
    repo, _, head = repo_with(tmp_path, {"a": "1"}, {".rennet.toml": RENNET})
    assert load_config(repo, head, {"tracker_prefixes": ["X1"]}).prefixes() == ["X1"]
    assert load_config(repo, head, {"dossier": {"tracker_prefixes": ["X2"]}}).prefixes() == ["X2"]


@pytest.mark.parametrize("text, fragment", [
    ("[dossier\n", "not valid TOML"),
    ("[dossier]\ntimeout_seconds = 'soon'\n", "invalid dossier setting"),
    ("[dossier]\ntracker_prefix = ['A']\n", "unknown field"),
    ("[dossier.jira]\nprojects = 'ABC'\n", "projects"),
    ("[dossier.linear]\nauth_scheme = 'Bearer x\\r\\nX-Evil: 1'\n", "auth_scheme"),
    ("[dossier.jira]\nbase_url = 'https://x'\ntoken_env = 'T'\napi_version = 4\n", "api_version"),
    ("[dossier]\ngithub_repo = 'not a repo'\n", "owner/repo"),
    ("[dossier]\ntimeout_seconds = 0\n", "positive"),
    ("[dossier]\ntimeout_seconds = inf\n", "finite"),
    ("[dossier]\ntimeout_seconds = nan\n", "finite"),
    ("[dossier]\nmax_references = -1\n", "negative"),
])
def test_bad_repository_settings_are_a_fact_and_the_review_goes_on(tmp_path, text, fragment):
    repo, _, head = repo_with(tmp_path, {"a": "1"}, {".rennet.toml": text})
    cfg = load_config(repo, head)
    assert [f.code for f in cfg.refused] == ["bad_config"]
    assert fragment in cfg.refused[0].message and "\n" not in cfg.refused[0].message
    assert cfg.prefixes() == DossierConfig().prefixes()  # nothing of the repository's is kept


def test_the_repository_may_lower_bounds_but_not_raise_them(tmp_path, own_config):
    """The code under review never chooses to spend more than the user would: a bound above
    the user's own (or the default) is an `untrusted_config` fact and the user's holds; one
    below it is taken."""
    text = ("[dossier]\nmax_references = 1000000000\ndossier_bytes = 1e12\nitem_bytes = 100\n"
            "timeout_seconds = 60\n")
    repo, _, head = repo_with(tmp_path, {"a": "1"}, {".rennet.toml": text})
    cfg = load_config(repo, head)
    defaults = DossierConfig()
    assert (cfg.max_references, cfg.dossier_bytes, cfg.timeout_seconds) == (
        defaults.max_references, defaults.dossier_bytes, defaults.timeout_seconds)
    assert cfg.item_bytes == 100
    assert sorted((f.code, f.ref) for f in cfg.refused) == [
        ("untrusted_config", "dossier.dossier_bytes"), ("untrusted_config", "dossier.max_references"),
        ("untrusted_config", "dossier.timeout_seconds")]
    write_user_config(own_config, "[dossier]\ntimeout_seconds = 90\n")  # the user's own bound is the ceiling
    cfg = load_config(repo, head)
    assert cfg.timeout_seconds == 60 and "dossier.timeout_seconds" not in {f.ref for f in cfg.refused}


@pytest.mark.parametrize("bound", ["timeout_seconds", "item_body_chars", "item_bytes", "dossier_bytes",
                                   "max_references"])
def test_every_bound_is_held_to_the_users_by_the_least_step(tmp_path, bound):
    """Each of the bounds the dossier spends is held to the user's own: one more than the
    default is an `untrusted_config` fact and the default holds; the default itself is taken."""
    default = getattr(DossierConfig(), bound)
    repo, _, head = repo_with(tmp_path, {"a": "1"}, {".rennet.toml": f"[dossier]\n{bound} = {default + 1}\n"})
    cfg = load_config(repo, head)
    assert getattr(cfg, bound) == default
    assert [(f.code, f.ref) for f in cfg.refused] == [("untrusted_config", f"dossier.{bound}")]
    repo, _, head = repo_with(tmp_path / "same", {"a": "1"}, {".rennet.toml": f"[dossier]\n{bound} = {default}\n"})
    assert load_config(repo, head).refused == []


def test_a_token_written_into_the_config_is_refused_without_echoing_it(tmp_path):
    text = "[dossier.jira]\nbase_url = 'https://x'\ntoken_env = 'T'\ntoken = 'sk-live-SECRET'\n"
    repo, _, head = repo_with(tmp_path, {"a": "1"}, {".rennet.toml": text})
    (fact,) = load_config(repo, head).refused
    assert fact.code == "bad_config" and "token_env" in fact.message and "SECRET" not in fact.message


def test_tracker_routing_with_both_trackers():
    cfg = parse_config({
        "jira": {"base_url": "https://j", "token_env": "J", "projects": ["ABC"]},
        "linear": {"token_env": "L", "teams": ["ENG"]}}, "t")
    assert cfg.tracker_for_key("ABC-1") == "jira" and cfg.tracker_for_key("ENG-1") == "linear"
    assert cfg.tracker_for_key("OPS-1") is None  # two trackers and neither claims it


@pytest.mark.parametrize("url, expected", [
    ("https://github.com/acme/widgets.git", "acme/widgets"),
    ("git@github.com:acme/wid.gets.git", "acme/wid.gets"),
    ("ssh://git@github.com/acme/widgets", "acme/widgets"),
    ("https://gitlab.com/acme/widgets.git", ""),
])
def test_github_repo_from_the_origin_remote(tmp_path, url, expected):
    b = RepoBuilder(tmp_path / "r")
    b.commit({"a": "1"}, "x")
    b.repo.remotes.create("origin", url)
    assert github_repo(b.repo, DossierConfig()) == expected
    assert github_repo(b.repo, DossierConfig(github_repo="o/r")) == "o/r"


def test_github_repo_is_the_origin_remotes_before_any_other(tmp_path):
    """The origin github.com remote names the repository, whatever other remotes sort before it;
    with no origin on GitHub, the first other by name."""
    b = RepoBuilder(tmp_path / "r")
    b.commit({"a": "1"}, "x")
    b.repo.remotes.create("aaa", "https://github.com/fork/widgets.git")
    b.repo.remotes.create("origin", "https://github.com/acme/widgets.git")
    b.repo.remotes.create("zzz", "https://github.com/last/widgets.git")
    assert github_repo(b.repo, DossierConfig()) == "acme/widgets"
    b.repo.remotes.set_url("origin", "https://gitlab.com/acme/widgets.git")
    assert github_repo(b.repo, DossierConfig()) == "fork/widgets"


def test_a_bad_token_env_in_the_users_config_is_one_line_bad_input(tmp_path, own_config):
    repo, _, head = repo_with(tmp_path, {"a": "1"}, {"b": "2"})
    write_user_config(own_config, "[dossier.jira]\nbase_url = 'https://x'\ntoken_env = 'has space'\n")
    with pytest.raises(BadInput) as err:
        load_config(repo, head)
    assert "environment variable name" in err.value.message and str(own_config) in err.value.message


@pytest.mark.parametrize("value", ['"x"', "5", '""', "[]"])
@pytest.mark.parametrize("layer", ["environment", "flags"])
def test_a_tracker_that_is_no_table_under_a_setting_from_the_environment_or_a_flag_is_bad_input(
        tmp_path, own_config, monkeypatch, value, layer):
    """`[dossier] jira = "x"` in the user's config, and RENNET_JIRA_URL (or a flag) setting a
    field within it: one line naming the file and the field, not an internal error."""
    repo, _, head = repo_with(tmp_path, {"a": "1"}, {"b": "2"})
    write_user_config(own_config, f"[dossier]\njira = {value}\n")
    flags = None
    if layer == "environment":
        monkeypatch.setenv("RENNET_JIRA_URL", "https://env.example.org")
    else:
        flags = {"jira.base_url": "https://flag.example.org"}
    with pytest.raises(BadInput) as err:
        load_config(repo, head, flags=flags)
    assert str(own_config) in err.value.message and "dossier.jira must be a table" in err.value.message
    assert "\n" not in err.value.message


def test_a_local_settings_file_is_read_bounded_and_never_through_a_link(tmp_path):
    """The checkout's uncommitted `.rennet.toml` is read only as a regular file of the checkout:
    a link to a file outside (here settings that would apply) is a `bad_config` fact and not
    read, a FIFO or a folder is no settings (opening a FIFO never waits on a writer), and of a huge
    file no more is read than a config may hold."""
    import os
    import tracemalloc

    repo, _, head = repo_with(tmp_path, {"a": "1"}, {"b": "2"})
    local = tmp_path / "r" / ".rennet.toml"
    outside = tmp_path / "outside.toml"
    outside.write_text('[dossier]\ntracker_prefixes = ["OUTSIDE"]\n')
    os.symlink(outside, local)
    cfg = load_config(repo, head)
    assert [f.code for f in cfg.refused] == ["bad_config"] and "symbolic link" in cfg.refused[0].message
    assert "OUTSIDE" not in cfg.prefixes()  # was: the outside file's settings applied
    local.unlink()
    os.mkfifo(local)
    cfg = load_config(repo, head)  # was: blocked for good in open(), waiting on a writer
    assert cfg.refused == [] and cfg.prefixes() == DossierConfig().prefixes()
    local.unlink()
    local.mkdir()  # a folder of that name: no settings either, and no error reading it
    cfg = load_config(repo, head)
    assert cfg.refused == [] and cfg.prefixes() == DossierConfig().prefixes()
    local.rmdir()
    with open(local, "wb") as f:
        f.truncate(1 << 30)  # sparse: a gigabyte of NULs
    tracemalloc.start()
    try:
        cfg = load_config(repo, head)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert [f.code for f in cfg.refused] == ["bad_config"]
    assert peak < 16 << 20, peak  # was: the whole file read before its size was checked


@pytest.mark.parametrize(("size", "read"), [(1024 * 1024, True), (1024 * 1024 + 1, False)])
def test_a_local_settings_file_past_the_bound_is_refused_whole_not_read_cut(tmp_path, size, read):
    """A config holds at most 1 MiB (`MAX_CONFIG_BYTES`): a checkout's `.rennet.toml` of that
    size is read; a byte more is a `bad_config` fact, not its first MiB read as settings."""
    from delta.dossier.config import MAX_CONFIG_BYTES

    repo, _, head = repo_with(tmp_path, {"a": "1"}, {"b": "2"})
    text = '[dossier]\ntracker_prefixes = ["BIG"]\n#'
    (tmp_path / "r" / ".rennet.toml").write_text(text + "x" * (size - len(text) - 1) + "\n")
    assert MAX_CONFIG_BYTES == 1024 * 1024
    cfg = load_config(repo, head)
    assert ("BIG" in cfg.prefixes()) is read
    assert [f.code for f in cfg.refused] == ([] if read else ["bad_config"])


@pytest.mark.parametrize("name", ["token", "Token", "api_key", "API_KEY", "apikey", "password", "Secret"])
def test_a_secret_under_any_token_like_name_is_refused_as_such_without_echoing_it(tmp_path, name):
    """Each name a secret goes by, in any case, is refused with advice to name its variable in
    `token_env`, never as an unknown field only, and the value never appears in the fact."""
    text = f"[dossier.jira]\nprojects = ['ABC']\n{name} = 'sk-live-SECRET'\n"
    repo, _, head = repo_with(tmp_path, {"a": "1"}, {".rennet.toml": text})
    (fact,) = load_config(repo, head).refused
    assert fact.code == "bad_config" and "must not hold a secret" in fact.message
    assert "token_env" in fact.message and "SECRET" not in fact.message


@pytest.mark.parametrize("name", ["origin", "refused", "trusted_github_repo", "trusted_projects", "trusted_teams"])
def test_a_repository_cannot_set_what_is_recorded_of_the_users_trust(tmp_path, name):
    """The fields the settings record of where they came from and what the user vouches for
    (`trusted_github_repo`, `trusted_projects`, ...) are set here, never read: a repository
    naming one is `bad_config`, and the user's settings alone hold."""
    value = "[]" if name in ("refused", "trusted_projects", "trusted_teams") else "'acme/private'"
    repo, _, head = repo_with(tmp_path, {"a": "1"}, {".rennet.toml": f"[dossier]\n{name} = {value}\n"})
    cfg = load_config(repo, head)
    assert [f.code for f in cfg.refused] == ["bad_config"] and f"unknown field '{name}'" in cfg.refused[0].message
    assert cfg.trusted_github_repo == "" and cfg.trusted_projects == []


@pytest.mark.parametrize("bound", ["item_body_chars", "item_bytes", "dossier_bytes"])
def test_a_bound_of_zero_from_the_repository_is_bad_config(tmp_path, bound):
    """Lowering is the repository's to do, to a positive bound: zero is `bad_config` and the
    user's settings hold."""
    repo, _, head = repo_with(tmp_path, {"a": "1"}, {".rennet.toml": f"[dossier]\n{bound} = 0\n"})
    cfg = load_config(repo, head)
    assert [f.code for f in cfg.refused] == ["bad_config"] and "positive" in cfg.refused[0].message
    assert getattr(cfg, bound) == getattr(DossierConfig(), bound)


def test_a_repository_may_ask_for_no_references_at_all(tmp_path):
    """`max_references = 0` lowers the bound to nothing fetched: taken, no fact."""
    repo, _, head = repo_with(tmp_path, {"a": "1"}, {".rennet.toml": "[dossier]\nmax_references = 0\n"})
    cfg = load_config(repo, head)
    assert cfg.max_references == 0 and cfg.refused == []


def test_a_dossier_table_of_a_callers_config_that_is_no_table_is_one_line_bad_input(tmp_path):
    repo, _, head = repo_with(tmp_path, {"a": "1"}, {"b": "2"})
    with pytest.raises(BadInput) as err:
        load_config(repo, head, {"dossier": 5})
    assert "[dossier] must be a table" in err.value.message


def test_the_environment_a_caller_passes_is_the_one_read_for_credentials(tmp_path, monkeypatch):
    """A caller's `environ` is the user's environment for the settings too: its tracker URL and
    token variable are taken, the process's own are not."""
    repo, _, head = repo_with(tmp_path, {"a": "1"}, {"b": "2"})
    monkeypatch.setenv("RENNET_JIRA_URL", "https://process.example.org")
    environ = {"XDG_CONFIG_HOME": str(tmp_path / "none"), "RENNET_JIRA_URL": "https://caller.example.org",
               "RENNET_JIRA_TOKEN_ENV": "CALLER_JIRA"}
    cfg = load_config(repo, head, environ=environ)
    assert (cfg.jira.base_url, cfg.jira.token_env) == ("https://caller.example.org", "CALLER_JIRA")


def test_a_bound_given_as_a_boolean_is_bad_config_even_above_the_users(tmp_path, own_config):
    """`true` is no number of references: `bad_config`, not a bound compared as 1, even where
    the user's own bound is 0."""
    write_user_config(own_config, "[dossier]\nmax_references = 0\n")
    repo, _, head = repo_with(tmp_path, {"a": "1"}, {".rennet.toml": "[dossier]\nmax_references = true\n"})
    cfg = load_config(repo, head)
    assert [f.code for f in cfg.refused] == ["bad_config"] and cfg.max_references == 0


@pytest.mark.parametrize("name", ["*/*", "*/repo", "own*/repo"])
def test_the_users_github_allow_names_an_owner_never_a_wildcard_owner(tmp_path, own_config, name):
    """`owner/*` lets every repository of one owner be read with the user's gh credentials; a
    wildcard in the owner would let any be: `bad_input`."""
    write_user_config(own_config, f"[dossier]\ngithub_allow = ['{name}']\n")
    repo, _, head = repo_with(tmp_path, {"a": "1"}, {"b": "2"})
    with pytest.raises(BadInput) as err:
        load_config(repo, head)
    assert "owner/repo or owner/*" in err.value.message


def test_a_key_is_read_only_from_the_tracker_whose_list_names_its_project(tmp_path, own_config):
    """The user's Jira projects say which keys Jira is asked for, their Linear teams which
    Linear is: a team's key is not read from Jira, nor a project's from Linear."""
    write_user_config(own_config, "[dossier.jira]\nprojects = ['ABC']\n[dossier.linear]\nteams = ['ENG']\n")
    repo, _, head = repo_with(tmp_path, {"a": "1"}, {"b": "2"})
    cfg = load_config(repo, head)
    assert cfg.reads_key("jira", "ABC-1") and cfg.reads_key("linear", "ENG-1")
    assert not cfg.reads_key("jira", "ENG-1") and not cfg.reads_key("linear", "ABC-1")


def test_a_repositorys_teams_are_recognised_but_never_read_with_the_users_token(tmp_path, own_config):
    """A Linear team only the repository lists adds keys to recognise in the change, not to
    read: as for Jira projects, only the user's own teams are read."""
    write_user_config(own_config, "[dossier.linear]\ntoken_env = 'LIN'\nteams = ['ENG']\n")
    repo, _, head = repo_with(tmp_path, {"a": "1"}, {".rennet.toml": "[dossier.linear]\nteams = ['OPS']\n"})
    cfg = load_config(repo, head)
    assert cfg.linear.teams == ["ENG", "OPS"] and cfg.trusted_teams == ["ENG"]
    assert cfg.reads_key("linear", "ENG-1") and not cfg.reads_key("linear", "OPS-1")


def test_a_repository_emptying_the_users_github_allow_is_not_obeyed_and_says_so(tmp_path, own_config):
    write_user_config(own_config, "[dossier]\ngithub_allow = ['acme/lib']\n")
    repo, _, head = repo_with(tmp_path, {"a": "1"}, {".rennet.toml": "[dossier]\ngithub_allow = []\n"})
    cfg = load_config(repo, head)
    assert cfg.github_allow == ["acme/lib"]
    assert [(f.code, f.ref) for f in cfg.refused] == [("untrusted_config", "dossier.github_allow")]
