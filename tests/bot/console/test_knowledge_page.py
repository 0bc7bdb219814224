"""The console's Knowledge page (issue 39): the kept solved threads, their text escaped; Forget deletes one only with
the session's CSRF token (a forged token, or a bearer token, changes nothing), and the audit log says who."""

from __future__ import annotations

import time

import redis

from tests.support.console_harness import TOKEN, served
from tools.solved_threads import SolvedThread
from workers.approvals import audit
from workers.knowledge import entries


def test_forget_needs_the_sessions_csrf_token_and_deletes_the_entry(redis_url: str, redis_conn: redis.Redis) -> None:
    entries.save(
        redis_conn,
        SolvedThread(
            "K00000000aa",
            "How do I <script>x()</script> keep leases?",
            "Raise `lease_seconds`.",
            (),
            "https://slack.example/p1",
            time.time(),
        ),
    )
    with served(redis_url, redis_conn) as console:
        browser = console.signed_in()
        page = browser.get("/knowledge")
        assert page.status_code == 200 and "K00000000aa" in page.text and "<script>x()" not in page.text
        csrf = page.text.split('action="/console/knowledge/forget"><input type="hidden" name="csrf" value="')[1].split(
            '"'
        )[0]
        assert browser.post("/knowledge/forget", data={"csrf": "forged", "id": "K00000000aa"}).status_code == 403
        bearer = console.client().post(
            "/knowledge/forget", data={"csrf": "", "id": "K00000000aa"}, headers={"Authorization": f"Bearer {TOKEN}"}
        )
        assert bearer.status_code == 403 and entries.get(redis_conn, "K00000000aa") is not None
        done = browser.post("/knowledge/forget", data={"csrf": csrf, "id": "K00000000aa"})
        assert done.status_code == 303 and done.headers["location"] == "/console/knowledge"
        assert entries.get(redis_conn, "K00000000aa") is None and "No solved thread" in browser.get("/knowledge").text
    [forgot] = [e for e in audit.entries(redis_conn) if e.get("tool") == "forget_knowledge"]
    assert forgot.get("decider") == "token" and "K00000000aa" in forgot.get("result")
