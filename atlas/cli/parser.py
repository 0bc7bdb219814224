"""What the `atlas` command accepts: every subcommand, its arguments and their help (`atlas CMD --help`).

Only the grammar: atlas/cli/main.py reads the settings and runs what was parsed. A new command gets its
arguments here and its dispatch there.
"""

from __future__ import annotations

import argparse
from pathlib import Path


def parser() -> argparse.ArgumentParser:
    """Every subcommand with a description and a help line per argument (`atlas CMD --help`)."""
    top = argparse.ArgumentParser(prog="atlas", description="Atlas, a maintainer bot for Slack.")
    sub = top.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def command(name: str, summary: str, details: str = "") -> argparse.ArgumentParser:
        return sub.add_parser(
            name, help=summary, description=f"{summary[0].upper()}{summary[1:]}.{' ' + details if details else ''}"
        )

    ask = command(
        "ask",
        "ask a question through the queue and a worker; print the answer",
        "Starts a background worker when none serves the queue; progress goes to stderr.",
    )
    ask.add_argument("question", help='the question, e.g. "What does ORB-1202 mean?"')
    ask.add_argument("--json", action="store_true", help="print the result as one JSON object")
    ask.add_argument("--timeout", type=_seconds, default=300.0, help="seconds to wait for the answer (default: 300)")

    worker = command("worker", "run a worker on the Atlas queue", "Serves ATLAS_QUEUE until interrupted.")
    worker.add_argument("--burst", action="store_true", help="exit when the queue is empty")
    worker.add_argument("--max-idle", type=int, default=None, help="exit after this many idle seconds")
    worker.add_argument("--name", default=None, help="the worker's name in RQ (default: a random one)")
    worker.add_argument(
        "--with-scheduler",
        action="store_true",
        help="also run RQ's scheduler (approval expiry, GitHub backstop syncs); one such worker per deployment",
    )
    worker.add_argument(
        "--queue",
        default=None,
        help="serve this queue instead of ATLAS_QUEUE (atlas ask uses atlas-<settings fingerprint>)",
    )
    worker.add_argument(
        "--concurrency",
        default=None,
        metavar="N",
        help="work up to N runs at once in this process, on threads (default: ATLAS_WORKER_CONCURRENCY, else 16)",
    )

    serve = command(
        "serve",
        "run the Slack app: HTTP on --port (default PORT), or Socket Mode",
        "Checks the bot token with Slack first; exits with one line if Slack refuses it or is unreachable.",
    )
    serve.add_argument("--port", type=int, default=None, help="HTTP port (default: $PORT, else 3000)")
    serve.add_argument("--host", default="0.0.0.0", help="HTTP interface to listen on")
    serve.add_argument("--socket", action="store_true", help="Socket Mode with SLACK_APP_TOKEN instead of HTTP")
    serve.add_argument("--processes", type=int, default=1, help="HTTP server processes sharing the port (one per core)")

    command(
        "mcp",
        "serve the read tools to a coding agent over MCP on stdin and stdout",
        "Docs, issues, code, pull requests, releases and discussions; no tool that changes anything.",
    )

    discord = command(
        "discord",
        "Discord: the Gateway process for mentions, or register the slash commands",
        "run (default): the Gateway process that answers @mentions; register: create the slash commands.",
    )
    discord.add_argument(
        "action", nargs="?", choices=["run", "register"], default="run", help="run or register (default: run)"
    )
    discord.add_argument("--guild", default=None, help="register in this guild only (updates at once; for testing)")

    tool = command(
        "tool",
        "dispatch one tool call and print what the model would read",
        "Exits 1 when the tool answers with an error.",
    )
    tool.add_argument("name", help="the tool's name, e.g. get_issue")
    tool.add_argument(
        "arguments",
        nargs="?",
        default="{}",
        help='its arguments as a JSON object, e.g. \'{"issue_id": 42, "include": []}\'',
    )

    runs = command("runs", "look at a run's record (e.g. an answer Slack never took)")
    runs.add_argument("action", choices=["show"], help="what to do")
    runs.add_argument("run_id", help="the run id (in the thread's note, the logs, or `atlas ask --json`)")
    runs.add_argument("--json", action="store_true", help="print the run as one JSON object")

    knowledge = command("knowledge", "the solved threads kept as knowledge: list them, or forget one")
    knowledge.add_argument("action", choices=["list", "forget"], help="what to do")
    knowledge.add_argument("entry_id", nargs="?", help="the entry to forget (K..., from `atlas knowledge list`)")

    audit = command("audit", "side-effect requests, decisions and results, newest first")
    audit.add_argument("--issue", type=int, default=None, help="only entries about this issue number")
    audit.add_argument("--user", default=None, help="only entries this Slack user requested or decided")
    audit.add_argument("--limit", type=int, default=50, help="at most this many entries (default: 50)")
    audit.add_argument("--json", action="store_true", help="one JSON array instead of lines")

    dataset = command("dataset", "the bundled Orbit demo, or a project's search index")
    dataset.add_argument(
        "action",
        choices=["build", "index"],
        help="build: regenerate the bundled Orbit demo (datasets/orbit only) and its index; "
        "index: rebuild the index of ATLAS_DATA from its issues.jsonl (writes only the derived issues/index.db)",
    )

    evaluation = command(
        "eval",
        "evaluations that need a real model",
        "tools: does the model pick the right first tool, v1 vs v2 toolsets. Exits 2 when nothing ran.",
    )
    evaluation.add_argument("what", choices=["tools"], help="which evaluation")
    evaluation.add_argument("--repeats", type=int, default=3, help="runs over every case (default: 3)")
    evaluation.add_argument(
        "--cases", type=Path, action="append", help="a jsonl file of cases (default: shared + ours)"
    )

    sync = command(
        "sync",
        "import a repository's issues, comments, labels and docs (incremental)",
        "Writes the project folder under ATLAS_HOME that ATLAS_GITHUB_REPO serves from; with no OWNER/REPO, "
        "syncs every repository of ATLAS_GITHUB_REPOS one after the other.",
    )
    sync.add_argument("source", choices=["github"], help="where the repository lives")
    sync.add_argument("repo", nargs="?", default=None, help="OWNER/REPO (default: every configured repository)")
    sync.add_argument(
        "--docs",
        action="append",
        default=None,
        metavar="PATH",
        help="a folder of Markdown docs in the repository (repeatable; default: docs)",
    )
    sync.add_argument("--no-wait", action="store_true", help="stop instead of waiting when the rate limit is spent")
    sync.add_argument(
        "--reconcile",
        action="store_true",
        help="also list every issue number and drop the issues GitHub deleted or transferred "
        "(done by itself every ATLAS_SYNC_RECONCILE_EVERY syncs)",
    )

    triage = command(
        "triage",
        "triage one issue offline (duplicates, labels, a reply), or backtest triage",
        "ISSUE: suggestions for that issue as of its creation; nothing is posted. "
        "backtest: replay the last closed issues as of their creation and score them. "
        "report: the live precision of each action from maintainers' decisions, beside the backtest's.",
    )
    triage.add_argument("target", help="an issue number, 'backtest' or 'report'")
    triage.add_argument("--json", action="store_true", help="print one JSON object")
    triage.add_argument(
        "--post",
        action="store_true",
        help="ISSUE: start the issue's one triage run (its card in the triage channel), as a new issue does",
    )
    triage.add_argument("--last", type=int, default=None, help="backtest: only the last N closed issues")
    triage.add_argument("--since", default=None, help="backtest: only issues opened on or after this date (YYYY-MM-DD)")
    triage.add_argument("--days", type=int, default=30, help="report: the decisions of the last N days (default 30)")
    triage.add_argument(
        "--model",
        action="store_true",
        help="backtest: replay with the configured model too (its answers kept), beside the offline engine",
    )
    triage.add_argument(
        "--max-cost",
        type=float,
        default=2.0,
        dest="max_cost",
        help="backtest --model: stop the replay once its model calls cost this many dollars (default 2)",
    )

    config = command(
        "config",
        "check atlas.toml (ATLAS_CONFIG) and print what each channel will do",
        "A bad file is refused with its line and the reason; the file wins for the channels it names.",
    )
    config.add_argument("action", choices=["check"], help="check the file and the environment together")

    red = command("redis", "the embedded Redis server (when REDIS_URL is not set)")
    red.add_argument(
        "action", choices=["start", "stop", "status", "url"], help="start, stop, report status, or print its URL"
    )
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
