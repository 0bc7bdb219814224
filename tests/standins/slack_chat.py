"""The stand-in's `chat.*` methods (tests/standins/slack_api.py): messages posted, updated and deleted,
and streams started, appended to and stopped, as Slack keeps them and refuses them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tests.standins.slack_people import author
from tests.standins.slack_rules import (
    add_content,
    chunks_problem,
    content,
    message_fields,
    recipients,
    require,
    stream_mode,
)

if TYPE_CHECKING:
    from tests.standins.slack_api import SlackAPI


def chat_call(api: SlackAPI, method: str, args: dict[str, Any]) -> dict[str, Any]:
    """Slack's reply to one `chat.*` call, applied to the stand-in's messages (the caller holds its lock)."""
    if args.get("channel") in api.removed:  # Atlas was removed from the channel (`remove_from`)
        return {"ok": False, "error": "not_in_channel"}
    if method == "chat.getPermalink":  # any message of a channel the bot is in; the workspace's URL, as Slack forms it
        problem = require(args, "channel", "message_ts")
        ts = str(args.get("message_ts") or "")
        return problem or {
            "ok": True,
            "channel": args["channel"],
            "permalink": f"https://atlas-test.slack.com/archives/{args['channel']}/p{ts.replace('.', '')}",
        }
    if method == "chat.postMessage":
        problem = require(args, "channel") or unsupported_blocks(api, args) or content(args) or metadata_problem(args)
        if problem:
            return problem
        ts = api.next_ts()
        api.messages[(args["channel"], ts)] = {
            **message_fields(args),
            "ts": ts,
            "thread_ts": args.get("thread_ts"),
            "channel": args["channel"],
            "edits": 0,
        }
        return {"ok": True, "channel": args["channel"], "ts": ts, "message": {"ts": ts}}
    if method == "chat.update":
        problem = require(args, "channel", "ts") or unsupported_blocks(api, args) or content(args)
        message = api.messages.get((args.get("channel"), args.get("ts")))
        if problem or message is None or message.get("deleted"):
            return problem or {"ok": False, "error": "message_not_found"}
        message.update(message_fields(args))
        message["edits"] += 1
        return {"ok": True, "channel": args["channel"], "ts": args["ts"]}
    if method == "chat.delete":
        message = api.messages.get((args.get("channel"), args.get("ts")))
        if message is None:
            return {"ok": False, "error": "message_not_found"}
        message["deleted"] = True
        return {"ok": True}
    if method == "chat.startStream":
        if not api.streaming:
            return {"ok": False, "error": "unknown_method"}
        problem = require(args, "channel", "thread_ts") or recipients(args) or chunks_problem(args)
        if problem:
            return problem
        ts = api.next_ts()
        api.messages[(args["channel"], ts)] = {
            "ts": ts,
            "thread_ts": args["thread_ts"],
            "channel": args["channel"],
            "streaming": True,
            "mode": stream_mode(args),
            "chunks": [],
            "recipient_user_id": args.get("recipient_user_id"),
            "edits": 0,
        }
        add_content(api.messages[(args["channel"], ts)], args)
        return {"ok": True, "channel": args["channel"], "ts": ts}
    if method in ("chat.appendStream", "chat.stopStream"):
        message = api.messages.get((args.get("channel"), args.get("ts")))
        if message is None or message.get("deleted"):
            return {"ok": False, "error": "message_not_found"}
        if method == "chat.appendStream" and api.stop_next_append and message.get("streaming"):
            api.stop_next_append = False
            message.update(streaming=False, stopped_by_user=True)
        if message.get("stopped_by_user"):
            return {"ok": False, "error": "stopped_by_user"}
        if not message.get("streaming"):
            return {"ok": False, "error": "message_not_in_streaming_state"}
        problem = chunks_problem(args) or unsupported_blocks(api, args)
        if problem:
            return problem
        mode = stream_mode(args)
        if mode and message.get("mode") and mode != message["mode"]:
            return {"ok": False, "error": "streaming_mode_mismatch"}
        message["mode"] = message.get("mode") or mode
        add_content(message, args)
        if method == "chat.stopStream":
            message["streaming"] = False
            if args.get("blocks"):
                message["blocks"] = args["blocks"]
        return {"ok": True, "channel": args["channel"], "ts": args["ts"]}
    return {"ok": False, "error": "unknown_method"}


def unsupported_blocks(api: SlackAPI, args: dict[str, Any]) -> dict[str, Any] | None:
    """Where Slack has no `context_actions` block it refuses the message and says which block."""
    for index, block in enumerate(args.get("blocks") or []):
        if not api.context_actions and block.get("type") == "context_actions":
            return {
                "ok": False,
                "error": "invalid_blocks",
                "errors": [f"unsupported type: context_actions [json-pointer:/blocks/{index}/type]"],
            }
    return None


def history(messages: dict[tuple[str, str], dict[str, Any]], args: dict[str, Any]) -> dict[str, Any]:
    """conversations.history as Slack answers it: the channel's top-level messages newest first, within
    `oldest`/`latest` (exclusive unless `inclusive`), `limit` a page (default 100) with a cursor, and each
    message's `metadata` only when `include_all_metadata` is set."""
    problem = require(args, "channel")
    if problem:
        return problem
    flag = lambda name: str(args.get(name, "")).lower() in ("1", "true")  # noqa: E731 - form and query values are strings
    oldest, latest = float(args.get("oldest") or 0), float(args.get("latest") or 9e12)
    inside = (lambda ts: oldest <= ts <= latest) if flag("inclusive") else (lambda ts: oldest < ts < latest)
    found = sorted(
        (
            m
            for (channel, _), m in messages.items()
            if channel == args["channel"]
            and not m.get("deleted")
            and (not m.get("thread_ts") or m.get("thread_ts") == m["ts"])
            and inside(float(m["ts"]))
        ),
        key=lambda m: float(m["ts"]),
        reverse=True,
    )
    start, limit = int(args.get("cursor") or 0), min(int(args.get("limit") or 100), 999)
    page = found[start : start + limit]
    shown = [
        {
            "type": "message",
            **author(m),
            "ts": m["ts"],
            "text": m.get("text", ""),
            "blocks": m.get("blocks", []),
            **({"metadata": m["metadata"]} if flag("include_all_metadata") and m.get("metadata") else {}),
        }
        for m in page
    ]
    more = start + limit < len(found)
    return {
        "ok": True,
        "messages": shown,
        "has_more": more,
        "response_metadata": {"next_cursor": str(start + limit) if more else ""},
    }


