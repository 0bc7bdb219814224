"""The `atlas` command. It only parses arguments (atlas/cli/parser.py), reads settings once and wires the parts."""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import threading
from contextlib import nullcontext
from dataclasses import replace

from atlas.cli.failures import CONFIG_EXIT, INTERRUPTED_EXIT, explain
from atlas.cli.parser import parser
from atlas.errors import ConfigError
from atlas.run_limits import worker_concurrency
from atlas.settings import Settings
from atlas.stop_signals import held


def main(argv: list[str] | None = None) -> int:
    """Parse, read settings once, run one command; any failure is one line on stderr and an exit code."""
    args = parser().parse_args(argv)
    with held() if args.command == "worker" else nullcontext():  # before numpy's BLAS threads (atlas/stop_signals.py)
        return _main(args)


def _main(args: argparse.Namespace) -> int:
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    settings: Settings | None = None
    try:
        # the repository named on `atlas sync` is the one synced (with none: every configured one)
        named = args.command == "sync" and args.repo is not None
        settings = Settings.from_env({**os.environ, "ATLAS_GITHUB_REPO": args.repo} if named else None)
        if args.command in ("worker", "serve"):  # labels=auto is refused at start unless every auto label earned it
            from atlas.cli.config_check import overrides
            from atlas.cli.triage import check_autonomy

            for line in overrides(settings):  # atlas.toml over the environment: said, never silent
                logging.getLogger("atlas.config").warning(line)

            check_autonomy(
                settings.triage, settings.data_dir, settings.home, None if settings.offline else settings.model
            )
        return _run(settings, args)
    except (Exception, KeyboardInterrupt) as exc:
        line, code = explain(exc, redis_at=_redis_at(settings))
        if code != INTERRUPTED_EXIT:
            logging.getLogger("atlas.cli.main").debug("atlas %s failed", args.command, exc_info=exc)
        print(f"atlas {args.command}: {line}", file=sys.stderr)
        return code


def _worker_settings(settings: Settings, args: argparse.Namespace) -> Settings:
    """`atlas worker`'s options over the environment's settings."""
    if args.queue:
        settings = replace(settings, queue_name=args.queue)
    if args.concurrency is not None:
        settings = replace(settings, worker_concurrency=worker_concurrency(args.concurrency, "--concurrency"))
    return settings


def _run(settings: Settings, args: argparse.Namespace) -> int:
    unsynced = [r for r in settings.repos if not (settings.for_repo(r).data_dir / "issues" / "issues.jsonl").is_file()]
    if unsynced and args.command in ("ask", "worker", "serve", "tool", "mcp"):
        first = settings.for_repo(unsynced[0])
        raise ConfigError(
            f"{unsynced[0]} has not been synced into {first.data_dir} yet; "
            f"run `atlas sync github{'' if settings.org.many else ' ' + unsynced[0]}` first"
        )
    if args.command == "ask":
        from atlas.cli.ask import ask as run_ask

        return run_ask(settings, args.question, as_json=args.json, timeout=args.timeout)
    if args.command == "worker":
        from atlas.cli.worker import serve

        return serve(
            _worker_settings(settings, args),
            burst=args.burst,
            max_idle=args.max_idle,
            name=args.name,
            with_scheduler=args.with_scheduler,
        )
    if args.command in ("serve", "mcp"):
        return _serve(settings, args)
    if args.command == "discord":
        return _discord(settings, args.action, args.guild)
    if args.command == "tool":
        from tools import run_tool_cli

        output = run_tool_cli(settings.data_dir, args.name, args.arguments, settings.home, settings.semantic_docs)
        print(output.text, flush=True)
        from tools.corpus_keep import left_to_worker

        note = left_to_worker(settings.semantic_docs)  # never waits for the embedding its search started
        if note:
            print(note, file=sys.stderr)
        return 0 if output.ok else 1
    if args.command == "runs":
        from atlas.cli.show_run import show

        return show(settings, args.run_id, as_json=args.json)
    if args.command == "knowledge":
        from atlas.cli.knowledge import run as knowledge

        return knowledge(settings, args.action, args.entry_id)
    if args.command == "audit":
        return _audit(settings, issue=args.issue, user=args.user, limit=args.limit, as_json=args.json)
    if args.command == "dataset":
        return _dataset(settings, args.action)
    if args.command == "eval":
        from atlas.cli.tool_eval import main as run_eval

        return run_eval(settings, args.repeats, args.cases)
    if args.command == "sync":
        from atlas.cli.sync import sync_github

        only = args.repo is not None  # named: that one; else every configured repository
        return sync_github(settings, docs=args.docs, wait=not args.no_wait, reconcile=args.reconcile, every=not only)
    if args.command in ("redis", "triage", "config"):
        return _local(settings, args)
    return CONFIG_EXIT


def _local(settings: Settings, args: argparse.Namespace) -> int:
    """The commands that start no process: the embedded Redis, triage, `config check` (atlas.toml)."""
    if args.command == "config":
        from atlas.cli.config_check import check

        return check(settings)
    return _redis(settings, args.action) if args.command == "redis" else _triage(settings, args)


