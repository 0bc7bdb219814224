"""Long-standing feature requests and assorted bugs, many from the 2.x years."""

from __future__ import annotations

from .model import issue

SPECS = [
    issue(
        "feat-rate-limit",
        "feature",
        "Per-job rate limits (e.g. at most 10 calls/s to a partner API)",
        """
        Several of our jobs call APIs with strict rate limits. Today we run a dedicated worker with low
        concurrency for them, which wastes capacity. Something like `@app.task(rate_limit="10/s")` shared
        across all workers would be ideal.
        """,
        state="open",
        comp="workers",
        version="2.6.0",
        when=("2023-05-20", "2023-10-30"),
        comments=[
            (
                "m",
                "A fleet-wide limit needs a token bucket in the broker; doable in Redis, harder "
                "in Postgres. We'd want it to work on both before shipping.",
            ),
            ("u", "+1. We do it with a Redis token bucket in our own code and `PermanentError`-free retries on 429."),
            ("u2", "Still the thing we miss most from Celery."),
            ("m2", "Still on the list after 3.0; the lease work had priority.", "2025-04-01"),
        ],
    ),
    issue(
        "feat-unique",
        "feature",
        "Unique jobs: skip enqueue if an identical job is already queued",
        """
        We enqueue `reindex(product_id=...)` on every product save, and bulk edits create thousands of
        identical jobs. An option like `enqueue(..., unique_key=f"reindex:{product_id}")` that drops duplicates
        while one is queued would help.
        """,
        comp="workers",
        version="2.7.0",
        when=("2023-09-20", "2024-02-28"),
        comments=[
            (
                "m",
                "Semantics need care (queued vs running, what happens on retry). "
                "Interested in how people would expect it to behave.",
            ),
            ("u", "Queued only. If one is running, a new one should be allowed, the data may have changed."),
        ],
    ),
    issue(
        "feat-chains",
        "feature",
        "Run job B after job A succeeds",
        """
        A minimal chaining primitive, e.g. `enqueue(..., then=notify.s(user_id=1))`, would cover most of our
        multi-step flows without a full workflow engine.
        """,
        state="open",
        comp="workers",
        version="2.8.0",
        when=("2024-02-20", "2024-08-30"),
        comments=[
            (
                "m",
                "We've been reluctant: the failure semantics of chains (retries of A, dead-lettered A, partial "
                "results) are where workflow engines get complicated. Keeping open for discussion.",
            ),
        ],
    ),
    issue(
        "feat-priority",
        "feature",
        "Priorities within a single queue",
        """
        We'd like some jobs in `default` to jump the line without creating another queue and worker. Sorted
        set instead of list?
        """,
        state="open",
        comp="workers",
        version="2.9.1",
        when=("2024-08-25", "2024-12-30"),
        comments=[
            (
                "m",
                "Queues with strict priority order on the worker cover this today (`--queues urgent,default`). "
                "Within one queue we'd lose O(1) dequeue. Probably not, but open for arguments.",
            ),
        ],
    ),
    issue(
        "feat-sqs",
        "feature",
        "Amazon SQS broker",
        """
        We're all-in on AWS and would prefer not to run Redis just for jobs. Volume is low (~50 jobs a
        minute) so we'd happily trade some latency for a managed queue. Any plans for an SQS broker?
        """,
        version="2.5.1",
        state="closed",
        when=("2023-03-10", "2023-06-30"),
        labels=("wontfix",),
        comments=[
            (
                "m",
                """
             No plans: SQS has no way to extend a message's visibility atomically per worker the way our
             leases need, no sorted sets for delays beyond 15 minutes, and no cheap queue introspection.
             ElastiCache or RDS Postgres (3.0 will have a Postgres broker) are the AWS-native options.""",
            ),
        ],
    ),
    issue(
        "feat-cron-seconds",
        "feature",
        "Seconds field in cron expressions",
        """
        We have a job that should run every 20 seconds. Cron syntax stops at minutes. Could there be an
        optional sixth field, or an `every=` schedule?
        """,
        comp="cron-scheduling",
        version="2.9.2",
        when=("2024-10-10", "2025-02-28"),
        comments=[
            (
                "m",
                "A scheduler tick every few seconds across an elected scheduler isn't "
                "something we want to guarantee. For sub-minute work, a long-running job "
                "that loops with a sleep is usually better.",
            ),
            ("u", "An `every=timedelta(seconds=20)` would still be nice for polling integrations."),
        ],
    ),
    issue(
        "feat-pause",
        "feature",
        "Pause and resume a queue without stopping workers",
        """
        During a downstream incident we want to stop processing `payments` but keep other queues running on
        the same workers. Something like `orbit pause payments` / `orbit resume payments`.
        """,
        state="open",
        comp="cli",
        version="2.8.1",
        when=("2024-04-15", "2024-09-30"),
        comments=[
            (
                "m",
                "This comes up often. A flag in the broker that workers check before fetching "
                "is simple enough; the dashboard would get a button too.",
            ),
            ("u", "+1, we currently scale the worker Deployment to 0 which also stops the scheduler."),
            ("u2", "Would love this for incident response."),
        ],
    ),
    issue(
        "feat-cancel",
        "feature",
        "Cancel a running job from the dashboard",
        """
        Sometimes a huge export is started by mistake. We can delete queued jobs, but there's no way to stop
        one that's running except killing the worker.
        """,
        state="open",
        comp="dashboard-oidc",
        version="3.1.0",
        when=("2025-10-16", "2025-11-25"),
        comments=[
            (
                "m",
                "Would need a cancellation flag the heartbeat thread checks, raising "
                "in the job like a timeout. Plausible for 3.2.",
            ),
        ],
    ),
    issue(
        "feat-result-ttl",
        "feature",
        "Configurable retention of job results",
        """
        Results stay in Redis until the job record expires, and our results are a few KB each. A
        `result_ttl_seconds` per job would let us drop them after an hour.
        """,
        comp="payloads",
        version="3.0.3",
        when=("2025-09-01", "2025-11-20"),
        comments=[
            ("m", "Reasonable. Per-job setting with an app-wide default in `[payload]`, probably."),
        ],
    ),
    issue(
        "feat-typed-enqueue",
        "feature",
        "Type hints for enqueue() keyword arguments",
        """
        `send_invoice.enqueue(invoce_id=42)` (typo) passes type checking and fails in the worker. With
        ParamSpec, `enqueue` could carry the job function's signature so mypy/pyright catch it.
        """,
        version="3.0.2",
        state="closed",
        when=("2025-06-20", "2025-08-10"),
        comments=[
            ("m", "Nice one, and now possible since we require 3.9+ (with typing_extensions). PR welcome."),
            ("u", "PR is up: `enqueue()` now carries the job function's parameters via ParamSpec, keyword-only."),
            ("m", "Merged, ships in 3.1.0.", "2025-08-20"),
        ],
    ),
    issue(
        "bug-redis5",
        "bug",
        "ERR unknown command 'BLMOVE' on Redis 5",
        """
        Upgraded to 2.5.1 and workers fail on every fetch with `redis.exceptions.ResponseError: unknown command 'BLMOVE'`.
        Our Redis is 5.0.14 (old, I know).
        """,  # noqa: E501 (quoted whole: a log line, or the issue's own line breaks)
        comp="redis-broker",
        version="2.5.1",
        state="closed",
        when=("2023-03-05", "2023-05-30"),
        comments=[
            (
                "m",
                "2.5 requires Redis 6.2+ (BLMOVE replaced the older BRPOPLPUSH). It's in the release notes but "
                "we should fail with a clearer message at startup. Will add a version check.",
            ),
            ("r", "Upgraded Redis, fine now."),
        ],
    ),
    issue(
        "bug-queues-order",
        "bug",
        "2.7.0: --queues order is ignored, jobs taken from the last queue first",
        """
        With `--queues critical,default`, workers on 2.7.0 drain `default` before `critical`. 2.6.1 respected
        the order. Looks like a regression.
        """,
        comp="workers",
        version="2.7.0",
        state="closed",
        when=("2023-09-19", "2023-10-20"),
        labels=("regression", "confirmed"),
        comments=[
            ("m", "Confirmed, the queue list was reversed when building the BLMOVE call. Fix in 2.7.1."),
            ("m", "2.7.1 released with the fix.", "2023-11-20"),
        ],
    ),
    issue(
        "bug-dashboard-pickle",
        "bug",
        "Dashboard job view returns 500 for pickled payloads with custom classes",
        """
        Opening a job in the 2.5 dashboard gives a 500. Log says `ModuleNotFoundError: No module named 'shop'`:
        the dashboard tries to unpickle our payload but doesn't have our code.
        """,
        version="2.5.1",
        state="closed",
        when=("2023-03-10", "2023-06-30"),
        comments=[
            (
                "m",
                "The dashboard shouldn't unpickle anything. 2.6 will show pickled "
                "payloads as opaque bytes with their size.",
            ),
            ("m", "Released in 2.6.0.", "2023-05-15"),
        ],
    ),
    issue(
        "bug-sighup-broken-deploy",
        "bug",
        "SIGHUP during a half-finished deploy leaves every child crash-looping",
        """
        Our nightly SIGHUP (to reclaim memory) hit a server while a deploy was copying files. New children
        imported a half-written module, crashed, were restarted, crashed again... for 40 minutes. The parent
        kept running the whole time. 3.1.0.
        """,
        comp="workers",
        version="3.1.0",
        when=("2025-10-20", "2025-11-25"),
        labels=("confirmed",),
        comments=[
            (
                "m",
                """
             The parent should notice that fresh children fail to import and stop recycling (keep the old
             ones). We'll add a check that a new child imports the app successfully before the next old child
             is retired. Meanwhile: deploy to a new directory and switch a symlink atomically.""",
            ),
        ],
    ),
    issue(
        "bug-dashboard-tz",
        "bug",
        "Dashboard shows next schedule runs in UTC instead of the scheduler timezone",
        """
        `orbit schedule list` shows `2025-09-01 09:00 +02:00` but the dashboard's schedules page shows
        `2025-09-01 07:00` without an offset, which people read as local time. 3.0.3.
        """,
        comp="dashboard-oidc",
        version="3.0.3",
        state="closed",
        when=("2025-08-28", "2025-10-05"),
        comments=[
            ("m", "Agreed it should match the CLI and show the offset. Fixed for 3.1.0."),
            ("m", "Released in 3.1.0.", "2025-10-14"),
        ],
    ),
    issue(
        "bug-status-unknown",
        "bug",
        "orbit status shows VERSION 'unknown' for 2.9.4 workers",
        """
        During our migration, `orbit status` (3.1.0) lists the remaining 2.9.4 workers with version
        `unknown`. The upgrade guide says status shows each worker's version, which is exactly what we need
        to find stragglers.
        """,
        comp="cli",
        version="3.1.0",
        when=("2025-10-16", "2025-11-25"),
        comments=[
            ("m", "2.9.4 stores its version under a different field in the worker hash. Easy fix, we'll read both."),
        ],
    ),
    issue(
        "q-gevent",
        "question",
        "Does Orbit work with gevent monkey-patching?",
        """
        Our codebase is monkey-patched with gevent (legacy). Can Orbit 2.9 workers run gevent-based jobs?
        """,
        comp="workers",
        version="2.9.0",
        state="closed",
        when=("2024-06-30", "2024-10-30"),
        comments=[
            (
                "m",
                """
             Not supported: the heartbeat thread and the child supervision assume real threads and
             processes. Patching before Orbit imports may appear to work and then fail in odd ways under
             load. If you need concurrency inside a job, do it explicitly within that job.""",
            ),
        ],
    ),
    issue(
        "q-throughput",
        "question",
        "What throughput should we expect from the Redis broker?",
        """
        Capacity planning: roughly how many jobs per second can one Redis handle with Orbit, assuming tiny
        jobs?
        """,
        comp="redis-broker",
        version="2.8.1",
        state="closed",
        when=("2024-04-15", "2024-08-30"),
        comments=[
            (
                "m",
                """
             On a modest instance we see ~8–10k jobs/s end to end with tiny payloads before Redis CPU becomes
             the limit; each job is a handful of commands (enqueue, move, lease, ack). Payload size and
             heartbeats from many long jobs reduce that. Measure with your own payloads.""",
            ),
        ],
    ),
    issue(
        "q-license",
        "question",
        "Is orbit-jobs OK to use in a commercial closed-source product?",
        """
        Legal asks before we ship a product that embeds orbit-jobs: what license is it under, and are there
        any copyleft dependencies among the required or optional ones?
        """,
        state="closed",
        when=("2023-02-01", "2023-12-30"),
        comments=[
            (
                "m",
                "MIT, and the required dependencies are MIT/BSD licensed. The optional "
                "extras are too (psycopg is LGPL, used as a library).",
            ),
        ],
    ),
]
