"""What Atlas posts to GitHub pings nobody: `create_issue` (a filed issue, the model's own or a thread's) and
`post_comment`, run through githubkit against the GitHub stand-in, send no live @mention in the POST body
or title, while code, emails and what was already inline code arrive unchanged."""

from __future__ import annotations

import re
from pathlib import Path

from tests.standins.github_api import GitHubAPI
from tests.standins.github_repo import generate
from tests.support.github_writes_harness import call_tool, open_numbers, tracker_for

BODY = (
    "Seen by @alice and the @acme/core team; mail ops@acme.io.\n\n"
    "```\nTraceback: @decorator failed\n```\n"
    "Already inert: `@bob`. Encoded: &#64;carol."
)


def live_mentions(markdown: str) -> list[str]:
    """The @logins GitHub would notify: outside fenced blocks and code spans, after no word character."""
    prose = re.sub(r"(?ms)^```.*?^```", "", markdown)
    prose = re.sub(r"(`+).+?\1", "", prose)
    prose = prose.replace("&#64;", "@")
    return re.findall(r"(?<![\w.+/-])@([A-Za-z0-9][\w/-]*)", prose)


def test_a_filed_issue_and_a_comment_carry_no_live_mention(tmp_path: Path) -> None:
    assert live_mentions(BODY) == ["alice", "acme/core", "carol"]  # the check can fail
    with GitHubAPI(generate(5)) as api:
        tracker, settings = tracker_for(api, tmp_path)
        filed = call_tool(
            tracker, settings, "create_issue", {"title": "Crash that @alice saw", "body": BODY, "labels": []}
        )
        assert filed.ok, filed.text
        number = open_numbers(api)[0]
        commented = call_tool(tracker, settings, "post_comment", {"issue_id": number, "body": BODY}, "c2")
        assert commented.ok, commented.text
        [issue] = api.requests("POST", r"/repos/acme/rocket/issues$")
        [comment] = api.requests("POST", r"/repos/acme/rocket/issues/\d+/comments$")
        assert api.violations == []
    assert issue.body["title"] == "Crash that `@alice` saw" and live_mentions(issue.body["title"]) == []
    for posted in (issue.body["body"], comment.body["body"]):
        assert live_mentions(posted) == []
        assert "`@alice`" in posted and "`@acme/core`" in posted and "`@carol`" in posted
        assert "ops@acme.io" in posted and "Traceback: @decorator failed" in posted and "`@bob`" in posted
