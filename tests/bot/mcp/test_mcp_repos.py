"""MCP's read tools over several repositories (issue 38): each takes `repo`; none searches every one, named."""

from __future__ import annotations

import json
from pathlib import Path

from atlas.settings import Settings
from bot.mcp import server
from tests.support.tools_dataset import ISSUES, make_dataset, write_issues

A, B = "acme/lib", "acme/cli"


def _settings(tmp_path: Path) -> Settings:
    settings = Settings.from_env(
        {"ATLAS_GITHUB_REPOS": f"{A},{B}", "ATLAS_HOME": str(tmp_path), "ATLAS_SEMANTIC": "off"}
    )
    write_issues(make_dataset(settings.for_repo(A).data_dir), ISSUES)
    b = make_dataset(settings.for_repo(B).data_dir)
    write_issues(b, [{"id": 9, "title": "Quokka flag ignored by the CLI", "body": "quokka", "state": "open"}])
    return settings


def test_mcp_tools_take_repo_and_search_every_repository_by_default(tmp_path: Path) -> None:
    settings = _settings(tmp_path)
    mcp = server.build_server(settings)
    assert mcp is not None
    registry = server.scoped(server.read_registry(settings.project, server.NOT_SERVED), settings.repos)
    for definition in registry.definitions():
        if definition["name"] != "calculate":
            assert "repo" in definition["parameters"]["properties"], definition["name"]
    args = {"query": "quokka cron twice", "state": None, "limit": 5, "detail": "concise", "repo": None}
    text, ok = server._call(settings, registry, "search_issues", json.dumps(args))
    assert ok and f"{A}#1" in text and f"{B}#9" in text
    text, ok = server._call(settings, registry, "search_issues", json.dumps({**args, "repo": B}))
    assert ok and f"{B}#9" in text and A not in text
