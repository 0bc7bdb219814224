"""The triage card on Discord: one bot message per issue in ATLAS_DISCORD_TRIAGE_CHANNEL, edited in place.

The same card as Slack's (bot/slack/triage_card.py): the issue, each drafted action with its own
Approve and Reject (custom ids carry only the opaque pending id, decided by the ordinary click handler),
who decided what. A drafted reply is shown whole in an embed (up to 4,096 characters, past the content's 2,000).
"""

from __future__ import annotations

from typing import Any

from atlas.text import clip
from bot.discord import card_marker, render, triage_controls
from bot.discord.rest import CONTENT_LIMIT, DiscordREST
from tools.tracker import Tracker
from workers.approvals import triage_card_once as card_post
from workers.approvals.visible_text import hidden_count, reveal
from workers.new_issues import choices, wording
from workers.runs.state import RunState
from workers.runs.store import RunStore
from workers.runs.triage_record import TriageAction

BUTTON_SUCCESS, BUTTON_DANGER = 3, 4


def show(rest: DiscordREST, store: RunStore, run: RunState, tracker: Tracker | None) -> None:
    """Post the card once (a retried job gets it back by nonce, or later finds it in the channel:
    bot/discord/card_marker.py), else edit it."""
    record = run.triage
    if record is None:
        return
    payload = card_payload(run, tracker, choices.current(store.conn, run))
    channel = run.origin.channel or ""

    def edit(where: str, card_id: str) -> None:
        rest.edit_message(where, card_id, payload)

    def post() -> tuple[str, str]:
        reply = rest.create_message(channel, {**payload, "nonce": card_marker.nonce(run.id), "enforce_nonce": True})
        return channel, str(reply["id"])

    pending = [c.pending_id for c in run.pending]
    card_post.post_once(
        store, run, channel, find=lambda since: card_marker.find(rest, channel, pending, since), edit=edit, post=post
    )


def card_payload(
    run: RunState, tracker: Tracker | None, current: dict[str, dict[str, Any]] | None = None
) -> dict[str, Any]:
    """The whole card as it stands; `current`: the pending calls' arguments as chosen so far (call id -> arguments)."""
    record = run.triage
    assert record is not None
    current = current or {}
    title = render.escape(reveal(f"#{record.issue} {record.title}"))
    link = f"[{title}](<{record.url}>)" if record.url else title
    lines = [
        "**" + wording.CARD_TITLE.format(link=link, author=f"`{render.escape(reveal(record.author or '?'))}`") + "**"
    ]
    shown = [record.title, record.author]
    proposed = wording.proposed(record)
    if proposed:  # an MCP client's words: data, shown with its invisible characters revealed
        lines.append(render.escape(reveal(proposed)))
        shown.append(proposed)
    embeds: list[dict[str, Any]] = []
    rows: list[dict[str, Any]] = []
    for action, chosen, pid in choices.shown(run, record, current):
        if action.kind == "undo":  # workers/new_issues/undo.py: one button, for 7 days
            lines.append(_undo(action, pid, rows))
            continue
        lines.append(_describe(chosen, record.suggestions, tracker, shown, embeds))
        lines.append(render.escape(wording.mode_line(action, record.suggestions)))
        if pid is not None:
            controls = triage_controls.components(action, chosen, pid)
            rows += controls.rows
            rows.append(
                {
                    "type": 1,
                    "components": [
                        {
                            "type": 2,
                            "style": BUTTON_SUCCESS,
                            "label": f"{wording.APPROVE}: {action.kind}",
                            "custom_id": render.APPROVE_PREFIX + pid,
                        },
                        {
                            "type": 2,
                            "style": BUTTON_DANGER,
                            "label": f"{wording.REJECT}: {action.kind}",
                            "custom_id": render.DENY_PREFIX + pid,
                        },
                        *controls.buttons,
                    ],
                }
            )
        elif action.status in wording.OUTCOME:
            lines.append(
                "> "
                + wording.OUTCOME[action.status].format(
                    who=render.escape(action.decider or "?"), result=render.escape(clip(action.result, 300))
                )
            )
    if record.superseded:
        lines.append(wording.SUPERSEDED.format(why=render.escape(reveal(record.superseded))))
    hidden = hidden_count("\n".join(shown))
    if hidden:
        lines.append(wording.HIDDEN.format(count=hidden))
    return {
        "content": clip("\n".join(lines), CONTENT_LIMIT),
        "embeds": embeds,
        "components": rows[:5],
        "allowed_mentions": {"parse": []},
    }


def _undo(action: TriageAction, pid: str | None, rows: list[dict[str, Any]]) -> str:
    """The Undo: what it takes back, and its button while offered (decided by the ordinary approval click)."""
    what = render.escape(reveal(wording.undo_what(action.arguments)))
    out = ["**" + wording.UNDO_OFFER.format(what=what) + "**"]
    line = wording.outcome(action)
    if pid is not None:
        out.append(render.escape(wording.UNDO_WHEN))
        rows.append(
            {
                "type": 1,
                "components": [
                    {"type": 2, "style": BUTTON_DANGER, "label": wording.UNDO, "custom_id": render.APPROVE_PREFIX + pid}
                ],
            }
        )
    elif line is not None:
        out.append(
            "> " + line.format(who=render.escape(action.decider or "?"), result=render.escape(clip(action.result, 300)))
        )
    return "\n".join(out)


def _describe(
    action: TriageAction,
    suggestions: dict[str, Any],
    tracker: Tracker | None,
    shown: list[str],
    embeds: list[dict[str, Any]],
) -> str:
    args = action.arguments
    if action.kind == "duplicates":
        original = int(args["duplicate_of"])
        title, url, unread = wording.original(original, suggestions, tracker)
        label = render.escape(reveal(f"#{original} {title}".strip()))
        shown.append(title)
        out = ["**" + wording.DUPLICATE.format(link=f"[{label}](<{url}>)" if url else label) + "**"]
        if unread:
            out.append(render.escape(unread))
        dups = suggestions.get("duplicates") or []
        if dups:
            evidence = str(dups[0].get("evidence") or "")
            shown.append(evidence)
            out.append(
                render.escape(
                    clip(
                        reveal(
                            wording.DUPLICATE_EVIDENCE.format(score=float(dups[0].get("score") or 0), evidence=evidence)
                        ),
                        400,
                    )
                )
            )
        out.append(render.escape(wording.duplicate_line(original, suggestions)))
        return "\n".join(out)
    if action.kind == "labels":
        names = [str(x) for x in args.get("labels") or []]
        shown.extend(names)
        return "**" + wording.LABELS.format(labels=", ".join(f"`{render.escape(reveal(n))}`" for n in names)) + "**"
    body = str(args.get("body") or "")
    shown.append(body)
    pieces = render.card_embeds("post_comment", {"body": body})  # a code block: nothing in it is a link or a mention
    pieces[0]["title"] = wording.REPLY
    pieces[-1]["footer"] = {"text": wording.SIGNED.format(platform="Discord")}
    embeds.extend(pieces)
    return f"**{wording.REPLY}** (the full text below)"
