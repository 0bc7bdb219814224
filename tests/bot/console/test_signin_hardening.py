"""Sign in with Slack against what OpenID Connect asks of the app (issue 35): the id_token's nonce is the one
this sign-in sent (a code from another sign-in admits nobody), a state works once, and a session is asked
again every ATLAS_CONSOLE_RECHECK_MINUTES, so someone removed from the console group loses it. The real
console behind waitress, the Slack stand-in (whose token endpoint answers a JWT with the nonce), httpx as
the browsers."""

from __future__ import annotations

import time
from urllib.parse import parse_qs, urlsplit

import httpx
import redis

from tests.support.console_harness import Served, served
from workers.approvals.approvers import group_key

SLACK = {
    "ATLAS_CONSOLE_SLACK_CLIENT_ID": "1234.5678",
    "ATLAS_CONSOLE_SLACK_CLIENT_SECRET": "test-client-secret",
    "ATLAS_CONSOLE_GROUP": "S0OPS",
    "ATLAS_CONSOLE_URL": "SELF",
}


def _prepared(console: Served) -> None:
    console.api.openid.redirect_uris = [f"{console.url}/signin/slack/callback"]
    console.api.add_user("UADMIN", admin=True)
    console.api.add_user("UOPS")
    console.api.add_group("S0OPS", ["UOPS"])


def _to_slack(browser: httpx.Client) -> str:
    """The browser starts signing in; Slack's authorize URL (with this sign-in's state and nonce)."""
    start = browser.get("/signin/slack")
    assert start.status_code == 303
    return str(start.headers["location"])


def _back_from_slack(browser: httpx.Client, authorize: str) -> str:
    """The person consents at Slack; the callback URL Slack redirects to (a fresh code, the state echoed)."""
    at_slack = browser.get(authorize)
    assert at_slack.status_code == 302, at_slack.text
    return str(at_slack.headers["location"])


def test_a_code_from_another_sign_in_admits_nobody(redis_url: str, redis_conn: redis.Redis) -> None:
    with served(redis_url, redis_conn, **SLACK) as console:
        _prepared(console)
        console.api.openid.browser_user = ("UADMIN", "T0TEST")  # the attacker, who may sign in himself
        attacker = console.client()
        injected = parse_qs(urlsplit(_back_from_slack(attacker, _to_slack(attacker))).query)["code"][0]
        victim = console.client()
        state = parse_qs(urlsplit(_to_slack(victim)).query)["state"][0]  # the victim's own sign-in, state and cookie
        done = victim.get("/signin/slack/callback", params={"code": injected, "state": state})
        assert done.status_code == 403 and "not for this sign-in" in done.text
        assert victim.get("/runs").status_code == 303  # signed in as nobody, least of all as the attacker


def test_a_state_works_once(redis_url: str, redis_conn: redis.Redis) -> None:
    with served(redis_url, redis_conn, **SLACK) as console:
        _prepared(console)
        console.api.openid.browser_user = ("UADMIN", "T0TEST")
        browser = console.client()
        authorize = _to_slack(browser)
        kept_cookie = browser.cookies.get("atlas_console_state")
        assert browser.get(_back_from_slack(browser, authorize)).status_code == 303
        # The same state again within its ten minutes, with the cookie kept and a fresh code for it
        replay = console.client()
        replay.cookies.set("atlas_console_state", kept_cookie or "", path="/console")
        again = replay.get(_back_from_slack(replay, authorize))
        assert again.status_code == 403 and replay.get("/runs").status_code == 303


def test_someone_removed_from_the_console_group_loses_the_console_at_the_next_check(
    redis_url: str, redis_conn: redis.Redis
) -> None:
    with served(redis_url, redis_conn, **SLACK, ATLAS_CONSOLE_RECHECK_MINUTES="0.01") as console:
        _prepared(console)
        browsers = {}
        for user in ("UOPS", "UADMIN"):
            console.api.openid.browser_user = (user, "T0TEST")
            browsers[user] = console.client()
            assert browsers[user].get(_back_from_slack(browsers[user], _to_slack(browsers[user]))).status_code == 303
            assert browsers[user].get("/runs").status_code == 200
        console.api.groups["S0OPS"] = []  # removed from the group in Slack
        redis_conn.delete(group_key("S0OPS"))  # the minute Atlas keeps a group's members (as for clicks) has passed
        time.sleep(1.0)  # past ATLAS_CONSOLE_RECHECK_MINUTES
        assert browsers["UOPS"].get("/runs").status_code == 303  # signed out: to the sign-in page
        assert browsers["UOPS"].get("/runs").status_code == 303  # and the session is gone, not just refused once
        assert browsers["UADMIN"].get("/runs").status_code == 200  # still an admin: still in
