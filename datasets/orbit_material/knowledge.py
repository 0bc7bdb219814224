"""Orbit's pull requests, releases and discussions, hand-written like its issues.

`#[key]` refers to an issue by its spec key (datasets/generate.py gives it its number); `#<pr:N>`
refers to the N-th pull request below. Numbers continue GitHub's shared sequence after the issues.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Pull:
    title: str
    author: str
    created: str
    merged: str | None  # None: still open
    closes: tuple[str, ...]  # spec keys of the issues GitHub links as closed by it
    files: tuple[str, ...]
    body: str


@dataclass(frozen=True)
class Release:
    tag: str
    published: str
    author: str
    notes: str


@dataclass(frozen=True)
class Reply:
    author: str
    at: str
    body: str


@dataclass(frozen=True)
class Discussion:
    title: str
    category: str
    author: str
    created: str
    body: str
    answer: Reply | None
    replies: tuple[Reply, ...] = field(default=())


PULLS: tuple[Pull, ...] = (
    Pull(
        "Reject heartbeat_seconds >= lease_seconds at startup (ORB-1801)",
        "dsoto",
        "2025-09-22T09:14:00Z",
        "2025-09-30T15:02:00Z",
        (),
        ("orbit/config.py", "docs/leases-and-heartbeats.md"),
        """
A heartbeat that is not shorter than the lease can never renew it in time: every job would expire with
ORB-1101 and run a second time on another worker. Until now that configuration started and only failed
under load, which is the worst time to find out.

We chose a startup error over a warning because nobody wants this configuration on purpose, and a
warning is easy to miss in a deployment log. `WorkerConfig.check()` raises `ConfigInvalid` (ORB-1801);
the softer 1:3 ratio stays an `orbit doctor` warning.
""",
    ),
    Pull(
        "Reconnect with jittered backoff after a broker failover",
        "dsoto",
        "2025-10-22T08:40:00Z",
        "2025-10-25T11:30:00Z",
        ("rs-long",),
        ("orbit/broker/redis.py", "orbit/broker/pool.py"),
        """
Fixes #[rs-long].

After a failover every worker child reconnected at the same moment, each opening `pool_size`
connections; the new primary hit `maxclients` and refused most of them, so the children retried in
lockstep for minutes while their heartbeats failed (ORB-1103) and leases expired.

Children now wait a random delay between `reconnect_min_seconds` and twice that before the first
attempt, and open one connection first, the rest of the pool only once it succeeded.
""",
    ),
    Pull(
        "Name the matching permanent_errors entry in ORB-1202 log lines",
        "hlindqvist",
        "2025-10-24T13:05:00Z",
        "2025-10-28T10:12:00Z",
        ("ret-permanent-base",),
        ("orbit/retry.py", "docs/retries-and-backoff.md"),
        """
Closes #[ret-permanent-base].

`permanent_errors` matches subclasses, so listing `requests.RequestException` also makes timeouts
permanent. The behaviour is right, but the ORB-1202 line did not say why a timeout was dead-lettered.
`matching_permanent_error()` now returns the entry that matched and the worker logs it:
`ORB-1202 PermanentError ... matched=requests.exceptions.RequestException`.
""",
    ),
    Pull(
        "Per-queue lease_seconds",
        "ayo-adeyemi",
        "2025-11-18T16:20:00Z",
        None,
        (),
        ("orbit/config.py", "orbit/lease.py"),
        """
Draft. Lets `[queues.reports] lease_seconds = 300` override the worker-wide lease for one queue, so
CPU-heavy report jobs get a long lease without slowing crash recovery for every other queue.
""",
    ),
)

RELEASES: tuple[Release, ...] = (
    Release(
        "v3.1.0",
        "2025-10-14T12:00:00Z",
        "mkowalczyk",
        """
## Orbit 3.1.0

### Changed
- Workers refuse to start when `heartbeat_seconds` is not below `lease_seconds` (ORB-1801, #<pr:1>).

### Added
- `orbit doctor` checks the broker's `maxclients` against the configured pools.
""",
    ),
    Release(
        "v3.1.1",
        "2025-11-27T10:00:00Z",
        "dsoto",
        """
## Orbit 3.1.1

### Fixed
- Reconnect storm after a broker failover: children reconnect with jitter and open their pool
  gradually (#<pr:2>, fixes #[rs-long]).
- ORB-1202 PermanentError log lines name the `permanent_errors` entry that matched, so a timeout
  dead-lettered by a broad base class is explained (#<pr:3>, fixes #[ret-permanent-base]).
""",
    ),
)

DISCUSSIONS: tuple[Discussion, ...] = (
    Discussion(
        "Can Orbit workers run inside AWS Lambda?",
        "Q&A",
        "ncho-dev",
        "2025-07-02T08:00:00Z",
        """
We already run everything else on Lambda. Can an Orbit worker run there, triggered every minute?
""",
        Reply(
            "ayo-adeyemi",
            "2025-07-02T14:30:00Z",
            """
Not as a worker. Lambda freezes the execution environment between invocations, so the heartbeat thread
stops, every lease expires (ORB-1101) and the jobs run again elsewhere. Run workers on ECS Fargate or
EC2 and only enqueue from Lambda: `App.enqueue` is a single broker write and fits a Lambda well.
""",
        ),
        (Reply("ncho-dev", "2025-07-03T09:10:00Z", "Moved the workers to Fargate, enqueueing from Lambda. Thanks!"),),
    ),
    Discussion(
        "Grafana dashboard for Orbit metrics",
        "Show and tell",
        "ldubois-sre",
        "2025-09-12T10:00:00Z",
        """
Sharing the Grafana dashboard we use: queue depth, lease expiries per minute, retry delays.
""",
        None,
        (Reply("frankiej", "2025-09-13T07:45:00Z", "Nice. The lease expiry panel caught a GIL-heavy job for us."),),
    ),
    Discussion(
        "How do priorities interact with prefetch?",
        "Q&A",
        "pkrause",
        "2025-11-04T17:00:00Z",
        """
If a child has prefetched a low-priority job, does a high-priority job enqueued later wait behind it?
""",
        None,
        (Reply("sam-okafor", "2025-11-05T08:00:00Z", "We saw that with prefetch = 4; prefetch = 1 made it rare."),),
    ),
)
