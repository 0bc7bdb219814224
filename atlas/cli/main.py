"""The `atlas` command. It only parses arguments, reads settings once and wires the parts."""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import threading
from dataclasses import replace
from pathlib import Path

from atlas.cli.failures import CONFIG_EXIT, INTERRUPTED_EXIT, explain
from atlas.errors import ConfigError
from atlas.run_limits import worker_concurrency
from atlas.settings import Settings


def main(argv: list[str] | None = None) -> int:
    """Parse, read settings once, run one command; any failure is one line on stderr and an exit code."""
    args = parser().parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    settings: Settings | None = None
    try:
        # the repository named on `atlas sync` is the one synced
        settings = Settings.from_env({**os.environ, "ATLAS_GITHUB_REPO": args.repo} if args.command == "sync" else None)
        if args.command in ("worker", "serve"):  # labels=auto is refused at start unless every auto label earned it
            from atlas.cli.triage import check_autonomy

            check_autonomy(settings.triage, settings.data_dir, settings.home)
        return _run(settings, args)
    except (Exception, KeyboardInterrupt) as exc:
        line, code = explain(exc, redis_at=_redis_at(settings))
        if code != INTERRUPTED_EXIT:
            logging.getLogger("atlas.cli.main").debug("atlas %s failed", args.command, exc_info=exc)
        print(f"atlas {args.command}: {line}", file=sys.stderr)
        return code


def parser() -> argparse.ArgumentParser:
    """Every subcommand with a description and a help line per argument (`atlas CMD --help`)."""
    top = argparse.ArgumentParser(prog="atlas", description="Atlas, a maintainer bot for Slack.")
    sub = top.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def command(name: str, summary: str, details: str = "") -> argparse.ArgumentParser:
        return sub.add_parser(name, help=summary, description=f"{summary[0].upper()}{summary[1:]}.{' ' + details if details else ''}")

    ask = command("ask", "ask a question through the queue and a worker; print the answer",
                  "Starts a background worker when none serves the queue; progress goes to stderr.")
    ask.add_argument("question", help='the question, e.g. "What does ORB-1202 mean?"')
    ask.add_argument("--json", action="store_true", help="print the result as one JSON object")
    ask.add_argument("--timeout", type=_seconds, default=300.0, help="seconds to wait for the answer (default: 300)")

    worker = command("worker", "run a worker on the Atlas queue", "Serves ATLAS_QUEUE until interrupted.")
    worker.add_argument("--burst", action="store_true", help="exit when the queue is empty")
    worker.add_argument("--max-idle", type=int, default=None, help="exit after this many idle seconds")
    worker.add_argument("--name", default=None, help="the worker's name in RQ (default: a random one)")
    worker.add_argument("--with-scheduler", action="store_true",
                        help="also run RQ's scheduler (approval expiry, GitHub backstop syncs); one such worker per deployment")
    worker.add_argument("--queue", default=None, help="serve this queue instead of ATLAS_QUEUE (atlas ask uses atlas-<settings fingerprint>)")
    worker.add_argument("--concurrency", default=None, metavar="N",
                        help="work up to N runs at once in this process, on threads (default: ATLAS_WORKER_CONCURRENCY, else 16)")

    serve = command("serve", "run the Slack app: HTTP on --port (default PORT), or Socket Mode",
                    "Checks the bot token with Slack first; exits with one line if Slack refuses it or is unreachable.")
    serve.add_argument("--port", type=int, default=None, help="HTTP port (default: $PORT, else 3000)")
    serve.add_argument("--host", default="0.0.0.0", help="HTTP interface to listen on")
    serve.add_argument("--socket", action="store_true", help="Socket Mode with SLACK_APP_TOKEN instead of HTTP")
    serve.add_argument("--processes", type=int, default=1, help="HTTP server processes sharing the port (one per core)")

    command("mcp", "serve the read tools to a coding agent over MCP on stdin and stdout",
            "Docs, issues, code, pull requests, releases and discussions; no tool that changes anything.")

    discord = command("discord", "Discord: the Gateway process for mentions, or register the slash commands",
                      "run (default): the Gateway process that answers @mentions; register: create the slash commands.")
    discord.add_argument("action", nargs="?", choices=["run", "register"], default="run", help="run or register (default: run)")
    discord.add_argument("--guild", default=None, help="register in this guild only (updates at once; for testing)")

    tool = command("tool", "dispatch one tool call and print what the model would read",
                   "Exits 1 when the tool answers with an error.")
    tool.add_argument("name", help="the tool's name, e.g. get_issue")
    tool.add_argument("arguments", nargs="?", default="{}", help='its arguments as a JSON object, e.g. \'{"issue_id": 42, "include": []}\'')

    runs = command("runs", "look at a run's record (e.g. an answer Slack never took)")
    runs.add_argument("action", choices=["show"], help="what to do")
    runs.add_argument("run_id", help="the run id (in the thread's note, the logs, or `atlas ask --json`)")
    runs.add_argument("--json", action="store_true", help="print the run as one JSON object")

    audit = command("audit", "side-effect requests, decisions and results, newest first")
    audit.add_argument("--issue", type=int, default=None, help="only entries about this issue number")
    audit.add_argument("--user", default=None, help="only entries this Slack user requested or decided")
    audit.add_argument("--limit", type=int, default=50, help="at most this many entries (default: 50)")
    audit.add_argument("--json", action="store_true", help="one JSON array instead of lines")

    dataset = command("dataset", "the bundled Orbit demo, or a project's search index")
    dataset.add_argument(
        "action", choices=["build", "index"],
        help="build: regenerate the bundled Orbit demo (datasets/orbit only) and its index; "
        "index: rebuild the index of ATLAS_DATA from its issues.jsonl (writes only the derived issues/index.db)",
    )

    evaluation = command("eval", "evaluations that need a real model",
                         "tools: does the model pick the right first tool, v1 vs v2 toolsets. Exits 2 when nothing ran.")
    evaluation.add_argument("what", choices=["tools"], help="which evaluation")
    evaluation.add_argument("--repeats", type=int, default=3, help="runs over every case (default: 3)")
    evaluation.add_argument("--cases", type=Path, action="append", help="a jsonl file of cases (default: shared + ours)")

    sync = command("sync", "import a repository's issues, comments, labels and docs (incremental)",
                   "Writes the project folder under ATLAS_HOME that ATLAS_GITHUB_REPO serves from.")
    sync.add_argument("source", choices=["github"], help="where the repository lives")
    sync.add_argument("repo", help="OWNER/REPO")
    sync.add_argument("--docs", action="append", default=None, metavar="PATH",
                      help="a folder of Markdown docs in the repository (repeatable; default: docs)")
    sync.add_argument("--no-wait", action="store_true", help="stop instead of waiting when the rate limit is spent")
    sync.add_argument("--reconcile", action="store_true",
                      help="also list every issue number and drop the issues GitHub deleted or transferred "
                           "(done by itself every ATLAS_SYNC_RECONCILE_EVERY syncs)")

    triage = command("triage", "triage one issue offline (duplicates, labels, a reply), or backtest triage",
                     "ISSUE: suggestions for that issue as of its creation; nothing is posted. "
                     "backtest: replay the last closed issues as of their creation and score them.")
    triage.add_argument("target", help="an issue number, or 'backtest'")
    triage.add_argument("--json", action="store_true", help="print one JSON object")
    triage.add_argument("--post", action="store_true",
                        help="ISSUE: start the issue's one triage run (its card in the triage channel), as a new issue does")
    triage.add_argument("--last", type=int, default=None, help="backtest: only the last N closed issues")
    triage.add_argument("--since", default=None, help="backtest: only issues opened on or after this date (YYYY-MM-DD)")

    red = command("redis", "the embedded Redis server (when REDIS_URL is not set)")
    red.add_argument("action", choices=["start", "stop", "status", "url"], help="start, stop, report status, or print its URL")
    return top


