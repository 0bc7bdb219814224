"""Who may see the console (issue 30 item 1): nothing without a session, a token form with CSRF and
rate-limited wrong tokens, a signed HttpOnly SameSite cookie, bearer tokens, sign-out that ends the session,
and Sign in with Slack (OpenID Connect against the Slack stand-in) for approvers and ATLAS_CONSOLE_GROUP only."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
import redis

from atlas.errors import ConfigError
from atlas.settings import Settings
from bot.console import attempts
from bot.console.app import console
from tests.support.console_harness import TOKEN, Served, finished_run, served
from tests.support.processes import atlas_serve

PAGES = [
    "/",
    "/runs",
    "/health",
    "/usage",
    "/gaps",
    "/gaps.csv",
    "/approvals",
    "/knowledge",
    "/runs/{id}",
    "/runs?status=done",
]


def test_every_page_refuses_without_a_session(redis_url: str, redis_conn: redis.Redis) -> None:
    with served(redis_url, redis_conn) as console:
        run = finished_run(redis_conn, question="What does the secret roadmap say?")
        browser = console.client()
        for path in PAGES:
            for cookies in ({}, {"atlas_console": "forged.0123"}):
                browser.cookies.clear()
                for name, value in cookies.items():
                    browser.cookies.set(name, value)
                got = browser.get(path.format(id=run.id))
                assert got.status_code == 303 and got.headers["location"] == "/console/signin", (path, got.status_code)
                assert "roadmap" not in got.text
        assert browser.post("/signout", data={"csrf": "x"}).status_code == 303
        # signed in, every page answers (so the refusals above are refusals, not broken pages)
        signed = console.signed_in()
        for path in PAGES:
            got = signed.get(path.format(id=run.id))
            assert got.status_code in (200, 303), (path, got.status_code, got.text[:300])
        assert "roadmap" in signed.get(f"/runs/{run.id}").text


def test_the_session_cookie_is_signed_httponly_and_samesite_and_the_form_needs_its_csrf_token(
    redis_url: str, redis_conn: redis.Redis
) -> None:
    with served(redis_url, redis_conn) as console:
        browser = console.client()
        form = browser.get("/signin")
        assert form.status_code == 200 and 'name="viewport"' in form.text
        form_cookie = form.headers["set-cookie"]
        assert "HttpOnly" in form_cookie and "SameSite=Strict" in form_cookie
        assert browser.post("/signin", data={"token": TOKEN}).status_code == 403  # no CSRF token
        assert browser.post("/signin", data={"token": TOKEN, "csrf": "guessed"}).status_code == 403
        nonce = form.text.split('name="csrf" value="')[1].split('"')[0]
        other = console.client()  # another browser holding the same form value but not its cookie
        assert other.post("/signin", data={"token": TOKEN, "csrf": nonce}).status_code == 403
        done = browser.post("/signin", data={"token": TOKEN, "csrf": nonce})
        assert done.status_code == 303 and done.headers["location"] == "/console/runs"
        session = done.headers["set-cookie"]
        assert session.startswith("atlas_console=") and "HttpOnly" in session and "SameSite=Lax" in session
        assert "Path=/console" in session and "Secure" not in session  # http://: a Secure cookie would never come back
        assert TOKEN not in session
        assert browser.get("/runs").status_code == 200
    with served(redis_url, redis_conn, ATLAS_CONSOLE_URL="https://atlas.example.org/console/") as console:
        browser = console.client()  # over https (behind a proxy) both cookies are Secure; sent back here by hand
        form = browser.get("/signin")
        assert "Secure" in form.headers["set-cookie"]
        nonce = form.text.split('name="csrf" value="')[1].split('"')[0]
        held = form.headers["set-cookie"].split(";")[0]
        done = console.client().post("/signin", data={"token": TOKEN, "csrf": nonce}, headers={"Cookie": held})
        assert done.status_code == 303 and "Secure" in done.headers["set-cookie"]


def test_wrong_tokens_are_rate_limited_and_bearer_tokens_work(redis_url: str, redis_conn: redis.Redis) -> None:
    with served(redis_url, redis_conn) as console:
        browser = console.client()
        assert browser.get("/runs", headers={"Authorization": f"Bearer {TOKEN}"}).status_code == 200
        assert browser.get("/runs", headers={"Authorization": "Bearer wrong-wrong-wrong-wrong"}).status_code == 401
        for _ in range(attempts.LIMIT - 1):
            form = browser.get("/signin")
            nonce = form.text.split('name="csrf" value="')[1].split('"')[0]
            wrong = browser.post("/signin", data={"token": "not-the-token-at-all", "csrf": nonce})
            assert wrong.status_code == 401 and "not the console token" in wrong.text and TOKEN not in wrong.text
        form = browser.get("/signin")
        nonce = form.text.split('name="csrf" value="')[1].split('"')[0]
        blocked = browser.post("/signin", data={"token": TOKEN, "csrf": nonce})  # even the right one, for now
        assert blocked.status_code == 429 and "atlas_console=" not in blocked.headers.get("set-cookie", "")
        assert browser.get("/runs", headers={"Authorization": f"Bearer {TOKEN}"}).status_code == 429


def test_signing_out_needs_the_csrf_token_and_ends_the_session(redis_url: str, redis_conn: redis.Redis) -> None:
    with served(redis_url, redis_conn) as console:
        browser = console.signed_in()
        page = browser.get("/runs")
        csrf = page.text.split('name="csrf" value="')[1].split('"')[0]
        kept = browser.cookies.get("atlas_console")
        assert browser.post("/signout", data={"csrf": "forged"}).status_code == 403
        assert browser.get("/runs").status_code == 200
        out = browser.post("/signout", data={"csrf": csrf})
        assert out.status_code == 303 and "Max-Age=0" in out.headers["set-cookie"]
        stale = console.client()
        stale.cookies.set("atlas_console", kept or "")
        assert stale.get("/runs").status_code == 303  # the old cookie names a session that is gone


def _slack_signin(console: Served, user: str | None, team: str = "T0TEST") -> tuple[httpx.Client, httpx.Response]:
    """A browser through Sign in with Slack: the console, Slack's authorize page, the callback."""
    console.api.openid.browser_user = (user, team) if user else None
    browser = console.client()
    start = browser.get("/signin/slack")
    assert start.status_code == 303 and "HttpOnly" in start.headers["set-cookie"]
    at_slack = browser.get(start.headers["location"])  # the browser at Slack's authorize page
    assert at_slack.status_code == 302, at_slack.text
    return browser, browser.get(at_slack.headers["location"])


