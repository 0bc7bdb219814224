"""The application commands Atlas registers, and `atlas discord register` (a bulk overwrite, so
running it again leaves exactly these commands: idempotent)."""

from __future__ import annotations

from typing import Any

from atlas.settings import DISCORD_ASK_COMMAND
from bot.discord.rest import DiscordREST

ASK_COMMAND = DISCORD_ASK_COMMAND
SUB_COMMAND, STRING, INTEGER = 1, 3, 4
MAX_QUESTION_CHARS = 4000


def definitions(lookup_command: str) -> list[dict[str, Any]]:
    """`/atlas ask question:...` and the lookup command (`/orbit issue|search|docs|help`). Two commands of one
    name would leave one unreachable: Settings.lookup_command never names it `atlas`, and this refuses it."""
    if lookup_command == ASK_COMMAND:
        raise ValueError(f"the lookup command cannot be named /{ASK_COMMAND}, the ask command's name")
    ask = {
        "type": SUB_COMMAND,
        "name": "ask",
        "description": "Ask Atlas about the project (answers in this channel)",
        "options": [
            {
                "type": STRING,
                "name": "question",
                "description": "Your question",
                "required": True,
                "max_length": MAX_QUESTION_CHARS,
            }
        ],
    }
    words = {"type": STRING, "name": "words", "description": "Words to look for", "required": True, "max_length": 200}
    lookups = [
        {
            "type": SUB_COMMAND,
            "name": "issue",
            "description": "Show one issue",
            "options": [
                {
                    "type": INTEGER,
                    "name": "number",
                    "description": "The issue number",
                    "required": True,
                    "min_value": 1,
                },
                {  # several repositories (issue 38): owner/b or b; without it, the channel's (every one elsewhere)
                    "type": STRING,
                    "name": "repo",
                    "description": "The repository (owner/name or name); default: the channel's",
                    "required": False,
                    "max_length": 140,
                },
            ],
        },
        {
            "type": SUB_COMMAND,
            "name": "search",
            "description": "Search the issues",
            "options": [
                words,
                {
                    "type": STRING,
                    "name": "state",
                    "description": "Only open or closed issues",
                    "required": False,
                    "choices": [{"name": "open", "value": "open"}, {"name": "closed", "value": "closed"}],
                },
            ],
        },
        {"type": SUB_COMMAND, "name": "docs", "description": "Search the docs", "options": [words]},
        {"type": SUB_COMMAND, "name": "help", "description": "How to use these commands"},
    ]
    return [
        {"type": 1, "name": ASK_COMMAND, "description": "Ask Atlas, the maintainer bot", "options": [ask]},
        {
            "type": 1,
            "name": lookup_command,
            "description": "Look issues and docs up without the model",
            "options": lookups,
        },
    ]


def register(
    rest: DiscordREST, application_id: str, lookup_command: str, guild_id: str | None = None
) -> list[dict[str, Any]]:
    """Put the commands in place, globally or in one guild (for testing: guild commands update at once)."""
    return rest.put_commands(application_id, definitions(lookup_command), guild_id)


def lookup_text(options: list[dict[str, Any]]) -> str:
    """The lookup command's options as the text bot/lookups.py parses: `search redis timeout open`, `issue b#42`."""
    if not options:
        return "help"
    sub = options[0]
    values = {o.get("name"): o.get("value") for o in sub.get("options") or []}
    parts = [str(sub.get("name") or "help")]
    if values.get("repo") and values.get("number") not in (None, ""):  # `issue owner/b#42`, as typed on Slack
        values["number"] = f"{str(values['repo']).strip()}#{values['number']}"
    for key in ("number", "words", "state"):
        if values.get(key) not in (None, ""):
            parts.append(str(values[key]))
    return " ".join(parts)
