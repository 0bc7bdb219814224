"""@mentions made inert in what Atlas writes to GitHub (tools/mentions.py): wrapped as inline code, but
never inside code (already inert) and never in an email address; applying it twice changes nothing."""

from __future__ import annotations

import json

import pytest

from tools.mentions import defuse_arguments, neutralise


@pytest.mark.parametrize(
    ("text", "inert"),
    [
        ("cc @alice and @acme/core-team.", "cc `@alice` and `@acme/core-team`."),
        ("(@bob), @carol-d!", "(`@bob`), `@carol-d`!"),
        ("&#64;dave &#x40;erin &commat;frank", "`@dave` `@erin` `@frank`"),  # GitHub decodes these, then mentions
        ("`x`@amy", "`x` `@amy`"),  # a backtick next to the wrap would join its run
        ("one ` literal, then @zed", "one ` literal, then ``@zed``"),  # the wrap must not close the literal backtick
    ],
)
def test_live_mentions_are_wrapped_as_inline_code(text: str, inert: str) -> None:
    assert neutralise(text) == inert
    assert neutralise(inert) == inert


@pytest.mark.parametrize(
    "text",
    [
        "write to ops@acme.io or first.last+x@example.org",
        "git@github.com:acme/rocket.git and https://medium.com/@writer",
        "already inert: `@alice`, ``a `@b` c``",
        "```python\n@decorator\ndef f(): ...\n```\n~~~\n@inside\n~~~",
        "an @ alone, a trailing @, @-not-a-login",
    ],
)
def test_code_emails_and_non_mentions_are_left_alone(text: str) -> None:
    assert neutralise(text) == text


def test_only_the_prose_around_a_code_block_changes() -> None:
    text = "Seen by @alice:\n\n```\nKeyError @ line 3 (@bob)\n```\nthanks @carol"
    assert neutralise(text) == "Seen by `@alice`:\n\n```\nKeyError @ line 3 (@bob)\n```\nthanks `@carol`"


def test_a_calls_arguments_are_defused_only_in_the_text_it_posts() -> None:
    raw = json.dumps({"title": "Crash @alice saw", "body": "cc @acme/core", "labels": ["bug"]})
    assert json.loads(defuse_arguments("create_issue", raw)) == {
        "title": "Crash `@alice` saw",
        "body": "cc `@acme/core`",
        "labels": ["bug"],
    }
    quiet = json.dumps({"issue_id": 3, "body": "mail ops@acme.io"})
    assert defuse_arguments("post_comment", quiet) is quiet  # nothing to change: the very same arguments
    labels = json.dumps({"issue_id": 3, "labels": ["@alice"]})
    assert defuse_arguments("add_labels", labels) is labels
