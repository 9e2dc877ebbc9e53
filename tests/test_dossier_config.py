"""Per-project settings read from the pinned head commit, and their validation."""

from __future__ import annotations

import pytest

from corpora.gitbuild import RepoBuilder
from delta.dossier.config import DossierConfig, github_repo, load_config, parse_config
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


def repo_with(tmp_path, base_files, head_files):
    b = RepoBuilder(tmp_path / "r")
    base = b.commit(base_files, "base")
    head = b.commit(head_files, "head")
    return b.repo, base, head


def test_rennet_toml_at_the_head_commit(tmp_path):
    repo, base, head = repo_with(tmp_path, {"a": "1"}, {".rennet.toml": RENNET})
    cfg = load_config(repo, head)
    assert cfg.jira is not None and cfg.jira.token_env == "ACME_JIRA" and cfg.timeout_seconds == 3
    assert cfg.prefixes() == ["ABC", "OPS"]
    assert cfg.origin == f".rennet.toml@{head[:12]}"
    assert load_config(repo, base) == DossierConfig()  # the base commit has none


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
    ("[dossier.jira]\nbase_url = 'https://x'\n", "token_env"),
    ("[dossier.jira]\nbase_url = 'https://x'\ntoken_env = 'has space'\n", "environment variable name"),
    ("[dossier.jira]\nbase_url = 'https://x'\ntoken_env = 'T'\napi_version = 4\n", "api_version"),
    ("[dossier]\ngithub_repo = 'not a repo'\n", "owner/repo"),
    ("[dossier]\ntimeout_seconds = 0\n", "positive"),
])
def test_bad_settings_are_one_line_bad_input(tmp_path, text, fragment):
    repo, _, head = repo_with(tmp_path, {"a": "1"}, {".rennet.toml": text})
    with pytest.raises(BadInput) as err:
        load_config(repo, head)
    assert err.value.code == "bad_input" and fragment in err.value.message and "\n" not in str(err.value)


def test_a_token_written_into_the_config_is_refused_without_echoing_it(tmp_path):
    text = "[dossier.jira]\nbase_url = 'https://x'\ntoken_env = 'T'\ntoken = 'sk-live-SECRET'\n"
    repo, _, head = repo_with(tmp_path, {"a": "1"}, {".rennet.toml": text})
    with pytest.raises(BadInput) as err:
        load_config(repo, head)
    assert "token_env" in err.value.message and "SECRET" not in str(err.value)


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
