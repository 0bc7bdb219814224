"""The console's Health page (issue 30 item 3): queues, workers and heartbeats, approved actions in doubt, the
spool, webhook deliveries (noted by the real webhook handler) and Redis memory, from bounded reads."""

from __future__ import annotations

import hashlib
import hmac
import io
import json
import time
from typing import Any

import redis
from rq import Queue, Worker

from atlas.settings import Settings
from bot.github.webhook import handler
from tests.support.console_harness import finished_run, served
from workers.approvals import audit


def _deliver(settings: Settings, conn: redis.Redis, delivery: str) -> str:
    """One signed `issues` delivery through the real webhook handler (WSGI); its status line."""
    body = json.dumps(
        {"action": "edited", "repository": {"full_name": "octo/widgets"}, "issue": {"number": 1}}
    ).encode()
    signature = "sha256=" + hmac.new(b"hook-secret", body, hashlib.sha256).hexdigest()
    environ: dict[str, Any] = {
        "REQUEST_METHOD": "POST",
        "CONTENT_LENGTH": str(len(body)),
        "wsgi.input": io.BytesIO(body),
        "HTTP_X_HUB_SIGNATURE_256": signature,
        "HTTP_X_GITHUB_EVENT": "issues",
        "HTTP_X_GITHUB_DELIVERY": delivery,
    }
    answered: list[str] = []
    handler(settings, conn)(environ, lambda status, headers: answered.append(status))
    return answered[0]


def test_health_shows_queues_workers_spool_deliveries_and_memory(
    redis_url: str, redis_conn: redis.Redis, tmp_path
) -> None:  # type: ignore[no-untyped-def]
    env = {
        "ATLAS_HOME": str(tmp_path),
        "ATLAS_GITHUB_REPO": "octo/widgets",
        "GITHUB_TOKEN": "ghp-test",
        "GITHUB_WEBHOOK_SECRET": "hook-secret",
    }
    with served(redis_url, redis_conn, **env) as console:
        browser = console.signed_in()
        empty = browser.get("/health").text
        assert (
            "No worker is running" in empty
            and "0 questions in the spool" in empty
            and "No GitHub webhook delivery" in empty
        )
        assert _deliver(console.settings, redis_conn, "d-111").startswith("202")
        assert _deliver(console.settings, redis_conn, "d-111").startswith("200")  # a redelivery: noted as a duplicate
        worker = Worker(
            [Queue(console.settings.queue_name, connection=redis_conn)], connection=redis_conn, name="w-test-1"
        )
        worker.register_birth()
        worker.heartbeat()
        (tmp_path / "spool").mkdir()
        (tmp_path / "spool" / "q1.json").write_text("{}")
        run = finished_run(redis_conn)
        audit.append(
            redis_conn,
            "result",
            run=run.id,
            tool="close_issue",
            arguments='{"issue_id": 4}',
            decision="in_doubt",
            result="GitHub did not answer; may or may not have happened; not retried",
        )
        audit.append(redis_conn, "result", run=run.id, tool="add_labels", arguments='{"issue_id": 5}', decision="done")
        page = browser.get("/health").text
        assert "w-test-1" in page and "No worker is running" not in page
        row = page.split("<td>atlas</td>")[1].split("</tr>")[0]
        assert row.startswith("<td class=n>1</td>"), row  # the delivery's job waits in the queue
        assert "1 questions in the spool" in page
        assert "d-111" in page and "202 queued" in page and "200 duplicate delivery" in page
        assert "Used " in page and "octo/widgets" in page
        doubt = page.split("in doubt (they may")[1].split("</table>")[0]
        assert "close_issue" in doubt and "add_labels" not in doubt and f"/console/runs/{run.id}" in doubt
        stale = time.time() - 10 * console.settings.worker_heartbeat_ttl
        redis_conn.hset(worker.key, "last_heartbeat", time.strftime("%Y-%m-%dT%H:%M:%S.000000Z", time.gmtime(stale)))
        assert 'class="tag bad">' in browser.get("/health").text.split("w-test-1")[1].split("</tr>")[0]
        worker.register_death()