def _seconds(text: str) -> float:
    """A positive, finite number of seconds (argparse says what is wrong, exit 2)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds, got {text!r}")
    return value


def _worker_settings(settings: Settings, args: argparse.Namespace) -> Settings:
    """`atlas worker`'s options over the environment's settings."""
    if args.queue:
        settings = replace(settings, queue_name=args.queue)
    if args.concurrency is not None:
        settings = replace(settings, worker_concurrency=worker_concurrency(args.concurrency, "--concurrency"))
    return settings


def _run(settings: Settings, args: argparse.Namespace) -> int:
    if settings.github is not None and args.command in ("ask", "worker", "serve", "tool", "mcp") \
            and not (settings.data_dir / "issues" / "issues.jsonl").is_file():
        raise ConfigError(f"{settings.github.repo} has not been synced into {settings.data_dir} yet; "
                          f"run `atlas sync github {settings.github.repo}` first")
    if args.command == "ask":
        from atlas.cli.ask import ask as run_ask

        return run_ask(settings, args.question, as_json=args.json, timeout=args.timeout)
    if args.command == "worker":
        from atlas.cli.worker import serve

        return serve(_worker_settings(settings, args), burst=args.burst, max_idle=args.max_idle, name=args.name,
                     with_scheduler=args.with_scheduler)
    if args.command in ("serve", "mcp"):
        return _serve(settings, args)
    if args.command == "discord":
        return _discord(settings, args.action, args.guild)
    if args.command == "tool":
        from tools import run_tool_cli

        output = run_tool_cli(settings.data_dir, args.name, args.arguments, settings.home, settings.semantic_docs)
        print(output.text, flush=True)
        from tools.corpus_keep import keep_vectors

        keep_vectors(settings.semantic_docs)
        return 0 if output.ok else 1
    if args.command == "runs":
        from atlas.cli.show_run import show

        return show(settings, args.run_id, as_json=args.json)
    if args.command == "audit":
        return _audit(settings, issue=args.issue, user=args.user, limit=args.limit, as_json=args.json)
    if args.command == "dataset":
        return _dataset(settings, args.action)
    if args.command == "eval":
        from atlas.cli.tool_eval import main as run_eval

        return run_eval(settings, args.repeats, args.cases)
    if args.command == "sync":
        from atlas.cli.sync import sync_github

        return sync_github(settings, docs=args.docs, wait=not args.no_wait, reconcile=args.reconcile)
    if args.command in ("redis", "triage"):
        return _redis(settings, args.action) if args.command == "redis" else _triage(settings, args)
    return CONFIG_EXIT


def _serve(settings: Settings, args: argparse.Namespace) -> int:
    """`atlas serve` (HTTP or Socket Mode) and `atlas mcp` (the read tools over stdio)."""
    if args.command == "mcp":
        from bot.mcp.server import serve_stdio

        return serve_stdio(settings)
    from bot.web.serve import serve_http, serve_socket

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
        print(f"registered {', '.join('/' + c['name'] for c in done)} " + (f"in guild {guild}" if guild else "globally"))
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
        return run_backtest(settings, args.last, args.since, as_json=args.json)
    if not args.target.lstrip("#").isdigit():
        print(f"atlas triage: {args.target!r} is neither an issue number nor 'backtest'", file=sys.stderr)
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
