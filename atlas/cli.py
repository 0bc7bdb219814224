"""The `atlas` command. It only parses arguments, reads settings once and wires the parts."""

from __future__ import annotations

import argparse
import json
import logging
import sys
import threading
from pathlib import Path

from atlas.settings import ConfigError, Settings


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="atlas", description="Atlas, a maintainer bot for Slack.")
    sub = parser.add_subparsers(dest="command", required=True)

    ask = sub.add_parser("ask", help="ask a question through the queue and a worker; print the answer")
    ask.add_argument("question")
    ask.add_argument("--json", action="store_true", help="print the result as one JSON object")
    ask.add_argument("--timeout", type=float, default=300.0)

    worker = sub.add_parser("worker", help="run a worker on the Atlas queue")
    worker.add_argument("--burst", action="store_true", help="exit when the queue is empty")
    worker.add_argument("--max-idle", type=int, default=None, help="exit after this many idle seconds")
    worker.add_argument("--name", default=None)

    serve = sub.add_parser("serve", help="run the Slack app: HTTP on --port (default PORT), or Socket Mode")
    serve.add_argument("--port", type=int, default=None, help="HTTP port (default: $PORT, else 3000)")
    serve.add_argument("--host", default="0.0.0.0", help="HTTP interface to listen on")
    serve.add_argument("--socket", action="store_true", help="Socket Mode with SLACK_APP_TOKEN instead of HTTP")
    serve.add_argument("--processes", type=int, default=1, help="HTTP server processes sharing the port (one per core)")

    discord = sub.add_parser("discord", help="Discord: the Gateway process for mentions, or register the slash commands")
    discord.add_argument("action", nargs="?", choices=["run", "register"], default="run")
    discord.add_argument("--guild", default=None, help="register in this guild only (updates at once; for testing)")

    tool = sub.add_parser("tool", help="dispatch one tool call and print what the model would read")
    tool.add_argument("name")
    tool.add_argument("arguments", nargs="?", default="{}")

    audit = sub.add_parser("audit", help="side-effect requests, decisions and results, newest first")
    audit.add_argument("--issue", type=int, default=None, help="only entries about this issue number")
    audit.add_argument("--user", default=None, help="only entries this Slack user requested or decided")
    audit.add_argument("--limit", type=int, default=50)
    audit.add_argument("--json", action="store_true", help="one JSON array instead of lines")

    dataset = sub.add_parser("dataset", help="the demo dataset")
    dataset.add_argument("action", choices=["build"])

    evaluation = sub.add_parser("eval", help="evaluations that need a real model")
    evaluation.add_argument("what", choices=["tools"])
    evaluation.add_argument("--repeats", type=int, default=3)
    evaluation.add_argument("--cases", type=Path, action="append", help="a jsonl file of cases (default: shared + ours)")

    red = sub.add_parser("redis", help="the embedded Redis server (when REDIS_URL is not set)")
    red.add_argument("action", choices=["start", "stop", "status", "url"])

    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        settings = Settings.from_env()
    except ConfigError as exc:
        print(f"atlas: configuration error: {exc}", file=sys.stderr)
        return 2

    if args.command == "ask":
        from atlas.ask import ask as run_ask

        return run_ask(settings, args.question, as_json=args.json, timeout=args.timeout)
    if args.command == "worker":
        from atlas.serve_worker import serve

        return serve(settings, burst=args.burst, max_idle=args.max_idle, name=args.name)
    if args.command == "serve":
        from bot.serve import serve_http, serve_socket

        try:
            if args.socket:
                return serve_socket(settings)
            return serve_http(settings, host=args.host, port=args.port or settings.port, processes=args.processes)
        except ConfigError as exc:
            print(f"atlas serve: configuration error: {exc}", file=sys.stderr)
            return 2
    if args.command == "discord":
        return _discord(settings, args.action, args.guild)
    if args.command == "tool":
        from datasets.tracker_db import DatasetError
        from tools import run_tool_cli

        try:
            print(run_tool_cli(settings.data_dir, args.name, args.arguments))
        except DatasetError as exc:
            print(f"atlas tool: {exc} (ATLAS_DATA={settings.data_dir})", file=sys.stderr)
            return 2
        return 0
    if args.command == "audit":
        return _audit(settings, issue=args.issue, user=args.user, limit=args.limit, as_json=args.json)
    if args.command == "dataset":
        return _dataset(settings.data_dir)
    if args.command == "eval":
        from atlas.tool_eval import main as run_eval

        return run_eval(settings, args.repeats, args.cases)
    if args.command == "redis":
        return _redis(settings, args.action)
    return 2


def _audit(settings: Settings, *, issue: int | None, user: str | None, limit: int, as_json: bool) -> int:
    from atlas.connection import connect
    from workers import audit

    found = audit.entries(connect(settings), issue=issue, user=user, limit=limit)
    print(json.dumps(audit.as_json(found), indent=2) if as_json else audit.render(found))
    return 0


def _discord(settings: Settings, action: str, guild: str | None) -> int:
    from bot.discord.rest import DiscordError

    try:
        if action == "register":
            from bot.discord.commands import register
            from bot.discord.rest import rest_client

            if not (settings.discord_application_id and settings.discord_bot_token):
                raise ConfigError("DISCORD_APPLICATION_ID and DISCORD_BOT_TOKEN are needed to register commands")
            done = register(rest_client(settings), settings.discord_application_id, settings.lookup_command, guild)
            print(f"registered {', '.join('/' + c['name'] for c in done)} " + (f"in guild {guild}" if guild else "globally"))
            return 0
        if not settings.discord_bot_token:  # `make run` starts every Procfile line: a Slack-only setup idles here
            print("atlas discord: DISCORD_BOT_TOKEN is not set, so Discord is off; idling", file=sys.stderr)
            try:
                threading.Event().wait()
            except KeyboardInterrupt:
                return 0
        from bot.discord.gateway import run

        return run(settings)
    except ConfigError as exc:
        print(f"atlas discord: configuration error: {exc}", file=sys.stderr)
        return 2
    except DiscordError as exc:
        print(f"atlas discord: Discord refused the request: {exc}", file=sys.stderr)
        return 1


def _dataset(data_dir: Path) -> int:
    from datasets import generate, tracker_db

    path = generate.build(data_dir)
    db = tracker_db.build(data_dir)
    print(f"wrote {path} and {db}")
    return 0


def _redis(settings: Settings, action: str) -> int:
    from atlas import embedded_redis

    if settings.redis_url:
        print("REDIS_URL is set; the embedded server is not used.")
        return 0
    if action == "start" or action == "url":
        print(embedded_redis.ensure_running(settings.home))
    elif action == "stop":
        print("stopped" if embedded_redis.stop(settings.home) else "not running")
    else:
        running = embedded_redis.is_running(settings.home)
        print(f"{'running' if running else 'not running'} at {embedded_redis.url(settings.home)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