def _serve(settings: Settings, args: argparse.Namespace) -> int:
    """`atlas serve` (HTTP or Socket Mode) and `atlas mcp` (the read tools over stdio)."""
    if args.command == "mcp":
        from bot.mcp.server import serve_stdio

        return serve_stdio(settings)
    from bot.web.serve import serve_http
    from bot.web.slack_start import serve_socket

    if args.socket:
        return serve_socket(settings)
    return serve_http(settings, host=args.host, port=args.port or settings.port, processes=args.processes)


def _redis_at(settings: Settings | None) -> str | None:
    """Where Redis was expected, for the one line that says it is unreachable."""
    if settings is None:
        return None
    from atlas import embedded_redis

    return settings.redis_url or embedded_redis.url(settings.home)


def _audit(settings: Settings, *, issue: int | None, user: str | None, limit: int, as_json: bool) -> int:
    from atlas.connection import connect
    from workers.approvals import audit

    found = audit.entries(connect(settings), issue=issue, user=user, limit=limit)
    print(json.dumps(audit.as_json(found), indent=2) if as_json else audit.render(found))
    return 0


def _discord(settings: Settings, action: str, guild: str | None) -> int:
    """`register` creates the slash commands; `run` is the Gateway process (idles when Discord is off)."""
    if action == "register":
        from bot.discord.commands import register
        from bot.discord.rest import DiscordError, rest_client

        if not (settings.discord_application_id and settings.discord_bot_token):
            raise ConfigError("DISCORD_APPLICATION_ID and DISCORD_BOT_TOKEN are needed to register commands")
        try:
            done = register(rest_client(settings), settings.discord_application_id, settings.lookup_command, guild)
        except DiscordError as exc:
            print(f"atlas discord: Discord refused the request: {exc}", file=sys.stderr)
            return 1
        print(
            f"registered {', '.join('/' + c['name'] for c in done)} " + (f"in guild {guild}" if guild else "globally")
        )
        return 0
    if not settings.discord_bot_token:  # `make run` starts every Procfile line: a Slack-only setup idles here
        print("atlas discord: DISCORD_BOT_TOKEN is not set, so Discord is off; idling", file=sys.stderr)
        threading.Event().wait()
    from bot.discord.gateway import run

    return run(settings)


def _dataset(settings: Settings, action: str) -> int:
    """`build` writes only the bundled demo, whatever ATLAS_DATA says; `index` only derives."""
    from datasets import generate, tracker_db

    if action == "index":
        try:
            db = tracker_db.build(settings.data_dir, settings.home)
        except tracker_db.DatasetError as exc:
            print(f"atlas dataset index: {exc} (ATLAS_DATA={settings.data_dir})", file=sys.stderr)
            return 2
        print(f"rebuilt {db} from {settings.data_dir / tracker_db.SOURCE}")
        from tools.corpus_keep import index_docs

        return index_docs(settings.data_dir, settings.home, settings.semantic_docs)
    demo = generate.DATA_DIR
    path = generate.build(demo)
    db = tracker_db.build(demo)
    print(f"wrote {path} and {db}")
    if settings.data_dir != demo.resolve():
        print(f"ATLAS_DATA ({settings.data_dir}) was not touched; `atlas dataset index` rebuilds its index.")
    return 0


def _triage(settings: Settings, args: argparse.Namespace) -> int:
    from atlas.cli.triage import run_backtest, triage_one

    if args.target == "backtest":
        return run_backtest(
            settings, args.last, args.since, as_json=args.json, model=args.model, max_cost=args.max_cost
        )
    if args.target == "report":
        from atlas.cli.triage import live_report

        return live_report(settings, args.days, as_json=args.json)
    if not args.target.lstrip("#").isdigit():
        print(f"atlas triage: {args.target!r} is neither an issue number, 'backtest' nor 'report'", file=sys.stderr)
        return 2
    if args.post:
        from atlas.cli.triage import post_one

        return post_one(settings, int(args.target.lstrip("#")))
    return triage_one(settings, int(args.target.lstrip("#")), as_json=args.json)


def _redis(settings: Settings, action: str) -> int:
    from atlas import embedded_redis, home

    if settings.redis_url:
        print("REDIS_URL is set; the embedded server is not used.")
        return 0
    if action == "start" or action == "url":
        print(embedded_redis.ensure_running(home.usable(settings.home)))
    elif action == "stop":
        if not embedded_redis.is_running(settings.home):
            print("not running")
            return 0
        import redis

        from atlas.cli.worker import stop_all

        workers = stop_all(redis.Redis.from_url(embedded_redis.url(settings.home)))
        embedded_redis.stop(settings.home)
        print(f"stopped (and the {workers} worker(s) it served)" if workers else "stopped")
    else:
        running = embedded_redis.is_running(settings.home)
        print(f"{'running' if running else 'not running'} at {embedded_redis.url(settings.home)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
