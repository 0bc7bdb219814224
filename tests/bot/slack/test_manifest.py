"""manifest.yml and Procfile agree with what the app registers and how it is started."""

from __future__ import annotations

import re
import shlex

from atlas.settings import Settings
from bot.web.serve import EVENTS_PATH
from tests.support.paths import REPO

ROOT = REPO
MANIFEST = (ROOT / "manifest.yml").read_text()


def _list_under(key: str) -> list[str]:
    """The `- item` lines right under `key:` (the manifest is plain block YAML)."""
    lines = MANIFEST.splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip() == f"{key}:")
    indent = len(lines[start]) - len(lines[start].lstrip())
    items = []
    for line in lines[start + 1 :]:
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if len(line) - len(line.lstrip()) <= indent:
            break
        if stripped.startswith("- "):
            items.append(stripped[2:].split("#")[0].strip())
    return items


def test_the_manifest_subscribes_to_what_the_app_handles() -> None:
    assert set(_list_under("bot_events")) == {
        "app_mention",
        "message.im",
        "assistant_thread_started",
        "assistant_thread_context_changed",
        "message.channels",
        "message.groups",
        "reaction_added",
    }  # help channels, solved threads
    assert set(_list_under("bot")) == {
        "app_mentions:read",
        "assistant:write",
        "chat:write",
        "commands",
        "im:history",
        "usergroups:read",
        "users:read",
        "channels:history",
        "groups:history",
        "channels:read",
        "reactions:read",
    }
    assert f"- command: {Settings().slash_command}" in MANIFEST
    urls = re.findall(r"(?:url|request_url): (\S+)", MANIFEST)
    assert len(urls) == 3 and all(u.endswith(EVENTS_PATH) for u in urls)
    assert re.search(r"interactivity:\n\s+is_enabled: true", MANIFEST)


def test_procfile_runs_the_web_and_worker_commands() -> None:
    entries = dict(line.split(":", 1) for line in (ROOT / "Procfile").read_text().splitlines() if line.strip())
    assert shlex.split(entries["web"]) == ["atlas", "serve", "--port", "$PORT"]
    assert shlex.split(entries["worker"]) == ["atlas", "worker"]


def test_the_assistant_view_suggests_the_default_prompts_the_app_sets() -> None:
    """The manifest's prompts (shown before any thread) match what a new thread gets by default."""
    assert re.search(r"\n  assistant_view:\n    assistant_description: \S", MANIFEST)
    messages = [m.strip('"') for m in re.findall(r"^\s+message: (.+)$", MANIFEST, re.MULTILINE)]
    assert messages == list(Settings().assistant_prompts) and len(messages) <= 4
