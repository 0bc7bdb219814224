"""Broker issues outside the reconnect storm: Redis setup and limits, the Postgres broker."""

from __future__ import annotations

from .model import issue

R = "redis-broker"
P = "postgres-broker"

SPECS = [
    issue(
        "redis-eviction",
        "bug",
        "Jobs silently disappear from the queue under load",
        """
        During a big import, ~3% of enqueued jobs never ran. No errors in producers or workers, and the job
        ids don't exist in Redis afterwards. Redis is at ~95% of maxmemory during the import. orbit 3.0.2.
        """,
        comp=R,
        version="3.0.2",
        state="closed",
        when=("2025-06-20", "2025-09-10"),
        comments=[
            ("m", "What does `redis-cli CONFIG GET maxmemory-policy` return?"),
            ("r", "`allkeys-lru`. It's a shared cache instance... I see where this is going."),
            (
                "m",
                """
             Yes: under memory pressure Redis evicts keys, and for Orbit those keys are your jobs. Orbit needs
             `maxmemory-policy noeviction` (a full Redis then rejects enqueues loudly instead). `orbit doctor`
             warns about this in its broker check. Best is a separate Redis for jobs.""",
            ),
        ],
    ),
    issue(
        "redis-cluster",
        "feature",
        "Support Redis Cluster",
        """
        Our platform team only offers Redis Cluster (3 shards). Orbit fails with
        `CROSSSLOT Keys in request don't hash to the same slot`. Any plans to support cluster mode?
        """,
        comp=R,
        version="3.0.0",
        state="closed",
        when=("2025-03-20", "2025-06-30"),
        labels=("wontfix",),
        comments=[
            (
                "m",
                """
             Not planned. Orbit's Lua scripts touch several keys of one app atomically (queue, lease set, job
             hash), which cluster mode only allows within one hash slot. Putting a whole app in one slot would
             work but gives you none of the sharding you're after. A primary/replica setup with failover is
             what we support; a job broker rarely needs more than one primary.""",
            ),
            ("u", "For what it's worth, we asked our platform team for a non-cluster instance and got one."),
        ],
    ),
    issue(
        "redis-tls-port",
        "bug",
        "Worker hangs at startup, then ORB-1401 against ElastiCache",
        """
        ```
        {{tb:broker_unavailable}}
        ```

        Hmm, that's from my laptop. On ECS the worker hangs for 5 seconds per attempt and then logs ORB-1401
        with a timeout. URL is `redis://master.jobs.abc123.euw1.cache.amazonaws.com:6379/0`, in-transit
        encryption is on.
        """,
        comp=R,
        version="3.0.3",
        state="closed",
        when=("2025-08-28", "2025-10-20"),
        comments=[
            (
                "m",
                """
             With in-transit encryption enabled, ElastiCache only speaks TLS: use `rediss://` (two s). A
             plain `redis://` connection to a TLS port hangs until `socket_timeout_seconds`, which matches
             your 5s. The laptop traceback is simply no Redis running locally.""",
            ),
            ("r", "rediss:// works. Thanks, I stared at that URL for an hour."),
        ],
    ),
    issue(
        "redis-idle",
        "question",
        "ORB-1402 every ~10 minutes on Azure Cache for Redis, is that a problem?",
        """
        Workers log one ORB-1402 per idle child roughly every 10 minutes, then reconnect immediately. Jobs
        seem unaffected. 3.0.1.
        """,
        comp=R,
        version="3.0.1",
        state="open",
        when=("2025-05-01", "2025-08-01"),
        comments=[
            (
                "m",
                """
             Azure Cache closes connections that have been idle for 10 minutes. Orbit notices, logs ORB-1402
             and reconnects; running jobs aren't affected. Harmless. If the noise bothers you, alert on a
             sustained ORB-1402 rate rather than on single lines; isolated `attempt=1` lines are exactly this.""",
            ),
        ],
    ),
    issue(
        "redis-acl",
        "question",
        "Minimal Redis ACL for an Orbit app?",
        """
        Security wants a dedicated ACL user per app. Today all three of our apps (billing,
        notifications, exports) share one user with `+@all ~*` on the same instance. Which keys and
        commands does Orbit need, so each app user can be limited to its own keys?
        """,
        comp=R,
        version="3.1.0",
        state="open",
        when=("2025-10-16", "2025-11-20"),
        comments=[
            (
                "m",
                """
             Keys: `~orbit:<app>:*`. Commands: the list, hash and sorted-set families, `EVALSHA`, `SCRIPT
             LOAD`, `PING`, `INFO` (doctor and version checks), `CLIENT SETNAME`. Something like
             `user billing on >... ~orbit:billing:* +@list +@hash +@sortedset +@scripting +ping +info
             +client|setname`. `orbit doctor` will tell you if something is missing.""",
            ),
            ("r", "Works with that. Maybe put it on the Redis page?"),
        ],
    ),
    issue(
        "redis-sentinel-2x",
        "question",
        "Does 2.6 support Sentinel URLs?",
        """
        We'd like to point workers at our Sentinel group (`redis+sentinel://...`). Is that supported in 2.6?
        """,
        comp=R,
        version="2.6.0",
        state="closed",
        when=("2023-05-20", "2023-09-30"),
        comments=[
            (
                "m",
                """
             No sentinel URLs, in 2.x or planned for 3.x. Put a stable primary endpoint in front (most
             charts expose a service that follows the master, or use HAProxy with a role check) and point
             Orbit there.""",
            ),
        ],
    ),
    issue(
        "redis-valkey",
        "question",
        "Is Valkey supported as a broker?",
        """
        Our managed provider is retiring its Redis 7.2 plans in favour of Valkey 8.0. We use TLS and ACL
        users. `orbit doctor` against a test instance reports `valkey 8.0.1` and marks the broker check ok,
        but I couldn't find Valkey mentioned anywhere. Anything to watch out for with Orbit 3.0.3?
        """,
        comp=R,
        version="3.0.3",
        state="open",
        when=("2025-08-28", "2025-11-01"),
        comments=[
            ("m", "Valkey 7.2 and later is supported and tested in CI. Same settings apply (`noeviction`, AOF)."),
        ],
    ),
    issue(
        "redis-startup-retry",
        "bug",
        "Worker never exits when Redis is down at startup",
        """
        If Redis is unreachable, `orbit worker` logs ORB-1401 every few seconds forever instead of exiting.
        Our supervisor expects a non-zero exit to alert. Bug?
        """,
        comp=R,
        version="3.0.0",
        state="open",
        when=("2025-03-20", "2025-06-30"),
        comments=[
            (
                "m",
                """
             Deliberate: workers often start before the broker in compose files and on cluster restarts, so
             they keep retrying with backoff. Alert on ORB-1401 in logs or on `orbit_busy_children` being
             absent instead. `orbit doctor` exits 1 if the broker is unreachable, for pre-start checks.""",
            ),
        ],
    ),
    issue(
        "redis-connections",
        "question",
        "How many Redis connections does one worker open?",
        """
        We're on a managed plan with maxclients 1000 and 30 worker pods. How do I compute the worst case?
        """,
        comp=R,
        version="3.0.2",
        state="open",
        when=("2025-06-20", "2025-09-10"),
        comments=[
            (
                "m",
                """
             Each process has its own pool of up to `pool_size` (default 10), and a worker is a parent plus
             `concurrency` children. With concurrency 8: 9 × 10 = 90 per pod, 2,700 for 30 pods. Children
             rarely need more than 2–3, so `pool_size = 4` gives 36 per pod, 1,080. Go to 3 to stay under
             1000 with room for producers.""",
            ),
        ],
    ),
    issue(
        "redis-socket-timeout",
        "bug",
        "ORB-1103 everywhere after lowering socket_timeout_seconds to 1",
        """
        To detect failovers faster we set `socket_timeout_seconds = 1`. Now workers log HeartbeatFailed
        dozens of times an hour during normal operation. Redis latency p99 is ~40ms.
        """,
        comp=R,
        version="3.0.3",
        state="open",
        when=("2025-08-28", "2025-10-30"),
        comments=[
            (
                "m",
                """
             p99 isn't the whole story: a single 1s stall (fork for RDB snapshot, a slow `KEYS` someone ran)
             fails every in-flight call. Below ~2s ordinary spikes turn into ORB-1103. Go back to 3–5s;
             failover detection is dominated by TCP reset anyway.""",
            ),
            ("r", "Back to 3, quiet again. The RDB fork was exactly it."),
        ],
    ),
    issue(
        "pg-lock",
        "bug",
        "ORB-1403 PostgresLockTimeout bursts every afternoon",
        """
        Postgres broker, 3.0.2. Every day around 14:00–15:00 UTC workers log bursts of:

        ```
        {{logs:pg_lock}}
        ```

        followed by some ORB-1101 and duplicate runs. Load is not higher then.
        """,
        comp=P,
        version="3.0.2",
        state="closed",
        when=("2025-06-20", "2025-09-10"),
        comments=[
            (
                "m",
                """
             Orbit's own statements hold row locks for milliseconds, so something else holds them. Run the
             blocking-pids query from the Postgres broker page during a burst; an idle-in-transaction session
             joining against `orbit_jobs` is the usual suspect.""",
            ),
            (
                "r",
                "Found it: a BI tool's role doing `SELECT ... FOR UPDATE` on orbit_jobs in a transaction left "
                "open for an hour. Set `idle_in_transaction_session_timeout` on that role.",
            ),
        ],
    ),
    issue(
        "pg-pgbouncer",
        "bug",
        "Jobs start up to a second late behind PgBouncer",
        """
        Direct to Postgres, jobs start within ~10ms of enqueue. Through our PgBouncer (transaction pooling)
        it's 200–1000ms, and pg_stat_statements shows a huge number of small polling queries.
        """,
        comp=P,
        version="3.0.1",
        state="closed",
        when=("2025-05-01", "2025-08-10"),
        comments=[
            (
                "m",
                """
             Idle workers wait with `LISTEN`, which needs a session-level connection. In transaction pooling
             mode notifications never arrive and workers fall back to polling once a second. Connect workers
             directly, or through a PgBouncer pool in session mode (producers can stay on transaction mode).""",
            ),
            ("r", "Session-mode pool for workers: latency back to ~10ms."),
        ],
    ),
    issue(
        "pg-bloat",
        "question",
        "orbit_jobs is 38 GB with a few thousand live rows",
        """
        Our `orbit_jobs` table keeps growing although the queue is usually near empty. Dequeue got slower
        over the months. VACUUM FULL fixes it for a while but locks everything. What's the recommended setup?
        """,
        comp=P,
        version="3.0.3",
        state="open",
        when=("2025-08-28", "2025-11-01"),
        comments=[
            (
                "m",
                """
             Queue tables churn constantly; default autovacuum reacts too slowly. Set per-table settings,
             e.g. `autovacuum_vacuum_scale_factor = 0.01` and `autovacuum_vacuum_cost_delay = 1` on
             `orbit_jobs`, and look for long-running transactions anywhere in the database, which stop vacuum
             from removing dead rows. Avoid VACUUM FULL on a live broker; use pg_repack once if needed.""",
            ),
        ],
    ),
    issue(
        "pg-enqueue-txn",
        "bug",
        "Job runs before the invoice row it needs exists",
        """
        We enqueue `send_receipt` right after `invoice.save()` inside a Django atomic block. Sometimes the job
        fails with `Invoice.DoesNotExist`, and retries then succeed. Postgres broker, same database.
        """,
        comp=P,
        version="3.0.2",
        state="closed",
        when=("2025-06-20", "2025-09-30"),
        comments=[
            (
                "m",
                """
             Orbit uses its own connections, so the enqueue commits immediately, before your transaction.
             A fast worker can run the job before your commit. Use
             `transaction.on_commit(lambda: send_receipt.enqueue(invoice_id=invoice.id))`.""",
            ),
            ("r", "on_commit fixed it. I assumed same DB meant same transaction."),
        ],
    ),
    issue(
        "pg-outbox",
        "feature",
        "Enqueue inside the caller's transaction with the Postgres broker",
        """
        Follow-up to #[pg-enqueue-txn]: with the Postgres broker it should be possible to insert the job row
        on the application's connection, so the job exists if and only if the transaction commits (outbox
        pattern). Something like `send_receipt.enqueue(invoice_id=1, connection=conn)`.
        """,
        state="open",
        comp=P,
        version="3.1.0",
        when=("2025-10-16", "2025-11-20"),
        comments=[
            (
                "m",
                """
             We like this, and the Postgres broker is the only place it's possible. It needs care around
             NOTIFY (only sent on commit, which is actually what we want) and psycopg 2 vs 3 connections.
             Tagging for 3.2 consideration.""",
            ),
            ("u", "Huge +1, on_commit has edge cases with nested atomics."),
        ],
    ),
    issue(
        "pg-schema",
        "question",
        "Can Orbit's tables live in a separate schema?",
        """
        We run the Postgres broker against our main application database (3.1.0). On first start the
        tables were created in `public`, and our DBA doesn't want them there. Is there a setting for the
        schema? If we move them with `ALTER TABLE ... SET SCHEMA orbit`, will workers still find them?
        """,
        comp=P,
        version="3.1.0",
        state="open",
        when=("2025-10-16", "2025-11-20"),
        comments=[
            (
                "m",
                """
             No dedicated key: Orbit creates its tables in the first schema on the role's `search_path`. Create
             a role and schema for it and `ALTER ROLE orbit SET search_path = orbit;`. The Postgres broker page
             has the exact statements.""",
            ),
        ],
    ),
    issue(
        "pg-patroni",
        "bug",
        "After a Patroni failover, workers end up on the replica (read-only transaction)",
        """
        After a planned switchover, a third of our workers logged
        `cannot execute UPDATE in a read-only transaction` on every heartbeat until restarted. URL lists both
        hosts: `postgresql://orbit@pg-a,pg-b/jobs`.
        """,
        comp=P,
        version="3.0.3",
        state="open",
        when=("2025-08-28", "2025-11-01"),
        comments=[
            (
                "m",
                "Add `target_session_attrs=read-write` to the URL so libpq only accepts the primary when reconnecting.",
            ),
            ("r", "That's it. Might be worth mentioning in the docs."),
        ],
    ),
    issue(
        "pg-vague",
        "bug",
        "postgres broker slow",
        """
        since last week the postgres broker is very slow, jobs take long to start. help
        """,
        comp=P,
        version="3.0.3",
        state="closed",
        when=("2025-09-01", "2025-11-10"),
        labels=("needs-repro",),
        comments=[
            (
                "m",
                "Slow to start means queue wait, not run time? Please check table bloat "
                "and ORB-1403 lines, and share `orbit status` output.",
            ),
            ("m", "Closing without more information."),
        ],
    ),
    issue(
        "pg-purge",
        "bug",
        "orbit purge on a queue with 3M rows causes ORB-1403 on all workers",
        """
        We purged a runaway queue (3.1M jobs) with `orbit purge imports --yes`. For the ~4 minutes the purge
        ran, every worker logged ORB-1403 for heartbeats and acks on other queues, and we got duplicate runs.
        """,
        comp=P,
        version="3.1.0",
        when=("2025-10-20", "2025-11-25"),
        labels=("confirmed",),
        comments=[
            (
                "m",
                """
             Confirmed: purge is a single DELETE, which on that size holds locks long enough to block other
             statements on the table. We'll make it delete in batches of ~10k. Until then, for huge queues
             run a batched DELETE yourself during a quiet period.""",
            ),
        ],
    ),
]