def replies(messages: dict[tuple[str, str], dict[str, Any]], args: dict[str, Any]) -> dict[str, Any]:
    """conversations.replies as Slack answers it: the thread of `ts` (its parent first, then the replies
    oldest first; a ts with no message and no replies is `thread_not_found`), within `oldest`/`latest`
    (exclusive unless `inclusive`), `limit` a page (default 1000) with a cursor, each message's `metadata`
    only when `include_all_metadata` is set. (The stand-in keeps the bot's messages and those a test says a
    person wrote, `SlackAPI.said`: a thread under a person's message it was not told of is known by its replies.)"""
    problem = require(args, "channel", "ts")
    if problem:
        return problem
    flag = lambda name: str(args.get(name, "")).lower() in ("1", "true")  # noqa: E731 - query values are strings
    root = str(args["ts"])
    thread = [
        m
        for (channel, _), m in messages.items()
        if channel == args["channel"] and not m.get("deleted") and (m["ts"] == root or m.get("thread_ts") == root)
    ]
    if not thread:
        return {"ok": False, "error": "thread_not_found"}
    oldest, latest = float(args.get("oldest") or 0), float(args.get("latest") or 9e12)
    inside = (lambda ts: oldest <= ts <= latest) if flag("inclusive") else (lambda ts: oldest < ts < latest)
    found = sorted(
        (m for m in thread if m["ts"] == root or inside(float(m["ts"]))),
        key=lambda m: (m["ts"] != root, float(m["ts"])),
    )
    start, limit = int(args.get("cursor") or 0), min(int(args.get("limit") or 1000), 1000)
    page = found[start : start + limit]
    shown = [
        {
            "type": "message",
            **author(m),
            "ts": m["ts"],
            "thread_ts": m.get("thread_ts") or root,
            "text": m.get("text", ""),
            "blocks": m.get("blocks", []),
            **({"metadata": m["metadata"]} if flag("include_all_metadata") and m.get("metadata") else {}),
        }
        for m in page
    ]
    more = start + limit < len(found)
    return {
        "ok": True,
        "messages": shown,
        "has_more": more,
        "response_metadata": {"next_cursor": str(start + limit) if more else ""},
    }


def metadata_problem(args: dict[str, Any]) -> dict[str, Any] | None:
    """Slack refuses message metadata without a string `event_type` and an object `event_payload`."""
    meta = args.get("metadata")
    if meta is None:
        return None
    if (
        not isinstance(meta, dict)
        or not isinstance(meta.get("event_type"), str)
        or not isinstance(meta.get("event_payload"), dict)
    ):
        return {"ok": False, "error": "invalid_metadata_format"}
    return None
