"""ORB-1101 lease expiry: CPU-bound jobs starving the heartbeat, long jobs, and the consequences."""

from __future__ import annotations

from .model import issue

S = "lease"
C = "leases-and-heartbeats"

SPECS = [
    issue(
        "lease-cpu",
        "bug",
        "ORB-1101 LeaseExpired on a CPU-bound report job, and then it runs twice",
        """
        We have a job that builds monthly reports: pure Python, loops over ~2M rows and aggregates into
        dicts, takes 3–4 minutes. Since we moved it to Orbit it regularly gets re-queued while still running,
        and the report is generated twice (two emails to finance):

        ```
        {{logs:lease}}
        ```

        Default lease settings. There's no I/O in the hot loop, it's just slow. Why would the heartbeat stop?

        {{env}}
        """,
        comp=C,
        version="3.0.1",
        story=S,
        state="closed",
        when=("2025-05-02", "2025-06-20"),
        comments=[
            (
                "m",
                """
             The heartbeat runs in a thread of the child process and needs the GIL. Plain Python bytecode
             hands the GIL over regularly, so the usual culprit is a long call into a C extension that holds
             it: pandas' groupby on object columns or a regex over a huge string are common ones. Is there
             one in the aggregation? `last_heartbeat_age` just over `lease_seconds` is the classic sign.

             Options, cheapest first: raise `lease_seconds` (e.g. 300) for this app; or call
             `orbit.current_job().extend_lease(900)` before the aggregation; or run the aggregation in a
             subprocess. The *Leases and heartbeats* page has the details.""",
            ),
            ("r", "It's pandas on object columns, yes. `extend_lease(900)` before the groupby fixed it. Thanks!"),
            ("u", "Note for others: make the email step idempotent anyway, this bit us too."),
        ],
    ),
    issue(
        "lease-async-block",
        "bug",
        "async def job loses its lease although it only runs ~90 seconds",
        """
        ```python
        @app.job(timeout=300)
        async def sync_catalog(shop_id: int) -> None:
            for page in range(1, 40):
                data = requests.get(f"{API}/products?page={page}", timeout=10).json()
                await save_products(shop_id, data)
        ```

        Runs about 90 seconds in total. We get ORB-1101 on nearly every run and the job is started a second
        time on another worker. Sync jobs that take much longer never have this problem.
        """,
        comp=C,
        version="3.0.2",
        story=S,
        state="closed",
        when=("2025-06-25", "2025-08-20"),
        comments=[
            (
                "m",
                """
             For `async def` jobs the event loop also drives lease renewal. `requests.get` blocks the loop for
             the whole HTTP call, 40 times in a row, so no heartbeat gets out. Use an async client (httpx,
             aiohttp) or wrap the call: `await asyncio.to_thread(requests.get, url, timeout=10)`.""",
            ),
            (
                "r",
                "Switched to httpx.AsyncClient. Zero ORB-1101 since. Might be "
                "worth a warning in the docs for async jobs.",
            ),
            ("m", "The leases page now lists blocking calls in async jobs explicitly."),
        ],
    ),
    issue(
        "lease-stolen-q",
        "question",
        "After ORB-1102 LeaseStolen, are the first worker's side effects rolled back?",
        """
        We saw this in production:

        ```
        WARNING orbit.worker ORB-1102 LeaseStolen job_id=01K6Z3W9PQ2R7T0V4X8B1C5D3F held_by=ingest-worker-4/child-2 result=discarded
        ```

        "result=discarded" sounds like Orbit undoes the first run. Does it? The job writes to S3 and Postgres.
        """,  # noqa: E501 (quoted whole: a log line, or the issue's own line breaks)
        comp=C,
        version="3.0.3",
        story=S,
        state="open",
        when=("2025-08-28", "2025-10-10"),
        comments=[
            (
                "m",
                """
             No, Orbit can't undo anything your code did. "discarded" means only the return value and the
             acknowledgement of the first run are thrown away; the job counts as done by the second worker.
             Writes to S3 and Postgres happened twice (or at least started twice). Make the job idempotent:
             deterministic S3 keys, `INSERT ... ON CONFLICT`, and `orbit.current_job().id` as an idempotency
             key for external APIs.""",
            ),
            ("r", "Clear, thanks. Deterministic keys it is."),
        ],
    ),
    issue(
        "lease-ratio",
        "question",
        "orbit doctor warns about the lease/heartbeat ratio — what does it want?",
        """
        ```
        [warn] lease/heartbeat ratio   heartbeat_seconds=30 is more than lease_seconds/3 (lease_seconds=60); a single slow heartbeat can expire the lease
        ```

        We raised `heartbeat_seconds` to 30 to reduce Redis traffic (we have ~900 worker children). Is the
        warning serious, and what's the right way to cut heartbeat traffic?
        """,  # noqa: E501 (quoted whole: a log line, or the issue's own line breaks)
        comp=C,
        version="3.0.2",
        story=S,
        state="open",
        when=("2025-06-18", "2025-09-15"),
        comments=[
            (
                "m",
                """
             It wants `heartbeat_seconds <= lease_seconds / 3`, so a worker can miss two beats and still hold
             its lease. With 30/60 one slow beat is enough to lose it. Raise both: `lease_seconds = 120`,
             `heartbeat_seconds = 30` keeps your traffic and the 1:4 ratio. 900 children beating every 30s
             is ~30 writes/s, Redis won't notice.""",
            ),
        ],
    ),
    issue(
        "lease-extend-howto",
        "question",
        "How do I extend a lease from inside a sync job?",
        """
        The changelog for 3.0 mentions that jobs can extend their own lease, but I can't find the API. My
        job function only receives its kwargs. Is there a `job` argument I need to declare?
        """,
        comp=C,
        version="3.0.0",
        story=S,
        state="closed",
        when=("2025-03-20", "2025-05-30"),
        comments=[
            (
                "m",
                """
             No argument needed: `orbit.current_job()` returns the running job from anywhere inside it.

             ```python
             job = orbit.current_job()
             job.extend_lease(900)   # lease now expires 15 minutes from now
             ```

             It works in sync and async jobs. Regular heartbeats resume afterwards and never shorten it.""",
            ),
            ("r", "Found it, thanks. The leases page could show this, I only searched there."),
            ("m2", "Added an example to *Leases and heartbeats*."),
        ],
    ),
    issue(
        "lease-1103",
        "bug",
        "ORB-1103 HeartbeatFailed during Redis maintenance, then ORB-1101 and a duplicate run",
        """
        During a 40-second Redis maintenance window one job logged failed heartbeats and then its lease
        expired, and the job ran again after Redis came back:

        ```
        {{logs:heartbeat}}
        ```

        Is a 40s broker outage supposed to cause duplicate runs? lease_seconds is the default 60.
        """,
        comp=C,
        version="3.0.3",
        story=S,
        state="closed",
        when=("2025-09-01", "2025-10-12"),
        comments=[
            (
                "m",
                """
             With the default 60s lease, a job whose last successful heartbeat was just before the outage
             has 60s minus up to 15s left, so a 40–50s outage can expire it. That's the at-least-once
             contract working as designed. If your broker has maintenance windows of that length, a
             `lease_seconds` of 120–180 is reasonable (keep the heartbeat at a third or less).""",
            ),
            ("r", "OK, went to 180/45. Thanks for explaining."),
        ],
    ),
    issue(
        "lease-double-email",
        "bug",
        "Customers receive two welcome emails, worker log says visibility timeout exceeded",
        """
        Orbit 2.8.1. Our `send_welcome` task renders a PDF brochure (weasyprint, 40–60s) and emails it.
        About 5% of new customers get the email twice. Around the same time the worker logs
        `visibility timeout exceeded for task 7d3f0c2e..., requeueing`.

        We set `visibility_timeout = 30` last month so that jobs from crashed workers come back quickly.
        Could that be related?
        """,
        comp=C,
        version="2.8.1",
        story=S,
        state="closed",
        when=("2024-04-15", "2024-07-30"),
        comments=[
            (
                "m",
                """
             Yes. In 2.x the visibility timeout is never renewed: any task running longer than
             `visibility_timeout` becomes visible again and another worker starts it. With 30s, every
             brochure that takes longer than that is sent twice. Set it above your longest task (the 2.x
             default of 3600 exists for that reason) and make the email step idempotent. 3.0 replaces this
             with short leases renewed by heartbeats, which gives you both fast crash recovery and safe
             long jobs.""",
            ),
            ("r", "Back to 600, duplicates stopped. Looking forward to 3.0."),
        ],
    ),
    issue(
        "lease-cython",
        "bug",
        "Lease lost while a Cython routine runs for ~3 minutes",
        """
        Our similarity job calls a Cython function that takes 2–4 minutes on big inputs. The worker that
        ran it logs this when it finishes:

        ```
        {{tb:lease_expired}}
        ```

        and another worker has already started the same job by then. Is this expected?
        """,
        comp=C,
        version="3.0.2",
        story=S,
        state="closed",
        when=("2025-06-18", "2025-09-30"),
        comments=[
            (
                "m",
                """
             Expected, unfortunately: the Cython function holds the GIL for its whole run, so the heartbeat
             thread can't renew the lease. If you control the Cython code, wrap the hot loop in
             `with nogil:` (it then runs in parallel with the heartbeat). Otherwise call
             `orbit.current_job().extend_lease(600)` right before it.""",
            ),
            ("r", "`with nogil` worked after moving two Python calls out of the loop. Lease problems gone."),
        ],
    ),
    issue(
        "lease-auto-extend",
        "feature",
        "Automatically extend leases for jobs whose timeout exceeds lease_seconds",
        """
        Proposal: if a job declares `timeout=1800`, Orbit could set its lease to 1800 from the start instead
        of relying on heartbeats. Then CPU-heavy jobs couldn't lose their lease.
        """,
        comp=C,
        version="3.0.3",
        story=S,
        state="closed",
        when=("2025-09-01", "2025-10-20"),
        labels=("wontfix",),
        comments=[
            (
                "m",
                """
             We considered it. The cost is recovery time: if the worker dies, the job would stay invisible
             for the whole timeout instead of one lease period. For a 30-minute timeout that's a 30-minute
             stall after every crash. `extend_lease()` lets the job opt in exactly where it knows it needs
             it, which is why we went that way.""",
            ),
            ("r", "Fair. We'll use extend_lease in the two jobs that need it."),
        ],
    ),
    issue(
        "lease-vague",
        "bug",
        "jobs run twice sometimes",
        """
        Some of our jobs run twice, not all, not always. No errors. orbit 3.0.3. How do I debug this?
        """,
        comp=C,
        version="3.0.3",
        story=S,
        state="closed",
        when=("2025-08-30", "2025-10-30"),
        labels=("needs-repro",),
        comments=[
            (
                "m",
                """
             Grep your worker logs for ORB-1101 and ORB-1102 with the job id of a doubled run. Two different
             job ids means the job was enqueued twice (check the caller, or a cron in the DST window); one
             job id with ORB-1101 means a lease expiry.""",
            ),
            ("m", "Closing since there's no follow-up; reopen with log lines if it keeps happening."),
        ],
    ),
    issue(
        "lease-clock",
        "bug",
        "ORB-1101 on an almost idle worker, last_heartbeat_age always ~61s",
        """
        One of our four worker VMs logs ORB-1101 for jobs that take two seconds. The other three never do.
        `last_heartbeat_age` is always 61–62s. Same image, same config. 3.1.0.
        """,
        comp=C,
        version="3.1.0",
        story=S,
        state="closed",
        when=("2025-10-16", "2025-11-12"),
        comments=[
            ("m", "What does `orbit doctor` say about clock skew on that VM?"),
            (
                "r",
                """
             ```
             [FAIL] clock skew              +41.27s vs broker; check NTP on this host
             ```

             Oops.""",
            ),
            (
                "m",
                """
             That's it: lease expiries are timestamps, and a worker 41s ahead writes leases that look nearly
             expired to everyone else. Fix NTP; doctor fails the check above `lease_seconds / 4` for exactly
             this reason.""",
            ),
        ],
    ),
    issue(
        "lease-stuck",
        "bug",
        "Jobs stay LEASED for hours after a node crash",
        """
        A node died last night and `orbit status` still shows 24 jobs as LEASED this morning, by a worker
        that doesn't exist any more. They were only picked up again ~20 hours later.

        Context: we set `lease_seconds = 86400` a while ago to get rid of ORB-1101 on long jobs.
        """,
        comp=C,
        version="3.0.3",
        story=S,
        state="closed",
        when=("2025-08-30", "2025-10-30"),
        comments=[
            (
                "m",
                """
             That's the trade-off of a huge lease: when a worker really dies, its jobs wait out the full
             lease before anyone retries them. Set `lease_seconds` back to something like 120–300 and use
             `orbit.current_job().extend_lease()` in the few long jobs that need it.""",
            ),
            ("r", "Understood. We had cargo-culted 86400 from a blog post about 2.x."),
        ],
    ),
    issue(
        "lease-transcode",
        "question",
        "What lease_seconds for 20-minute ffmpeg transcodes?",
        """
        Our jobs shell out to ffmpeg (`subprocess.run(["ffmpeg", ...], check=True)` in a plain sync job)
        and take 5–25 minutes, four per pod. I read that the default lease is 60 seconds and got nervous.
        Do I need `lease_seconds` above 25 minutes?
        """,
        comp=C,
        story=S,
        state="open",
        when=("2025-04-01", "2025-11-10"),
        comments=[
            (
                "m",
                """
             No. The lease isn't a timeout: heartbeats renew it every `heartbeat_seconds` for as long as the
             job runs. While the job waits on the ffmpeg subprocess the GIL is free, so the default 60s is
             fine. Use `@app.job(timeout=...)` to cap the run time.""",
            ),
        ],
    ),
]

