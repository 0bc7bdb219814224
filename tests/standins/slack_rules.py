"""What Slack's Web API checks, as the stand-in (tests/standins/slack_api.py) applies it: required
arguments, a message's content limits, streaming's recipients, modes and chunk shapes, and the
assistant view's `assistant.threads.*` methods. Each check returns Slack's error reply, or None."""

from __future__ import annotations

import json
from typing import Any

MARKDOWN_TOTAL = 12_000
MAX_BLOCKS = 50
MAX_TEXT = 40_000
MAX_PROMPTS = 4
MAX_LOADING_MESSAGES = 10
TASK_STATUSES = ("pending", "in_progress", "complete", "error")


def require(args: dict[str, Any], *names: str) -> dict[str, Any] | None:
    for name in names:
        if not args.get(name):
            return {
                "ok": False,
                "error": "channel_not_found" if name in ("channel", "channel_id") else f"invalid_arguments:{name}",
            }
    return None


def prompts_problem(prompts: Any) -> dict[str, Any] | None:
    """Up to four prompts, each an object with a `title` and a `message`."""
    if not isinstance(prompts, list) or not 0 < len(prompts) <= MAX_PROMPTS:
        return {"ok": False, "error": "invalid_arguments:prompts"}
    for prompt in prompts:
        if not (isinstance(prompt, dict) and prompt.get("title") and prompt.get("message")):
            return {"ok": False, "error": "invalid_arguments:prompts"}
    return None


def recipients(args: dict[str, Any]) -> dict[str, Any] | None:
    """Outside a DM, a stream goes to one person: Slack requires whose (user and team)."""
    if str(args.get("channel") or "").startswith("D"):
        return None
    if not args.get("recipient_team_id"):
        return {"ok": False, "error": "missing_recipient_team_id"}
    if not args.get("recipient_user_id"):
        return {"ok": False, "error": "missing_recipient_user_id"}
    return None


def stream_mode(args: dict[str, Any]) -> str | None:
    """A stream's content mode is fixed by its first content: `markdown_text` or `chunks`."""
    if args.get("chunks"):
        return "chunks"
    return "markdown" if args.get("markdown_text") else None


def chunks_problem(args: dict[str, Any]) -> dict[str, Any] | None:
    """Slack's chunk shapes: markdown_text (text), task_update (id, title, status), plan_update (title)."""
    if args.get("chunks") and args.get("markdown_text"):
        return {"ok": False, "error": "streaming_mode_mismatch"}
    for chunk in args.get("chunks") or []:
        kind = chunk.get("type") if isinstance(chunk, dict) else None
        if kind == "markdown_text" and isinstance(chunk.get("text"), str):
            continue
        if kind == "task_update" and chunk.get("id") and chunk.get("title") and chunk.get("status") in TASK_STATUSES:
            continue
        if kind == "plan_update" and chunk.get("title"):
            continue
        return {"ok": False, "error": "invalid_chunks"}
    return None


def add_content(message: dict[str, Any], args: dict[str, Any]) -> None:
    message["chunks"].extend(args.get("chunks") or [])
    if args.get("markdown_text"):
        message["chunks"].append({"type": "markdown_text", "text": args["markdown_text"]})


def content(args: dict[str, Any]) -> dict[str, Any] | None:
    """Slack's limits on a message's content."""
    blocks = args.get("blocks") or []
    text = args.get("text") or ""
    if not blocks and not text:
        return {"ok": False, "error": "no_text"}
    if len(text) > MAX_TEXT:
        return {"ok": False, "error": "msg_too_long"}
    if len(blocks) > MAX_BLOCKS:
        return {"ok": False, "error": "invalid_blocks"}
    markdown = sum(len(b.get("text", "")) for b in blocks if b.get("type") == "markdown")
    if markdown > MARKDOWN_TOTAL:
        return {"ok": False, "error": "invalid_blocks"}
    for block in blocks:
        section = block.get("text") if block.get("type") == "section" else None
        if section and len(section.get("text", "")) > 3000:
            return {"ok": False, "error": "invalid_blocks"}
    return None


def message_fields(args: dict[str, Any]) -> dict[str, Any]:
    fields = {"text": args.get("text") or "", "blocks": list(args.get("blocks") or [])}
    if args.get("metadata"):
        fields["metadata"] = args["metadata"]
    return fields


def assistant_call(threads: dict[tuple[str, str], dict[str, Any]], verb: str, args: dict[str, Any]) -> dict[str, Any]:
    """assistant.threads.setStatus / setTitle / setSuggestedPrompts, with their documented checks."""
    if verb == "setStatus":
        problem = require(args, "channel_id", "thread_ts")
        if problem:
            return problem
        if not isinstance(args.get("status"), str):
            return {"ok": False, "error": "invalid_arguments:status"}
        if len(args.get("loading_messages") or []) > MAX_LOADING_MESSAGES:
            return {"ok": False, "error": "invalid_arguments:loading_messages"}
        thread = threads.get((args["channel_id"], args["thread_ts"]))
        if thread is not None:
            thread["status"] = args["status"]
        return {"ok": True}
    if verb == "setTitle":
        problem = require(args, "channel_id", "thread_ts", "title")
    elif verb == "setSuggestedPrompts":
        problem = require(args, "channel_id", "prompts") or prompts_problem(args.get("prompts"))
    else:
        return {"ok": False, "error": "unknown_method"}
    if problem:
        return problem
    thread = threads.get((args["channel_id"], args.get("thread_ts") or ""))
    if thread is None:
        return {"ok": False, "error": "invalid_thread_ts"}
    if verb == "setTitle":
        thread["title"] = args["title"]
    else:
        thread.update(prompts=list(args["prompts"]), prompts_title=args.get("title"))
    return {"ok": True}


def view_problem(view: Any) -> dict[str, Any] | None:
    """views.open's checks (api.slack.com/reference/surfaces/views): a modal, a plain_text title, submit and
    close of at most 24 characters, at most 100 blocks, private_metadata up to 3,000 characters, and a text
    input's initial value within its max_length (at most 3,000)."""
    view = json.loads(view) if isinstance(view, str) else view
    if not isinstance(view, dict) or view.get("type") != "modal":
        return {"ok": False, "error": "invalid_arguments"}
    for name in ("title", "submit", "close"):
        part = view.get(name)
        if (part is not None or name == "title") and not (
            isinstance(part, dict) and part.get("type") == "plain_text" and 0 < len(str(part.get("text") or "")) <= 24
        ):
            return {
                "ok": False,
                "error": "invalid_arguments",
                "response_metadata": {"messages": [f"[ERROR] {name} must be 1-24 characters"]},
            }
    blocks = view.get("blocks") or []
    if not blocks or len(blocks) > 100 or len(str(view.get("private_metadata") or "")) > 3000:
        return {"ok": False, "error": "invalid_arguments"}
    for block in blocks:
        element = block.get("element") or {}
        if element.get("type") == "plain_text_input":
            limit = int(element.get("max_length") or 3000)
            if limit > 3000 or len(str(element.get("initial_value") or "")) > limit:
                return {"ok": False, "error": "invalid_arguments"}
    return None
