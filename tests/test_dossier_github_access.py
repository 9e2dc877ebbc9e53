"""Which GitHub repositories the user's gh credentials read for a dossier. The references come
from the change under review: an issue of another repository is read only when that repository
is public or the user allowed it outside the repository, so a public pull request cannot have a
CI job's token copy a private repository's issue into a dossier that is then published. `gh` is
the fake on PATH (gh itself is the edge); its call log shows what was asked."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import msgspec
import pytest

from context_tools.faces.errors import Forbidden
from context_tools.faces.packs.dossier import DossierBuildInput, build_handler
from delta.dossier import build_dossier
from delta.dossier.config import ALLOW_ENV, ENV_OVERRIDES, READ_ENV
from delta.dossier.persist import read_payload
from tests.fakes.world import files_containing, gh_calls, install_gh, make_change
from tests.test_dossier_fetch import store  # noqa: F401 - fixture

ROOT = Path(__file__).resolve().parent.parent
GH_TOKEN = "ghp_SECRETaccess0123456789"
PRIVATE_TEXT = "PRIVATE-ROADMAP-TEXT"

WORLD = {
    "acme/widgets#1": {"title": "ours"},
    "pub/lib": "public",
    "pub/lib#2": {"title": "upstream", "body": "see priv/vault#9 and https://github.com/priv/vault/issues/10"},
    "priv/vault": "private",
    **{f"priv/vault#{n}": {"title": f"secret {n}", "body": PRIVATE_TEXT} for n in (5, 6, 9, 10)},
    "corp/inner": "internal",
    "corp/inner#3": {"title": "internal", "body": PRIVATE_TEXT},
    "gone/away#4": {"title": "unseen", "body": PRIVATE_TEXT},  # its repository gh cannot see: 404
}


@pytest.fixture
def gh_log(tmp_path, monkeypatch):
    for name in (*ENV_OVERRIDES.values(), *READ_ENV.values(), ALLOW_ENV):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("RENNET_HOME", str(tmp_path / "home"))  # the user's config: none unless a test writes it
    return install_gh(monkeypatch, tmp_path, WORLD, GH_TOKEN)


def asked(log: Path) -> list[str]:
    return [call[-1] for call in gh_calls(log)]


def facts_by_ref(dossier) -> dict[str, tuple[str, str]]:
    return {f.ref: (f.code, f.message) for f in dossier.facts}


def test_another_repository_is_read_only_when_it_is_public(tmp_path, store, gh_log):
    make_change(tmp_path / "r", ["#1 pub/lib#2 priv/vault#5 priv/vault#6 corp/inner#3",
                                 "see https://github.com/gone/away/issues/4"])
    d = build_dossier(tmp_path / "r", "main", "feature", store=store)
    assert [i.id for i in d.items] == ["#1", "pub/lib#2"]
    # the others stay references of the dossier, each with why it was not read
    assert [r.id for r in d.references] == ["#1", "pub/lib#2", "priv/vault#5", "priv/vault#6", "corp/inner#3",
                                            "gone/away#4"]
    facts = facts_by_ref(d)
    assert {ref: code for ref, (code, _) in facts.items()} == {
        "priv/vault#5": "other_repository", "priv/vault#6": "other_repository",
        "corp/inner#3": "other_repository", "gone/away#4": "other_repository"}
    # a private repository and one gh cannot see read alike: the dossier tells nobody which exists
    assert facts["priv/vault#5"][1].replace("priv/vault", "R") == facts["gone/away#4"][1].replace("gone/away", "R")
    assert "github_allow" in facts["priv/vault#5"][1]
    calls = asked(gh_log)
    # the issue endpoint of a repository that is not public is never called
    assert not [c for c in calls if "/issues/" in c and not c.startswith(("repos/acme/widgets/", "repos/pub/lib/"))]
    # each repository is asked once a retrieval; this one never
    assert sorted(c for c in calls if "/issues/" not in c) == ["repos/corp/inner", "repos/gone/away",
                                                               "repos/priv/vault", "repos/pub/lib"]
    assert PRIVATE_TEXT.encode() not in msgspec.json.encode(d)
    assert files_containing(tmp_path / "home", PRIVATE_TEXT) == []


def test_the_repositories_vouched_for_are_named_whole_in_any_case():
    """This repository and those the user allowed are named whole: a name they begin is another
    repository, and `owner/*` allows that owner's alone."""
    from delta.dossier.github import RepoAccess

    access = RepoAccess("acme/widgets", ["Corp/*", "pub/lib"])
    assert all(access.vouched(name) for name in ("acme/widgets", "ACME/Widgets", "corp/x", "Pub/Lib"))
    assert not any(access.vouched(name) for name in ("acme/widgets-private", "acme/widget", "corpx/y",
                                                     "pub/lib2", "other/corp"))