DUPLICATES = [
    issue(
        "pgd-lock",
        "bug",
        "Row lock timeouts (ORB-1403) all afternoon on the Postgres broker",
        """
        Every afternoon our workers log PostgresLockTimeout warnings for heartbeats and acks, then leases
        expire. Mornings are clean. 3.0.3.
        """,
        comp=P,
        version="3.0.3",
        dup="pg-lock",
        dup_note="Look for the blocking session with the query on the Postgres broker page; it's rarely Orbit itself.",
    ),
    issue(
        "pgd-bouncer",
        "bug",
        "LISTEN/NOTIFY through PgBouncer transaction pooling: jobs picked up late",
        """
        Workers behind PgBouncer only pick up jobs about once a second. Is NOTIFY not supported?
        """,
        comp=P,
        version="3.0.2",
        dup="pg-pgbouncer",
        dup_note="LISTEN needs session pooling; workers fall back to one-second polling otherwise.",
    ),
    issue(
        "redisd-eviction",
        "bug",
        "Jobs disappear from the queue when Redis is near maxmemory (allkeys-lru)",
        """
        Some jobs never run and their keys are gone. Our Redis uses allkeys-lru and is near maxmemory.
        """,
        comp=R,
        version="3.1.0",
        dup="redis-eviction",
        dup_note="Orbit requires `maxmemory-policy noeviction`.",
    ),
]