DUPLICATES = [
    issue(
        "leased-cpu",
        "bug",
        "Pure-Python report aggregation re-queued mid-run (ORB-1101) and executed again",
        """
        A slow aggregation job (~5 min, CPU only) gets LeaseExpired while still working, and another worker
        starts the same job. Default lease_seconds/heartbeat_seconds, orbit 3.0.1.
        """,
        comp=C,
        version="3.0.1",
        story=S,
        dup="lease-cpu",
        dup_note=(
            "The heartbeat thread is starved by CPU-bound code; `extend_lease()` or a larger `lease_seconds` fixes it."
        ),
    ),
    issue(
        "leased-async",
        "bug",
        "Heartbeat starves when an async job calls blocking requests.get",
        """
        My `async def` job uses `requests` inside and I get ORB-1101 all the time, even for short runs.
        """,
        comp=C,
        version="3.0.2",
        story=S,
        dup="lease-async-block",
        dup_note="Blocking calls in async jobs stop lease renewal; use an async HTTP client or `asyncio.to_thread`.",
    ),
    issue(
        "leased-email",
        "bug",
        "Signup welcome mail delivered two times to the same customer (2.8)",
        """
        Some customers get our welcome email twice. Orbit 2.8.1, the task renders a PDF first and we
        lowered `visibility_timeout` recently. Logs mention the visibility timeout around the same time.
        """,
        comp=C,
        version="2.8.1",
        story=S,
        dup="lease-double-email",
        dup_note="In 2.x the visibility timeout is not renewed; set it above the task's run time.",
    ),
    issue(
        "leased-stuck",
        "bug",
        "After a node died its jobs were LEASED for a whole day",
        """
        We use `lease_seconds = 86400`. After a VM crash, its jobs were only retried the next day. Is there a
        way to release them faster?
        """,
        comp=C,
        version="3.0.3",
        story=S,
        dup="lease-stuck",
        dup_note=(
            "A lease that long delays recovery by design; go back to a short lease and `extend_lease()` the long jobs."
        ),
    ),
]