@pytest.mark.parametrize("answer", [{"private": False, "visibility": "internal"}, {"private": True},
                                    {"private": False, "visibility": "private"},
                                    {"private": True, "visibility": "public"}, {"private": "false"}])
def test_a_repository_is_public_only_when_it_says_so_both_ways(tmp_path, store, gh_log, monkeypatch, answer):
    """An Enterprise `internal` repository may say `private: false`, and an older server may send
    no visibility: only `private: false` with visibility public (or none) reads as public."""
    log = install_gh(monkeypatch, tmp_path, {**WORLD, "corp/inner": answer}, GH_TOKEN)
    make_change(tmp_path / "r", ["corp/inner#3"])
    d = build_dossier(tmp_path / "r", "main", "feature", store=store)
    assert d.items == []
    assert facts_by_ref(d)["corp/inner#3"][0] in ("other_repository", "malformed_response")
    assert "repos/corp/inner/issues/3" not in asked(log)


def test_a_repository_saying_it_is_not_private_without_a_visibility_is_public(tmp_path, store, gh_log, monkeypatch):
    """An older server sends no visibility: `private: false` alone reads as public."""
    log = install_gh(monkeypatch, tmp_path, {**WORLD, "corp/inner": {"private": False}}, GH_TOKEN)
    make_change(tmp_path / "r", ["corp/inner#3"])
    d = build_dossier(tmp_path / "r", "main", "feature", store=store)
    assert [i.id for i in d.items] == ["corp/inner#3"] and d.facts == []
    assert asked(log) == ["repos/corp/inner", "repos/corp/inner/issues/3"]


def test_a_visibility_answer_without_a_private_flag_is_malformed_once_a_retrieval(tmp_path, store, gh_log,
                                                                                   monkeypatch):
    log = install_gh(monkeypatch, tmp_path, {**WORLD, "corp/inner": {"visibility": "public"}}, GH_TOKEN)
    make_change(tmp_path / "r", ["corp/inner#3 and corp/inner#4"])
    d = build_dossier(tmp_path / "r", "main", "feature", store=store)
    assert d.items == []
    assert {ref: code for ref, (code, _) in facts_by_ref(d).items()} == {"corp/inner#3": "malformed_response",
                                                                       "corp/inner#4": "malformed_response"}
    assert asked(log) == ["repos/corp/inner"]


@pytest.mark.parametrize("url", ["https://github.com/acme/../issues/5", "https://github.com/acme/./issues/5"])
def test_a_repository_named_by_dot_segments_is_never_asked_for(tmp_path, store, gh_log, monkeypatch, url):
    """Even where the user allowed every repository of its owner, a repository named `.` or
    `..` would climb in the API path gh asks with the user's credentials: no repository."""
    monkeypatch.setenv(ALLOW_ENV, "acme/*")
    make_change(tmp_path / "r", [f"see {url}"])
    d = build_dossier(tmp_path / "r", "main", "feature", store=store)
    [ref] = d.references
    assert d.items == [] and facts_by_ref(d)[ref.id][0] == "not_found"
    assert not any(".." in c or "/./" in c for c in asked(gh_log))


