"""The Runs pages: the list (newest first, filters, pages) and one run (question, who and where, every step
with its tool calls, arguments and result previews, tokens, cost, stop reason, answer, sources, feedback)."""

from __future__ import annotations

import json
import math
import re
from typing import Any

import redis

from bot.console.layout import table, when
from bot.console.runs_query import FEEDBACK, Filters, Row, listing, menu, total
from bot.console.web import Request, esc
from workers.console_data.run_index import STATUSES
from workers.console_data.votes import votes
from workers.errors import RunNotFound
from workers.runs.state import RunState
from workers.runs.store import RunStore, preview_of

RUN_ID = re.compile(r"^[0-9a-zA-Z_.-]{1,64}$")
ANSWER_CHARS = 20_000
ARGUMENT_CHARS = 1_500


def thread_link(platform: str, team: str, channel: str, thread: str) -> str:
    """Where the run's thread is, on its platform ("" when unknown)."""
    if not (channel and thread):
        return ""
    if platform == "slack" and team:
        return f"https://app.slack.com/client/{team}/{channel}/thread/{channel}-{thread}"
    if platform == "discord" and team:
        return f"https://discord.com/channels/{team}/{thread}"
    return ""


def _select(name: str, label: str, options: list[str], chosen: str) -> str:
    opts = "".join(f'<option value="{esc(o)}"{" selected" if o == chosen else ""}>{esc(o)}</option>' for o in options)
    return f'<label>{esc(label)}<select name="{name}"><option value="">any</option>{opts}</select></label>'


def _gap(row: Row) -> str:
    return f' <span class="tag bad">{esc(row.gap.replace("_", " "))}</span>' if row.gap else ""


def bad_query(req: Request) -> str | None:
    """Why the list's query cannot be answered (a 400), else None: `before` is a run's time in seconds, so
    `nan` or `inf` is not one (Redis refused it, and the error read as an outage)."""
    raw = req.query.get("before")
    if raw and _before(req) is None:
        return "before must be a run's time: a number of seconds, as the Older link gives"
    return None


def _before(req: Request) -> float | None:
    try:
        value = float(req.query["before"]) if req.query.get("before") else None
    except ValueError:
        return None
    return value if value is None or math.isfinite(value) else None


def listing_page(conn: redis.Redis, req: Request, prefix: str) -> tuple[str, str]:
    """The runs list: its title and body."""
    filters = Filters.of(req.query)
    before = _before(req)
    found = listing(conn, filters, before)
    form = (
        '<form class="filters" method="get">'
        + _select("platform", "Platform", menu(conn, "platform"), filters.platform)
        + _select("channel", "Channel", menu(conn, "channel"), filters.channel)
        + _select("status", "Status", list(STATUSES), filters.status)
        + _select("model", "Answered by", menu(conn, "model"), filters.model)
        + _select("feedback", "Feedback", list(FEEDBACK), filters.feedback)
        + '<button type="submit">Filter</button></form>'
    )
    rows = []
    for row in found.rows:
        votes_shown = f"+{row.up} −{row.down}" if row.up or row.down else ""
        rows.append(
            [
                esc(when(row.created_at)),
                f'<a href="{prefix}/runs/{esc(row.id)}">{esc(row.question[:160] or "(no question)")}</a>{_gap(row)}',
                esc(row.platform),
                esc(row.channel),
                esc(row.status),
                esc(row.model),
                esc(row.steps),
                esc(row.tokens),
                esc(f"${row.cost_usd:.4f}"),
                esc(votes_shown),
            ]
        )
    body = f"<h1>Runs</h1><p class=muted>{total(conn)} runs kept (30 days), newest first.</p>{form}" + table(
        ["When", "Question", "Platform", "Channel", "Status", "Answered by", "Steps", "Tokens", "Cost", "Votes"],
        rows,
        frozenset({6, 7, 8}),
    )
    if not found.rows:
        body += "<p>No runs match.</p>"
    if found.older is not None:
        body += f'<p><a href="{esc(req.link(prefix + "/runs", before=repr(found.older)))}">Older runs →</a></p>'
    return "Runs", body


def _calls_by_step(run: RunState) -> list[list[dict[str, Any]]]:
    """The run's function calls, grouped by the step that made them (each step records its tools in order)."""
    calls = [i for i in run.items if i.get("type") == "function_call"]
    grouped: list[list[dict[str, Any]]] = []
    at = 0
    for step in run.steps:
        grouped.append(calls[at : at + len(step.tools)])
        at += len(step.tools)
    if at < len(calls):
        grouped.append(calls[at:])  # calls of a step still in progress (or paused)
    return grouped


