"""What the bot's listeners share: settings, a fast-failing Redis, Web API clients, a small pool.

Built once per process by `build`; listeners receive it, never read the environment themselves.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from concurrent.futures import Executor, ThreadPoolExecutor
from dataclasses import dataclass, field

import redis
from slack_sdk import WebClient

from atlas.settings import Settings
from bot.after_ack import AfterAck, InFlight
from bot.fast_redis import bot_redis
from bot.lookups import Lookups
from bot.slack.client import SlackClients
from bot.slack.delayed import Delayed
from bot.slack.intake import Intake
from bot.slack.spool import Drainer, Spool

BACKGROUND_THREADS = 8  # after-ack Web API calls: notes when Redis is down, delayed statuses
NOTE_MEMORY = 1000


@dataclass
class Deps:
    """Everything a listener needs besides the request."""

    settings: Settings
    redis: redis.Redis
    client: WebClient  # retries 5xx and dropped connections: Bolt's client, updates, ephemerals
    create_client: WebClient  # retries 429 only: thread notes that must not appear twice
    lookups: Lookups
    in_flight: InFlight = field(default_factory=InFlight)  # requests being answered (counted by the app)
    background: Executor = field(init=False)  # after-ack work, started once the acks in flight are answered
    delayed: Delayed | None = None
    spool: Spool | None = None  # questions kept on disk while Redis is down (bot/slack/spool.py)
    drainer: Drainer | None = None  # started by bot.slack.mentions.register
    intake: Intake | None = None  # built once by bot.slack.mentions.message_intake: its listeners share round trips
    _noted: OrderedDict[str, None] = field(default_factory=OrderedDict)
    _noted_lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        self.background = AfterAck(
            ThreadPoolExecutor(BACKGROUND_THREADS, thread_name_prefix="atlas-bg"), self.in_flight
        )
        if self.delayed is None:
            self.delayed = Delayed(self.background)

    def first_note(self, key: str) -> bool:
        """True once per key per process: a note about one message is posted at most once here."""
        with self._noted_lock:
            if key in self._noted:
                return False
            self._noted[key] = None
            while len(self._noted) > NOTE_MEMORY:
                self._noted.popitem(last=False)
            return True


def build(settings: Settings, *, conn: redis.Redis | None = None) -> Deps:
    """Wire the bot's dependencies for this process."""
    slack = SlackClients.for_settings(settings)
    return Deps(
        settings=settings,
        redis=conn if conn is not None else bot_redis(settings),
        client=slack.client,
        create_client=slack.create_client,
        lookups=Lookups.for_settings(settings),
        spool=Spool(settings.home / "spool"),
    )
