"""A thread that filed or linked an issue follows it in the issue's own repository (issue 38): the call's `repo`
(several served) or the run's, not the first repository's."""

from __future__ import annotations

import redis

from atlas.settings import Settings
from workers.followup import links
from workers.followup import subscriptions as subs
from workers.runs.state import Origin, RunState


def _call(call_id: str, name: str, arguments: str, output: str) -> list[dict[str, str]]:
    return [
        {"type": "function_call", "call_id": call_id, "name": name, "arguments": arguments},
        {"type": "function_call_output", "call_id": call_id, "output": output},
    ]


def test_each_filed_or_linked_issue_is_followed_in_its_repository(redis_conn: redis.Redis) -> None:
    settings = Settings.from_env({"ATLAS_GITHUB_REPOS": "acme/lib,acme/cli"})
    run = RunState(
        question="q",
        origin=Origin(kind="slack", channel="C1", thread_ts="1700000000.000100"),
        items=[
            *_call("a", "create_issue", '{"title": "t", "body": "b", "repo": "cli"}', 'Filed #5 "t": https://x/5'),
            *_call("b", "link_issue", '{"issue_id": 2}', 'Linked this thread to #2 "Crash".'),
            *_call("c", "link_issue", '{"issue_id": 3, "repo": "acme/lib"}', 'Linked this thread to #3 "Slow".'),
        ],
    )
    assert links.subscribe_run(redis_conn, "acme/lib", run, settings.org.canonical) == [5, 2, 3]
    place = subs.place_of(run)
    assert place is not None
    assert sorted(subs.for_thread(redis_conn, place)) == [("acme/cli", 5), ("acme/lib", 2), ("acme/lib", 3)]