def _pretty(arguments: str) -> str:
    try:
        return json.dumps(json.loads(arguments), indent=1, ensure_ascii=False)[:ARGUMENT_CHARS]
    except (TypeError, ValueError):
        return str(arguments)[:ARGUMENT_CHARS]


def run_page(conn: redis.Redis, run_id: str, prefix: str) -> tuple[str, str] | None:
    """One run's page, or None when it is not kept."""
    if not RUN_ID.match(run_id):
        return None
    try:
        run = RunStore(conn).load(run_id)
    except RunNotFound:
        return None
    previews = {
        str(i.get("call_id")): preview_of(i.get("output")) for i in run.items if i.get("type") == "function_call_output"
    }
    origin = run.origin
    link = thread_link(
        origin.kind, origin.team or "", origin.channel or "", origin.thread_ts or origin.message_ts or ""
    )
    where = esc(f"{origin.kind} · channel {origin.channel or '-'} · user {origin.user or '-'}")
    if link:
        where += f' · <a href="{esc(link)}" rel="noreferrer">open the thread</a>'
    facts = [
        ["Status", esc(run.status) + (" (partial)" if run.partial else "")],
        ["Stop reason", esc(run.stop_reason or "")],
        ["Answered by", esc(run.answered_by.model if run.answered_by else "")],
        ["Repository", esc(run.repo or "")],  # "": every repository served, or one install's only (issue 38)
        ["Asked", esc(when(run.created_at))],
        ["Updated", esc(when(run.updated_at))],
        ["Steps", esc(len(run.steps))],
        [
            "Tokens",
            esc(f"{run.usage.input_tokens} in ({run.usage.cached_tokens} cached), {run.usage.output_tokens} out"),
        ],
        ["Cost", esc(f"${run.cost_usd:.4f}")],
        ["Working time", esc(f"{run.seconds_spent:.1f} s")],
    ]
    body = f"<h1>Run {esc(run.id)}</h1><h2>Question</h2><pre>{esc(run.question)}</pre><p>{where}</p>" + table(
        ["", ""], facts
    )
    body += "<h2>Steps</h2>"
    grouped = _calls_by_step(run)
    for n, calls in enumerate(grouped):
        step = run.steps[n] if n < len(run.steps) else None
        head = (
            (
                f"Step {step.index}: {step.input_tokens} in, {step.output_tokens} out, {step.ms} ms"
                + (f", {step.errors} errors" if step.errors else "")
                + (", wrap-up" if step.wrap_up else "")
            )
            if step
            else "In progress"
        )
        cards = ""
        for call in calls:
            call_id = str(call.get("call_id"))
            preview = previews.get(call_id, "(no result kept)")
            cards += (
                f'<div class="card"><strong>{esc(call.get("name"))}</strong>'
                f"<pre>{esc(_pretty(str(call.get('arguments') or '')))}</pre>"
                f"<details><summary>Result preview</summary><pre>{esc(preview)}</pre></details></div>"
            )
        body += f"<h3>{esc(head)}</h3>{cards or '<p class=muted>No tool calls: the model answered.</p>'}"
    if run.pending:
        body += "<h2>Waiting for approval</h2>" + "".join(
            f'<div class="card">{esc(p.name)} <pre>{esc(_pretty(p.arguments))}</pre></div>' for p in run.pending
        )
    body += f"<h2>Answer</h2><pre>{esc((run.answer or run.error or '(none yet)')[:ANSWER_CHARS])}</pre>"
    sources = "".join(
        f'<li><a href="{esc(run.source_urls[s])}" rel="noreferrer">{esc(s)}</a></li>'
        if s in run.source_urls
        else f"<li>{esc(s)}</li>"
        for s in run.sources
    )
    body += f"<h2>Sources</h2><ul>{sources or '<li class=muted>none</li>'}</ul>"
    given = votes(conn, run.id)
    shown = "".join(f"<li>{esc(user)}: {esc(vote)}</li>" for user, vote in sorted(given.items()))
    body += f"<h2>Feedback</h2><ul>{shown or '<li class=muted>no votes</li>'}</ul>"
    body += f'<p><a href="{prefix}/runs">← All runs</a></p>'
    return f"Run {run.id}", body