def test_sign_in_with_slack_admits_approvers_and_the_console_group_only(
    redis_url: str, redis_conn: redis.Redis
) -> None:
    slack = {
        "ATLAS_CONSOLE_SLACK_CLIENT_ID": "1234.5678",
        "ATLAS_CONSOLE_SLACK_CLIENT_SECRET": "test-client-secret",
        "ATLAS_CONSOLE_GROUP": "S0OPS",
        "ATLAS_CONSOLE_URL": "SELF",
    }
    with served(redis_url, redis_conn, **slack) as console:
        console.api.openid.redirect_uris = [f"{console.url}/signin/slack/callback"]
        console.api.add_user("UADMIN", admin=True)
        console.api.add_user("UMEMBER")
        console.api.add_user("UOPS")
        console.api.add_group("S0OPS", ["UOPS"])
        for user, team, admitted in (
            ("UADMIN", "T0TEST", True),
            ("UOPS", "T0TEST", True),
            ("UMEMBER", "T0TEST", False),
            ("UADMIN", "T0OTHER", False),
        ):
            browser, done = _slack_signin(console, user, team)
            assert (done.status_code == 303) is admitted, (user, team, done.status_code, done.text[:200])
            assert (browser.get("/runs").status_code == 200) is admitted
            assert "test-client-secret" not in done.text and "xoxp-" not in done.text
        browser, denied = _slack_signin(console, None)  # the person declined at Slack
        assert denied.status_code == 403 and browser.get("/runs").status_code == 303
        # a callback that did not start in this browser (a forged or replayed state) signs nobody in
        console.api.openid.browser_user = ("UADMIN", "T0TEST")
        attacker = console.client()
        back = attacker.get(attacker.get("/signin/slack").headers["location"]).headers["location"]
        victim = console.client()
        assert victim.get(back).status_code == 403 and victim.get("/runs").status_code == 303
        assert len(console.api.calls_to("openid.connect.token")) == 4  # the forged callback never reached Slack


def test_the_console_is_off_unless_configured_and_slack_sign_in_needs_the_bot_token(redis_conn: redis.Redis) -> None:
    assert console(Settings.from_env({}), redis_conn) is None
    slack_only = {
        "ATLAS_CONSOLE_SLACK_CLIENT_ID": "1.2",
        "ATLAS_CONSOLE_SLACK_CLIENT_SECRET": "s",
        "ATLAS_CONSOLE_URL": "https://a.example/console",
    }
    with pytest.raises(ConfigError, match="SLACK_BOT_TOKEN"):
        console(Settings.from_env(slack_only), redis_conn)
    for bad, named in (
        ({"ATLAS_CONSOLE_TOKEN": "short"}, "ATLAS_CONSOLE_TOKEN"),
        ({"ATLAS_CONSOLE_SLACK_CLIENT_ID": "1.2"}, "ATLAS_CONSOLE_SLACK_CLIENT_SECRET"),
        ({**slack_only, "ATLAS_CONSOLE_URL": ""}, "ATLAS_CONSOLE_URL"),
    ):
        with pytest.raises(ConfigError, match=named):
            Settings.from_env(bad)
    assert "console-token" not in repr(Settings.from_env({"ATLAS_CONSOLE_TOKEN": "console-token-0123456789"}))


def test_atlas_serve_mounts_the_console_only_when_configured(
    atlas_env: dict[str, str], redis_conn: redis.Redis, tmp_path: Path
) -> None:
    """The real `atlas serve` process: /console/ beside /healthz with a token, not found without one."""
    run = finished_run(redis_conn, question="Served by atlas serve?")
    with atlas_serve({**atlas_env, "ATLAS_CONSOLE_TOKEN": TOKEN}, tmp_path / "serve.log") as port:
        base = f"http://127.0.0.1:{port}/console"
        assert httpx.get(f"{base}/runs", timeout=10).status_code == 303
        page = httpx.get(f"{base}/runs/{run.id}", headers={"Authorization": f"Bearer {TOKEN}"}, timeout=10)
        assert page.status_code == 200 and "Served by atlas serve?" in page.text
        assert "/console/" in (tmp_path / "serve.log").read_text()  # the start-up line names it
    with atlas_serve(atlas_env, tmp_path / "plain.log") as port:
        assert httpx.get(f"http://127.0.0.1:{port}/console/runs", timeout=10).status_code == 404
