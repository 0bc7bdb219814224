"""The console's pages (issue 30 items 2-4) through the real app: untrusted text renders as text, the runs
list filters and pages, a run's page shows its steps, results, cost and feedback, and no page shows a secret."""

from __future__ import annotations

import redis

from tests.support.console_harness import TOKEN, finished_run, served
from workers.console_data import votes

SCRIPT = "<script>alert('x')</script>"


def test_a_question_holding_script_renders_as_text_everywhere(redis_url: str, redis_conn: redis.Redis) -> None:
    with served(redis_url, redis_conn) as console:
        run = finished_run(
            redis_conn, question=f"Why {SCRIPT}?", answer=f'<img src=x onerror="alert(1)"> {SCRIPT}', channel='C"><b>x'
        )
        browser = console.signed_in()
        for path in ("/runs", f"/runs/{run.id}", "/runs?channel=C%22%3E%3Cb%3Ex", "/gaps", "/usage"):
            page = browser.get(path)
            assert page.status_code == 200, path
            assert "<script" not in page.text and "<img" not in page.text and '"><b>' not in page.text, path
            assert "default-src 'none'" in page.headers["content-security-policy"]
        assert "Why &lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;?" in browser.get("/runs").text


def test_runs_filter_page_and_show_one_run(redis_url: str, redis_conn: redis.Redis) -> None:
    with served(redis_url, redis_conn) as console:
        slack = [finished_run(redis_conn, question=f"slack question {n}") for n in range(55)]
        finished_run(redis_conn, question="discord question", kind="discord", channel="D9", team="G1")
        votes.toggle(redis_conn, slack[3].id, "U7", "down")
        browser = console.signed_in()
        first = browser.get("/runs").text
        assert "discord question" in first and "slack question 54" in first and "slack question 5<" not in first
        older = first.split('href="')[-1].split('"')[0].replace("&amp;", "&")
        assert "before=" in older
        second = browser.get(older.removeprefix("/console")).text
        assert "slack question 5<" in second and "slack question 54" not in second and "Older runs" not in second
        only = browser.get("/runs?platform=discord").text
        assert "discord question" in only and "slack question" not in only
        assert "slack question 3<" in browser.get("/runs?feedback=down").text
        assert "slack question" not in browser.get("/runs?feedback=down&platform=discord").text
        shown = browser.get(f"/runs/{slack[3].id}").text
        for expected in (
            "slack question 3",
            "search_docs",
            "&quot;query&quot;: &quot;retries&quot;",
            "retries.md: backs off exponentially",
            "$0.0021",
            "They back off.",
            "retries",
            "U7: down",
            "https://app.slack.com/client/T0TEST/C1/thread/C1-1700000000.000100",
        ):
            assert expected in shown, expected
        assert browser.get("/runs/nope").status_code == 404


def test_no_page_shows_a_secret(redis_url: str, redis_conn: redis.Redis) -> None:
    secrets = {
        "ATLAS_CONSOLE_SLACK_CLIENT_ID": "1234.5678",
        "ATLAS_CONSOLE_SLACK_CLIENT_SECRET": "client-secret-xyz",
        "ATLAS_CONSOLE_URL": "SELF",
        "SLACK_SIGNING_SECRET": "signing-secret-xyz",
        "ATLAS_MCP_TOKEN": "mcp-token-0123456789",
        "OPENAI_API_KEY": "sk-openai-secret",
    }
    with served(redis_url, redis_conn, **secrets) as console:
        run = finished_run(redis_conn)
        browser = console.signed_in()
        for path in ("/runs", f"/runs/{run.id}", "/health", "/usage", "/gaps", "/gaps.csv", "/approvals", "/signin"):
            text = browser.get(path).text
            for secret in (
                TOKEN,
                "client-secret-xyz",
                "signing-secret-xyz",
                "mcp-token-0123456789",
                "sk-openai-secret",
                console.api.token,
                redis_url,
            ):
                assert secret not in text, (path, secret)


def test_coverage_gaps_group_questions_with_the_closest_docs_and_export_csv(
    redis_url: str, redis_conn: redis.Redis
) -> None:
    with served(redis_url, redis_conn, ATLAS_DATA="") as console:
        nothing = "I could not find anything about this in the docs or the issue tracker."
        finished_run(redis_conn, question="How do I rotate webhook secrets?", answer=nothing)
        finished_run(redis_conn, question='=HYPERLINK("http://x") webhook secrets expire?', answer=nothing)
        liked = finished_run(redis_conn, question="What is the default retry limit?")
        finished_run(redis_conn, question="How are retries scheduled?")  # answered, no vote: not a gap
        votes.toggle(redis_conn, liked.id, "U2", "down")
        browser = console.signed_in()
        page = browser.get("/gaps").text
        assert "“secrets” · 2" in page or "“webhook” · 2" in page, page[:2000]
        assert "retry limit" in page and "scheduled" not in page and "Closest docs:" in page
        exported = browser.get("/gaps.csv")
        assert exported.headers["content-type"].startswith("text/csv")
        lines = exported.text.strip().splitlines()
        assert lines[0].startswith("group,group_count") and len(lines) == 4
        assert "'=HYPERLINK" in exported.text and ",=HYPERLINK" not in exported.text  # no formula runs in a spreadsheet


def test_approvals_page_shows_waiting_calls_and_searches_the_audit_log(redis_url: str, redis_conn: redis.Redis) -> None:
    from workers.approvals import audit
    from workers.runs.state import PendingCall
    from workers.runs.store import RunStore

    with served(redis_url, redis_conn) as console:
        run = finished_run(redis_conn, question="Please label issue 12")
        run.status, run.pending = (
            "awaiting_approval",
            [
                PendingCall(
                    pending_id="p1",
                    call_id="c1",
                    name="add_labels",
                    arguments='{"issue_id": 12, "labels": ["<b>bug</b>"]}',
                    step=1,
                )
            ],
        )
        RunStore(redis_conn).save(run)
        audit.append(
            redis_conn,
            "decision",
            run=run.id,
            tool="close_issue",
            decider="UMAINT",
            decision="approved",
            arguments='{"issue_id": 7}',
        )
        audit.append(
            redis_conn, "request", run=run.id, tool="add_comment", requester="UASK", arguments='{"issue_id": 9}'
        )
        audit.append(redis_conn, "result", run=run.id, tool="close_issue", decision="done", result="closed #7")
        browser = console.signed_in()
        page = browser.get("/approvals").text
        assert "add_labels" in page and "&lt;b&gt;bug&lt;/b&gt;" in page and "<b>bug" not in page
        assert "UMAINT" in page and "approved" in page and "closed #7" in page.split("Latest results")[1]
        searched = browser.get("/approvals?q=add_comment").text.split("Audit log")[1]
        assert "add_comment" in searched and "close_issue" not in searched
