"""The ack's floor: a Bolt app that answers every mention from a listener middleware, nothing else.

Same signed requests, same Bolt request handling and signature check, same waitress server and
process model as `atlas serve` (bot/web/serve.py's `http_server`, one shared socket for N processes);
no Redis, no claim, no enqueue. Atlas's ack is judged as a ratio to this, measured in the same run.

With a REDIS_URL it is the second floor: the same app making one Redis round trip per mention (a
no-op script given the intake's key count and the request body as its argument), the least any ack
that records the question durably before answering must pay.

The server-level settings are Atlas's own (its HTTP threads, as `atlas serve`
applies them from the same environment), so the two differ only in what the app does per mention.

Run as `python -m bench.ack_floor PORT PROCESSES SLACK_API_URL SLACK_BOT_TOKEN THREADS [REDIS_URL]`
(bench/slack.py starts it).
"""

from __future__ import annotations

import json
import os
import signal
import socket
import sys

import redis
from slack_bolt import App, BoltResponse
from slack_sdk import WebClient

from bot.web.serve import BACKLOG, http_server
from tests.standins.slack_events import SECRET

INTAKE_KEYS = 7  # bot/slack/intake.py: two claim keys, the run, the thread, the job, the queue, the queues set


def floor_app(api_url: str, token: str, redis_url: str | None = None) -> App:
    """Bolt with the same secret, its token checked once at start against the Slack stand-in (as Atlas's)."""
    app = App(signing_secret=SECRET, client=WebClient(token=token, base_url=api_url))
    script = redis.Redis.from_url(redis_url).register_script("return 1") if redis_url else None
    keys = [f"atlas:floor:{i}" for i in range(INTAKE_KEYS)]

    def answer(body: dict[str, object]) -> BoltResponse:
        if script is not None:
            script(keys=keys, args=[json.dumps(body)])
        return BoltResponse(status=200, body="")

    def never() -> None:
        """The anchor Bolt matches events on; the middleware answers first."""

    app.event("app_mention", middleware=[answer])(never)
    return app


def main(port: int, processes: int, api_url: str, token: str, threads: int, redis_url: str | None = None) -> int:
    sock = socket.create_server(("127.0.0.1", port), backlog=BACKLOG)
    children = []
    for _ in range(processes):
        pid = os.fork()
        if pid == 0:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            try:
                http_server(floor_app(api_url, token, redis_url), sock=sock, threads=threads).run()
            finally:
                os._exit(0)
        children.append(pid)

    def stop(signum: int, frame: object) -> None:
        for child in children:
            try:
                os.kill(child, signal.SIGTERM)
            except ProcessLookupError:
                pass

    signal.signal(signal.SIGTERM, stop)
    for child in children:
        os.waitpid(child, 0)
    return 0


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4], int(sys.argv[5]), *sys.argv[6:7]))
