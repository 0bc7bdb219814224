"""The Approvals and triage page: runs waiting on a decision and their pending calls, the latest decisions
and results, the triage modes with the last backtest's figures, and the audit log, searchable. Bounded: a
page of paused runs, and at most `LOOK_AT_MOST` audit entries read per search."""

from __future__ import annotations

import json
from typing import Any

import redis

from atlas.connection import text
from atlas.settings import Settings
from bot.console.layout import table, when
from bot.console.web import Request, esc
from workers.approvals import audit
from workers.approvals.audit import Entry
from workers.console_data import run_index
from workers.errors import RunNotFound
from workers.runs.store import RunStore
from workers.triage import autonomy

SHOWN = 50
BATCH = 500
LOOK_AT_MOST = 5000


def search_audit(conn: redis.Redis, words: str, kind: str = "", limit: int = SHOWN) -> list[Entry]:
    """Newest first, entries whose fields hold `words` (and of `kind`), reading `LOOK_AT_MOST` entries at most."""
    needle = words.lower().strip()

    def wanted(entry: Entry) -> bool:
        return (not kind or entry.kind == kind) and (not needle or needle in " ".join(entry.fields.values()).lower())

    return audit.entries(conn, limit=limit, batch=BATCH, where=wanted, read_at_most=LOOK_AT_MOST)


def _pending(conn: redis.Redis, prefix: str) -> str:
    ids: list[bytes] = conn.zrevrange(run_index.facet_key("status", "awaiting_approval"), 0, SHOWN - 1)  # type: ignore[assignment]  # bytes replies
    store, cards = RunStore(conn), []
    for raw in ids:
        try:
            run = store.load(text(raw))
        except RunNotFound:
            continue
        for call in run.pending:
            cards.append(
                [
                    esc(when(run.updated_at)),
                    f'<a href="{prefix}/runs/{esc(run.id)}">{esc(run.question[:120])}</a>',
                    esc(call.name),
                    f"<pre>{esc(call.arguments[:400])}</pre>",
                    esc(run.origin.user or ""),
                ]
            )
    return (
        table(["Since", "Run", "Action", "Arguments", "Asked by"], cards)
        if cards
        else "<p class=muted>Nothing waits for a decision.</p>"
    )


def _triage(settings: Settings) -> str:
    triage = settings.triage
    modes = table(["Action", "Mode"], [[esc(a), esc(m)] for a, m in triage.modes.items()])
    where = esc(f"{triage.platform} channel {triage.channel}") if triage.enabled else "off (no triage channel)"
    out = f"<p>Triage: {where}; labels applied unasked: {esc(', '.join(triage.auto_labels) or 'none')}.</p>{modes}"
    dups = autonomy.last_duplicates(settings.data_dir, settings.home)
    labels = autonomy.last_per_label(settings.data_dir, settings.home)
    if dups is None and labels is None:
        return out + "<p class=muted>No backtest yet (atlas triage backtest).</p>"
    if dups:
        out += "<h3>Duplicates (last backtest)</h3>" + table(
            ["Figure", "Value"], [[esc(k), esc(v)] for k, v in sorted(dups.items())]
        )
    if labels:
        rows = [
            [esc(name), *(esc(_figure(fig, k)) for k in ("support", "precision", "recall"))]
            for name, fig in sorted(labels.items())
        ]
        out += "<h3>Labels (last backtest)</h3>" + table(
            ["Label", "Support", "Precision", "Recall"], rows[:SHOWN], frozenset({1, 2, 3})
        )
    return out


def _figure(figures: Any, key: str) -> str:
    return str(figures.get(key, "")) if isinstance(figures, dict) else ""


def render(conn: redis.Redis, settings: Settings, req: Request, prefix: str) -> tuple[str, str]:
    words, kind = req.query.get("q", "")[:200], req.query.get("kind", "")
    kind = kind if kind in ("request", "decision", "revision", "result") else ""
    decided = search_audit(conn, "", "decision", 20)
    results = search_audit(conn, "", "result", 20)
    found = search_audit(conn, words, kind)
    decisions = table(
        ["When", "Action", "Decision", "By", "Run"],
        [
            [
                esc(when(e.at)),
                esc(e.get("tool")),
                esc(e.get("decision")),
                esc(e.get("decider")),
                f'<a href="{prefix}/runs/{esc(e.get("run"))}">{esc(e.get("run"))}</a>',
            ]
            for e in decided
        ],
    )
    kinds = "".join(
        f'<option value="{k}"{" selected" if k == kind else ""}>{k}</option>'
        for k in ("request", "decision", "revision", "result")
    )
    form = (
        f'<form class="filters" method="get"><label>Search the audit log<input name="q" value="{esc(words)}"></label>'
        f'<label>Kind<select name="kind"><option value="">any</option>{kinds}</select></label>'
        '<button type="submit">Search</button></form>'
    )
    log_rows = [
        [
            esc(when(e.at)),
            esc(e.kind),
            esc(e.get("tool")),
            f"<pre>{esc(e.get('arguments')[:300])}</pre>",
            esc(e.get("requester") or e.get("decider")),
            esc(e.get("decision")),
            esc(_clip(e.get("result"))),
        ]
        for e in found
    ]
    body = (
        "<h1>Approvals and triage</h1><h2>Waiting for a decision</h2>"
        + _pending(conn, prefix)
        + "<h2>Latest decisions</h2>"
        + (decisions if decided else "<p class=muted>None yet.</p>")
        + "<h2>Latest results</h2>"
        + (_results(results, prefix) if results else "<p class=muted>None yet.</p>")
        + "<h2>Triage</h2>"
        + _triage(settings)
        + "<h2>Audit log</h2>"
        + form
        + table(["When", "Kind", "Tool", "Arguments", "Who", "Decision", "Result"], log_rows)
        + f"<p class=muted>{len(found)} shown (the newest {LOOK_AT_MOST:,} entries are searched).</p>"
    )
    return "Approvals and triage", body


def _results(found: list[Entry], prefix: str) -> str:
    return table(
        ["When", "Action", "Outcome", "Result", "Run"],
        [
            [
                esc(when(e.at)),
                esc(e.get("tool")),
                esc(e.get("decision")),
                esc(_clip(e.get("result"))),
                f'<a href="{prefix}/runs/{esc(e.get("run"))}">{esc(e.get("run"))}</a>',
            ]
            for e in found
        ],
    )


def _clip(value: str) -> str:
    try:
        value = json.dumps(json.loads(value), ensure_ascii=False) if value.startswith(("{", "[")) else value
    except ValueError:
        pass
    return value[:200]
