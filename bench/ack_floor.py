"""The ack's floor: a Bolt app that answers every mention from a listener middleware, nothing else.

Same signed requests, same Bolt request handling and signature check, same waitress server and
process model as `atlas serve` (bot/serve.py's `http_server`, one shared socket for N processes);
no Redis, no claim, no enqueue. Atlas's ack is judged as a ratio to this, measured in the same run.

Run as `python -m bench.ack_floor PORT PROCESSES SLACK_API_URL SLACK_BOT_TOKEN` (bench/slack.py starts it).
"""

from __future__ import annotations

import os
import signal
import socket
import sys

from slack_bolt import App, BoltResponse
from slack_sdk import WebClient

from bot.serve import BACKLOG, http_server
from tests.standins.slack_events import SECRET


def floor_app(api_url: str, token: str) -> App:
    """Bolt with the same secret, its token checked once at start against the Slack stand-in (as Atlas's)."""
    app = App(signing_secret=SECRET, client=WebClient(token=token, base_url=api_url))

    def answer(body: dict[str, object]) -> BoltResponse:
        return BoltResponse(status=200, body="")

    def never() -> None:
        """The anchor Bolt matches events on; the middleware answers first."""

    app.event("app_mention", middleware=[answer])(never)
    return app


def main(port: int, processes: int, api_url: str, token: str) -> int:
    sock = socket.create_server(("127.0.0.1", port), backlog=BACKLOG)
    children = []
    for _ in range(processes):
        pid = os.fork()
        if pid == 0:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            try:
                http_server(floor_app(api_url, token), sock=sock).run()
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
    sys.exit(main(int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]))
