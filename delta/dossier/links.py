"""Which links a tracker's answer may put in a dossier.

An item's `url` and `links` are what a tracker sent. Only plain web links are kept
(`delta/dossier/web_link.py`); anything else is dropped and said in a fact.
"""

from __future__ import annotations

from delta.dossier.items import Fact, Fetched
from delta.dossier.refs import MAX_DIGITS, TRACKER_KEY
from delta.dossier.web_link import URL_CHARACTERS, link_refusal


def is_ticket_id(link: str, tracker: str) -> bool:
    """Whether `link` is a ticket id as its tracker lists one (`ABC-1`; GitHub's `#5`, `owner/repo#5`)."""
    if tracker == "github":
        repo, hash_, number = link.rpartition("#")
        return (bool(hash_) and number.isascii() and number.isdigit() and len(number) <= MAX_DIGITS
                and (not repo or (repo.count("/") == 1 and URL_CHARACTERS.issuperset(repo))))
    return TRACKER_KEY.fullmatch(link) is not None


def shown_links(fetched: Fetched, ref: str) -> tuple[Fetched, list[Fact]]:
    """The ticket with its `url` kept only when it may be shown (blank otherwise, as when a tracker
    sends none) and its `links` only those that are ticket ids or such URLs, with an `insecure_url`
    fact for what was dropped."""
    facts: list[Fact] = []
    tracker = fetched.tracker
    if fetched.url and (why := link_refusal(fetched.url)) is not None:
        fetched.url = ""
        facts.append(Fact("insecure_url", tracker, ref,
                          f"{tracker}: the url sent for {ref} {why}; dropped, not shown as a link"))
    kept = [link for link in fetched.links if is_ticket_id(link, tracker) or link_refusal(link) is None]
    if len(kept) < len(fetched.links):
        dropped = len(fetched.links) - len(kept)
        facts.append(Fact("insecure_url", tracker, ref,
                          f"{tracker}: {dropped} of the links sent for {ref} are neither a ticket id nor an "
                          f"http or https link; dropped"))
        fetched.links = kept
    return fetched, facts
