"""The console's Knowledge page: the solved threads kept as knowledge (workers/knowledge/entries.py), each with a
Forget button. Forgetting is the one change the console makes besides signing in and out: a POST with the
session's CSRF token (a bearer token cannot, as it cannot sign out), written to the audit log."""

from __future__ import annotations

import hmac
from datetime import UTC, datetime

import redis

from bot.console.sessions import Session
from bot.console.web import Request, Response, esc
from workers.approvals import audit
from workers.knowledge import entries

ANSWER_CHARS = 400


def render(conn: redis.Redis, session: Session, prefix: str) -> tuple[str, str]:
    """(title, body): every entry, newest first."""
    kept = entries.listed(conn)
    rows = []
    for entry in kept:
        day = datetime.fromtimestamp(entry.approved_at, tz=UTC).strftime("%Y-%m-%d")
        answer = entry.answer if len(entry.answer) <= ANSWER_CHARS else entry.answer[: ANSWER_CHARS - 1] + "\u2026"
        link = (
            f'<a href="{esc(entry.permalink)}">the thread</a>'
            if entry.permalink.startswith(("https://", "http://"))
            else ""
        )
        forget = (
            f'<form method="post" action="{prefix}/knowledge/forget">'
            f'<input type="hidden" name="csrf" value="{esc(session.csrf)}">'
            f'<input type="hidden" name="id" value="{esc(entry.id)}"><button type="submit">Forget</button></form>'
            if session.how != "bearer"
            else ""
        )
        rows.append(
            f"<tr><td><code>{esc(entry.id)}</code></td><td>{esc(day)}</td><td>{esc(entry.question)}</td>"
            f"<td>{esc(answer)}</td><td>{link}</td><td>{forget}</td></tr>"
        )
    table = (
        (
            "<table><tr><th>id</th><th>approved</th><th>question</th><th>answer</th><th></th><th></th></tr>"
            + "".join(rows)
            + "</table>"
        )
        if rows
        else "<p>No solved thread is kept yet.</p>"
    )
    return "Knowledge", f"<h1>Knowledge</h1><p>{len(kept)} solved thread(s), found by search_history.</p>{table}"


def forget(conn: redis.Redis, req: Request, session: Session, prefix: str) -> Response:
    """Delete the entry the form names; 403 without the session's CSRF token."""
    if (
        session.how == "bearer"
        or not session.csrf
        or not hmac.compare_digest(req.form.get("csrf", "").encode(), session.csrf.encode())
    ):
        return Response.plain("forbidden\n", 403)
    ident = req.form.get("id", "").strip()[:32]
    if entries.forget(conn, ident):
        audit.append(
            conn,
            "result",
            tool="forget_knowledge",
            arguments=ident,
            decider=session.user,
            decision="done",
            result=f"knowledge {ident} forgotten in the console",
        )
    return Response.redirect(f"{prefix}/knowledge")
