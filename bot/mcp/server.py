"""Atlas's read tools served over MCP (the official `mcp` SDK's low-level Server): a maintainer's own
coding agent asks the same docs, issues, code and history the bot answers from.

Only read tools are served, with the strict schemas and descriptions the model sees (tools/registry.py);
side-effect tools are not in the registry served here, so a call naming one is an unknown tool. With a
triage channel configured, `propose_action` (bot/mcp/propose.py) lets a client propose a label, comment or
close as duplicate, which becomes an approval card there: a proposal, never a write. read_more is left out: an MCP call
has no run whose stash could keep the rest of a cut result, so a long result says how much was cut instead.
"""

from __future__ import annotations

import json
from typing import Any

import anyio
import mcp_types as types
import redis
from mcp.server import Server, ServerRequestContext
from mcp.server.stdio import stdio_server

from atlas.connection import connect
from atlas.settings import Settings
from bot.mcp import propose as mcp_propose
from bot.mcp import repos
from tools import ToolContext, dispatch, open_corpus
from tools.catalog import read_registry
from tools.registry import Registry
from tools.repo_scope import scoped

SERVER_NAME = "atlas"
NOT_SERVED = frozenset({"read_more"})
INSTRUCTIONS = (
    "Read-only knowledge of {project}: docs, issues, pull requests, releases, discussions and code; "
    "cite the permalinks and URLs the tools print. Nothing here changes anything."
)
PROPOSING = (
    "Knowledge of {project}: docs, issues, pull requests, releases, discussions and code; cite the permalinks "
    "and URLs the tools print. The search and get tools change nothing. propose_action changes nothing "
    "either: it puts a proposed label, comment or close before the maintainers as an approval card, and "
    "only an approver's click writes to GitHub."
)


def build_server(settings: Settings, credited: str | None = None) -> Server[Any]:
    """An MCP server listing and calling the read tools over the project's corpus. `credited`: who proposals
    are credited to (over HTTP, the token's holder); None: the client's own name from its initialize (stdio)."""
    registry = read_registry(settings.project, NOT_SERVED)
    conn = connect(settings)  # no traffic until a proposal, or a read over several repositories, asks Redis
    if settings.org.many:  # every tool takes `repo`; none: every repository, each result naming its own
        registry = scoped(registry, settings.repos)
    listed = [
        types.Tool(
            name=d["name"],
            description=d["description"],
            input_schema=d["parameters"],
            annotations=types.ToolAnnotations(read_only_hint=True, destructive_hint=False, open_world_hint=False),
        )
        for d in registry.definitions()
    ]

    if settings.triage.enabled:
        listed.append(mcp_propose.tool(settings))

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=listed)

    async def call_tool(ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> types.CallToolResult:
        if params.name == mcp_propose.NAME and settings.triage.enabled:
            client = credited or (ctx.session.client_params.client_info.name if ctx.session.client_params else None)
            arguments = dict(params.arguments or {})
            output = await anyio.to_thread.run_sync(mcp_propose.call, settings, arguments, client, conn)
            return types.CallToolResult(content=[types.TextContent(text=output[0])], is_error=not output[1])
        given = json.dumps(params.arguments or {})
        output = await anyio.to_thread.run_sync(_call, settings, registry, params.name, given, conn)
        return types.CallToolResult(content=[types.TextContent(text=output[0])], is_error=not output[1])

    instructions = (PROPOSING if settings.triage.enabled else INSTRUCTIONS).format(project=settings.project.name)
    return Server(SERVER_NAME, version="1", instructions=instructions, on_list_tools=list_tools, on_call_tool=call_tool)


def _call(
    settings: Settings, registry: Registry, name: str, arguments: str, conn: redis.Redis | None = None
) -> tuple[str, bool]:
    """One call through the same dispatch as a run's (never raises); the corpus is the cached one; with several
    repositories, the ones served now (`conn`: where a GitHub App's changes to them are kept)."""
    ctx = ToolContext(
        corpus=open_corpus(settings.data_dir, settings.home, settings.semantic_docs),
        stash=None,
        run_id="mcp",
        scope=repos.read_scope(settings, conn),
    )
    out = dispatch(registry, name, arguments, ctx)
    return out.text, out.ok


def serve_stdio(settings: Settings) -> int:
    """`atlas mcp`: serve over this process's stdin and stdout until the client closes them."""

    async def main() -> None:
        server = build_server(settings)
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(main)
    return 0
