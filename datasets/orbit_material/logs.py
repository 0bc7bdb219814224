"""Worker log lines as reporters paste them, in Orbit's text or JSON log format.

Text lines look like the docs show them:
`2025-10-22 03:14:22.407 WARNING orbit.worker ORB-1103 HeartbeatFailed job_id=... error="..."`.
Each excerpt builder returns events `(seconds_from_start, level, logger, code, message)`; `render`
turns them into timestamped lines. Builders draw everything from the `rng` they are given, so the
same seed gives the same logs.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from datetime import datetime, timedelta

Event = tuple[float, str, str, str | None, str]

_POD = "bcdfghjklmnpqrstvwxz2456789"
_ULID = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


def pod_names(rng: random.Random, count: int, deployment: str = "worker") -> list[str]:
    """Kubernetes-style pod names sharing one ReplicaSet hash, like `worker-7f9c6d8b5-x2kqp`."""
    rs = "7f9c" + "".join(rng.choice("0123456789abcdef") for _ in range(5))
    return [f"{deployment}-{rs}-" + "".join(rng.choice(_POD) for _ in range(5)) for _ in range(count)]


def job_id(rng: random.Random, recent: bool = False) -> str:
    """A job id as Orbit prints it: a ULID, whose time prefix is `01K` for 2025 ids and `01J` before."""
    prefix = "01K" if recent else "01J"
    return prefix + "".join(rng.choice(_ULID) for _ in range(23))


def _reconnect(rng: random.Random, hosts: list[str], jitter: bool) -> list[Event]:
    events: list[Event] = []
    t = 0.0
    for host in hosts:
        events.append(
            (
                t,
                "WARNING",
                "orbit.broker",
                "ORB-1402",
                f'BrokerConnectionLost error="ConnectionResetError: [Errno 104] Connection reset by peer" '
                f"reconnect_in={rng.uniform(0.5, 1.0) if jitter else 0.5:.2f}s attempt=1 worker={host}",
            )
        )
        t += rng.uniform(0.0005, 0.004)
    for attempt in range(2, 5):
        base = min((1.0 if jitter else 0.5) * 2 ** (attempt - 1), 30.0)
        t += base
        for host in hosts:
            delay = rng.uniform(base / 2, base) if jitter else base
            events.append(
                (
                    t,
                    "WARNING",
                    "orbit.broker",
                    "ORB-1402",
                    f'BrokerConnectionLost error="TimeoutError: Timeout connecting to server" '
                    f"reconnect_in={delay:.2f}s attempt={attempt} worker={host}",
                )
            )
            t += rng.uniform(0.0002, 0.002)
    return events


def _lease(rng: random.Random, hosts: list[str], jitter: bool) -> list[Event]:
    jid = job_id(rng, True)
    name = rng.choice(
        ["reports.jobs.build_monthly", "media.jobs.transcode", "ml.jobs.score_batch", "etl.jobs.load_partition"]
    )
    age = rng.choice([61.2, 63.8, 75.0, 92.4, 118.7])
    first, second = hosts[0] + "/child-2", hosts[-1] + "/child-5"
    return [
        (0.0, "INFO", "orbit.worker", None, f"job started job_id={jid} job={name} attempt=1/3 worker={first}"),
        (
            age,
            "WARNING",
            "orbit.worker",
            "ORB-1101",
            f"LeaseExpired job_id={jid} job={name} attempt=1/3 "
            f"lease_seconds=60 last_heartbeat_age={age}s worker={first}",
        ),
        (age + 0.4, "INFO", "orbit.worker", None, f"job started job_id={jid} job={name} attempt=2/3 worker={second}"),
        (
            age + rng.uniform(200, 900),
            "WARNING",
            "orbit.worker",
            "ORB-1102",
            f"LeaseStolen job_id={jid} held_by={second} result=discarded",
        ),
    ]


def _memory(rng: random.Random, hosts: list[str], jitter: bool) -> list[Event]:
    events: list[Event] = []
    t, rss, done = 0.0, rng.randint(180, 260), rng.randint(40, 90)
    child = f"{hosts[0]}/child-{rng.randint(1, 8)}"
    for _ in range(rng.randint(4, 6)):
        rss += rng.randint(90, 240)
        done += rng.randint(150, 400)
        t += rng.uniform(1800, 5400)
        events.append((t, "INFO", "orbit.worker", None, f"child stats child={child} rss_mb={rss} jobs_done={done}"))
    limit = (rss // 256 + 1) * 256 - 256 or 512
    events.append(
        (
            t + 60,
            "WARNING",
            "orbit.worker",
            "ORB-1701",
            f"WorkerMemoryLimit child={child} rss_mb={rss + 40} max_memory_mb={limit} jobs_done={done + 12}",
        )
    )
    return events


def _heartbeat(rng: random.Random, hosts: list[str], jitter: bool) -> list[Event]:
    jid = job_id(rng, True)
    worker = f"{hosts[0]}/child-{rng.randint(1, 8)}"
    return [
        (
            0.0,
            "WARNING",
            "orbit.worker",
            "ORB-1103",
            f'HeartbeatFailed job_id={jid} error="TimeoutError: Redis operation '
            'timed out after 5.0s" lease_remaining=44.9s',
        ),
        (
            15.1,
            "WARNING",
            "orbit.worker",
            "ORB-1103",
            f'HeartbeatFailed job_id={jid} error="TimeoutError: Redis operation '
            'timed out after 5.0s" lease_remaining=29.8s',
        ),
        (
            30.2,
            "WARNING",
            "orbit.worker",
            "ORB-1103",
            f'HeartbeatFailed job_id={jid} error="ConnectionError: Error 111 '
            'connecting. Connection refused." lease_remaining=14.7s',
        ),
        (
            61.0,
            "WARNING",
            "orbit.worker",
            "ORB-1101",
            f"LeaseExpired job_id={jid} job=sync.jobs.pull_orders attempt=1/3 "
            f"lease_seconds=60 last_heartbeat_age=61.0s worker={worker}",
        ),
    ]


def _pg_lock(rng: random.Random, hosts: list[str], jitter: bool) -> list[Event]:
    events: list[Event] = []
    t = 0.0
    for _ in range(rng.randint(5, 8)):
        t += rng.uniform(0.2, 9.0)
        op = rng.choice(["ack", "fetch", "ack", "heartbeat"])
        events.append(
            (
                t,
                "WARNING",
                "orbit.broker",
                "ORB-1403",
                f"PostgresLockTimeout op={op} job_id={job_id(rng, True)} waited=5.0s",
            )
        )
    return events


def _retries(rng: random.Random, hosts: list[str], jitter: bool) -> list[Event]:
    jid = job_id(rng, True)
    events: list[Event] = []
    t = 0.0
    for attempt in (1, 2, 3):
        events.append(
            (
                t,
                "WARNING",
                "orbit.worker",
                None,
                f"job failed job_id={jid} job=crm.jobs.push_contact "
                f'attempt={attempt}/3 error="HTTPError: 429 Too Many Requests"',
            )
        )
        t += 2**attempt * rng.uniform(0.5, 1.0) + rng.uniform(0.05, 0.3)
    events.append(
        (
            t,
            "ERROR",
            "orbit.worker",
            "ORB-1201",
            f"RetriesExhausted job_id={jid} job=crm.jobs.push_contact attempts=3/3 "
            f'last_error="HTTPError: 429 Too Many Requests" queue=default.dead',
        )
    )
    return events


def _clamped(rng: random.Random, hosts: list[str], jitter: bool) -> list[Event]:
    events: list[Event] = []
    t = 0.0
    for attempt in range(9, 13):
        t += rng.uniform(1, 40)
        events.append(
            (
                t,
                "WARNING",
                "orbit.worker",
                "ORB-1203",
                f"BackoffClamped job_id={job_id(rng, True)} attempt={attempt}/15 "
                f"computed={2.0 * 2 ** (attempt - 1):.1f}s clamped_to=600.0s",
            )
        )
    return events


EXCERPTS: dict[str, Callable[[random.Random, list[str], bool], list[Event]]] = {
    "reconnect": lambda rng, hosts, _: _reconnect(rng, hosts, jitter=False),
    "reconnect_jittered": lambda rng, hosts, _: _reconnect(rng, hosts, jitter=True),
    "lease": _lease,
    "memory": _memory,
    "heartbeat": _heartbeat,
    "pg_lock": _pg_lock,
    "retries": _retries,
    "clamped": _clamped,
}


def stamp(moment: datetime) -> str:
    """A log timestamp with milliseconds, as Orbit's text format prints it."""
    return moment.strftime("%Y-%m-%d %H:%M:%S.") + f"{moment.microsecond // 1000:03d}"


def render(events: list[Event], start: datetime, fmt: str) -> list[str]:
    """Log lines for `events` starting at `start`, in Orbit's `text` or `json` log format."""
    lines = []
    for offset, level, logger, code, message in sorted(events, key=lambda e: e[0]):
        moment = start + timedelta(seconds=offset)
        if fmt == "json":
            event, _, rest = message.partition(" ")
            record: dict[str, str] = {
                "ts": moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z",
                "level": level.lower(),
                "logger": logger,
            }
            if code:
                record["code"] = code
            record["event"] = event
            for part in rest.split(" "):
                key, sep, value = part.partition("=")
                if sep and '"' not in value:
                    record[key] = value
            lines.append(json.dumps(record, separators=(",", ":")))
        else:
            text = f"{code} {message}" if code else message
            lines.append(f"{stamp(moment)} {level} {logger} {text}")
    return lines