@pytest.mark.parametrize("repo", ["acme/widgets/issues", "acme", "acme/", "acme//widgets", "acme/../widgets"])
def test_a_repository_name_of_any_other_shape_than_owner_slash_repo_is_never_asked_for(gh_log, repo):
    """`github.fetch` asks `repos/{repo}/issues/N`: a name of more or fewer parts than owner/repo
    would be another path of the API gh calls with the user's credentials, whoever vouched for it."""
    from delta.dossier.github import RepoAccess, fetch
    from delta.dossier.refs import Reference
    from delta.dossier.transport import TrackerFailure

    ref = Reference(id=f"{repo}#1", tracker="github", number=1, repo=repo)
    with pytest.raises(TrackerFailure) as failure:
        fetch(ref, "acme/widgets", 10.0, access=RepoAccess("acme/widgets", [repo, "acme/*"]))
    assert failure.value.code == "not_found" and asked(gh_log) == []


def test_without_an_access_given_only_this_repository_is_vouched_for(gh_log):
    """`github.fetch`'s default access: this repository read as it is, another asked about first."""
    from delta.dossier.github import fetch
    from delta.dossier.refs import Reference
    from delta.dossier.transport import TrackerFailure

    assert fetch(Reference(id="#1", tracker="github", number=1), "acme/widgets", 10.0).title == "ours"
    with pytest.raises(TrackerFailure) as failure:
        fetch(Reference(id="priv/vault#5", tracker="github", number=5, repo="priv/vault"), "acme/widgets", 10.0)
    assert failure.value.code == "other_repository"
    assert asked(gh_log) == ["repos/acme/widgets/issues/1", "repos/priv/vault"]


def test_a_repository_is_asked_about_once_a_retrieval_however_its_references_spell_it(tmp_path, store, gh_log,
                                                                                       monkeypatch):
    """docs/dossier.md: `gh api repos/O/R` is asked once per repository a retrieval; GitHub's
    names are one in any case."""
    log = install_gh(monkeypatch, tmp_path, {"pub/lib": "public", "pub/lib#2": {"title": "two"}}, GH_TOKEN)
    make_change(tmp_path / "r", ["pub/lib#2 and Pub/Lib#3"])
    d = build_dossier(tmp_path / "r", "main", "feature", store=store)
    assert [i.id for i in d.items] == ["pub/lib#2"]
    assert asked(log) == ["repos/pub/lib", "repos/pub/lib/issues/2", "repos/Pub/Lib/issues/3"]


def test_the_same_access_is_spelled_the_same_in_any_case():
    from delta.dossier.github import access_key

    assert access_key("Acme/Widgets", ["Corp/*", "pub/Lib"]) == access_key("acme/widgets", ["pub/lib", "corp/*"])
    assert access_key("acme/widgets", []) != access_key("acme/other", [])


def test_a_private_repository_the_user_allowed_is_read(tmp_path, store, gh_log, monkeypatch):
    monkeypatch.setenv(ALLOW_ENV, "corp/*")
    make_change(tmp_path / "r", ["priv/vault#5 corp/inner#3 gone/away#4"])
    d = build_dossier(tmp_path / "r", "main", "feature", store=store, flags={"github_allow": "priv/vault"})
    assert [i.id for i in d.items] == ["priv/vault#5", "corp/inner#3"]
    assert facts_by_ref(d)["gone/away#4"][0] == "other_repository"
    calls = asked(gh_log)
    # an allowed repository is read as this one is, without asking what it is
    assert "repos/priv/vault" not in calls and "repos/corp/inner" not in calls
    assert "repos/priv/vault/issues/5" in calls and "repos/gone/away/issues/4" not in calls


def test_a_dossier_built_with_a_private_repository_allowed_is_not_served_without_it(tmp_path, store, gh_log):
    make_change(tmp_path / "r", ["priv/vault#5"])
    allowed = build_dossier(tmp_path / "r", "main", "feature", store=store, flags={"github_allow": "priv/vault"})
    assert [i.id for i in allowed.items] == ["priv/vault#5"]
    again = build_dossier(tmp_path / "r", "main", "feature", store=store)  # the same patchset, no allow list
    assert not again.reused and again.items == []
    assert facts_by_ref(again)["priv/vault#5"][0] == "other_repository"
    assert build_dossier(tmp_path / "r", "main", "feature", store=store).reused  # under the same access, reused


def test_the_users_config_file_allows_too(tmp_path, store, gh_log):
    (tmp_path / "home").mkdir(exist_ok=True)
    (tmp_path / "home" / "config.toml").write_text('[dossier]\ngithub_allow = ["PRIV/Vault"]\n')
    make_change(tmp_path / "r", ["priv/vault#5"])
    d = build_dossier(tmp_path / "r", "main", "feature", store=store)
    assert [i.id for i in d.items] == ["priv/vault#5"]


def test_a_body_link_to_a_private_repository_is_not_followed(tmp_path, store, gh_log):
    make_change(tmp_path / "r", ["port pub/lib#2"])
    d = build_dossier(tmp_path / "r", "main", "feature", store=store)
    [item] = d.items
    assert item.links == ["priv/vault#9", "priv/vault#10"]
    linked = read_payload(store.home, item.payload).linked
    assert [(link.id, link.fact.code if link.fact else None) for link in linked] == [
        ("priv/vault#9", "other_repository"), ("priv/vault#10", "other_repository")]
    assert not [c for c in asked(gh_log) if c.startswith("repos/priv/vault/")]
    assert files_containing(tmp_path / "home", PRIVATE_TEXT) == []


def test_the_change_under_review_can_neither_allow_nor_claim_a_private_repository(tmp_path, store, gh_log):
    """Its `.rennet.toml` names a private repository as allowed and as this repository: neither
    is obeyed for reading. `#5` names priv/vault's issue, read only as another repository's."""
    hostile = '[dossier]\ngithub_allow = ["priv/vault"]\ngithub_repo = "priv/vault"\n'
    make_change(tmp_path / "r", ["fixes #5, see priv/vault#6"], files={".rennet.toml": hostile})
    d = build_dossier(tmp_path / "r", "main", "feature", store=store)
    assert d.items == []
    assert d.target.github_repo == "priv/vault"  # it still names the references
    facts = facts_by_ref(d)
    # priv/vault#6 is `#6` of the repository the settings claim
    assert facts["#5"][0] == "other_repository" and facts["#6"][0] == "other_repository"
    assert facts["dossier.github_allow"][0] == "untrusted_config"
    assert not [c for c in asked(gh_log) if "/issues/" in c]


def test_the_git_remote_is_this_repository_even_when_private(tmp_path, store, gh_log):
    """The clone's own remote is the user's (or the CI's) choice, not the change's: its issues
    are read as before, without asking whether it is public."""
    make_change(tmp_path / "r", ["fixes #5"], remote="https://github.com/priv/vault.git")
    d = build_dossier(tmp_path / "r", "main", "feature", store=store)
    assert [i.id for i in d.items] == ["#5"]
    assert asked(gh_log) == ["repos/priv/vault/issues/5"]


def test_a_bad_allow_list_of_the_user_is_bad_input(tmp_path, store, gh_log):
    from indexer.contract.errors import BadInput

    make_change(tmp_path / "r", ["priv/vault#5"])
    with pytest.raises(BadInput) as err:
        build_dossier(tmp_path / "r", "main", "feature", store=store, flags={"github_allow": "priv"})
    assert "owner/repo" in err.value.message


def test_the_cli_flag_allows_and_an_agent_may_not(tmp_path, gh_log):
    make_change(tmp_path / "r", ["priv/vault#5"])
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    argv = [sys.executable, "-m", "context_tools.faces.cli", "dossier", "--repo", str(tmp_path / "r"),
            "--base", "main", "--head", "feature", "--json"]
    refused = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=ROOT, timeout=120)
    allowed = subprocess.run([*argv, "--refresh", "--github-allow", "priv/vault"], capture_output=True, text=True,
                             env=env, cwd=ROOT, timeout=120)
    assert refused.returncode == 0 and allowed.returncode == 0, refused.stderr + allowed.stderr
    assert [f["code"] for f in json.loads(refused.stdout)["data"]["facts"]] == ["other_repository"]
    assert [i["id"] for i in json.loads(allowed.stdout)["data"]["items"]] == ["priv/vault#5"]
    # over an agent face the same setting is the user's, not the client's
    ctx = type("AgentCall", (), {"roots": ()})()
    with pytest.raises(Forbidden):
        build_handler(DossierBuildInput(base="main", head="feature", repo=str(tmp_path / "r"),
                                        github_allow=["priv/vault"]), ctx)
