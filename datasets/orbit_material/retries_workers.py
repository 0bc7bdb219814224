"""Retries and backoff (ORB-1201/1202/1203) and worker process behaviour."""

from __future__ import annotations

from .model import issue

R = "retries-and-backoff"
W = "workers"

SPECS = [
    issue(
        "ret-1203",
        "question",
        "ORB-1203 BackoffClamped warnings flooding our logs",
        """
        Our webhook job has `retries=15` and when the receiver is down for an hour we get a wall of:

        ```
        {{logs:clamped}}
        ```

        Is something misconfigured?
        """,
        comp=R,
        version="3.0.2",
        state="open",
        when=("2025-06-20", "2025-09-30"),
        comments=[
            (
                "m",
                """
             Only informational: from attempt 10 on, exponential backoff with base 2 computes more than the
             600s cap, so every retry gets clamped and logged. Either the cap or the attempt count is higher
             than useful. With 15 attempts and a 600s cap you're retrying for ~1.5 hours; if that's intended,
             raise `max_backoff_seconds` or accept the warnings.""",
            ),
        ],
    ),
    issue(
        "ret-permanent",
        "question",
        "How do I stop retrying when the API returns 404?",
        """
        Our sync job calls a partner API. A 404 means the record was deleted and retrying is pointless, but
        Orbit retries it 5 times with backoff. What's the idiomatic way to fail immediately?
        """,
        comp=R,
        version="3.0.1",
        state="open",
        when=("2025-05-01", "2025-08-30"),
        comments=[
            (
                "m",
                """
             Raise `orbit.PermanentError("record gone")` for that case; the job goes straight to the
             dead-letter queue, logged as ORB-1202. If the library raises its own exception type, list it
             in `@app.job(permanent_errors=(NotFound,))` instead.""",
            ),
        ],
    ),
    issue(
        "ret-dlq",
        "question",
        "Jobs landed in default.dead after ORB-1201 — how do I re-run them?",
        """
        A partner API was down for a few hours and ~300 jobs ended like this:

        ```
        {{logs:retries}}
        ```

        The API is back. How do I re-run them?
        """,
        comp=R,
        version="3.0.3",
        state="closed",
        when=("2025-08-28", "2025-09-03"),
        comments=[
            (
                "m",
                """
             `orbit retry <job-id>` moves one job back to its queue with the attempt counter reset. For 300,
             loop over the ids from `orbit status --json` or the dashboard's dead-letter view (which also has
             a retry button per job). There's no bulk option yet; a feature request is welcome.""",
            ),
            ("r", "Scripted it with the JSON output. Bulk retry would be nice."),
        ],
    ),
    issue(
        "ret-bulk",
        "feature",
        "orbit retry: re-run every job in a dead-letter queue",
        """
        Follow-up to #[ret-dlq]: after an outage we regularly need to retry hundreds of dead-lettered jobs. Something like
        `orbit retry --queue default.dead --job billing.jobs.sync_ledger --since 2h` would save a lot of
        scripting.
        """,  # noqa: E501 (quoted whole: a log line, or the issue's own line breaks)
        state="open",
        comp="cli",
        version="3.0.3",
        when=("2025-09-05", "2025-11-10"),
        comments=[
            ("m", "Agreed. Filters by job name and age make sense; we'd also want `--dry-run` that prints the count."),
            ("u", "+1, we wrote the same bash loop three times."),
        ],
    ),
    issue(
        "ret-linear",
        "bug",
        'backoff = "linear" grows quadratically',
        """
        With `backoff = "linear"` and `base_delay_seconds = 10`, I'd expect delays 10, 20, 30, 40. The logs
        show `retry_in` of 10, 40, 90, 160. That's b × n².
        """,
        comp=R,
        version="3.0.0",
        state="closed",
        when=("2025-03-20", "2025-04-20"),
        labels=("confirmed",),
        comments=[
            (
                "m",
                "Confirmed, the linear strategy multiplied by the attempt twice. "
                "Fixed for 3.0.1; thanks for the clear numbers.",
            ),
            ("m", "Released in 3.0.1.", "2025-04-28"),
        ],
    ),
    issue(
        "ret-jitter-custom",
        "question",
        "Custom backoff function is jittered — can I turn that off for one job?",
        """
        We return exactly 900 from a custom backoff because the provider asks for 15 minutes. Orbit waits
        somewhere between 450 and 600 instead. Can jitter be disabled per job?
        """,
        comp=R,
        version="3.0.2",
        state="open",
        when=("2025-06-20", "2025-09-30"),
        comments=[
            (
                "m",
                """
             Two things happen: 900 is clamped to `max_backoff_seconds` (600), then jitter picks between d/2
             and d. Jitter and the cap are app-wide; raise `max_backoff_seconds` above 900 and set
             `jitter = false` if exact timing matters more than spreading retries out.""",
            ),
            ("r", "Raising the cap was the missing piece. We'll keep jitter."),
        ],
    ),
    issue(
        "ret-permanent-base",
        "bug",
        "All exceptions treated as permanent after adding permanent_errors",
        """
        We added `permanent_errors=(requests.RequestException,)` to stop retrying on 4xx responses. Now even
        timeouts go straight to the dead-letter queue with ORB-1202.
        """,
        comp=R,
        version="3.0.3",
        state="closed",
        when=("2025-08-28", "2025-10-30"),
        comments=[
            (
                "m",
                """
             Subclasses match, and `RequestException` is the base of `Timeout`, `ConnectionError` and
             `HTTPError`. List a narrower type, or catch `HTTPError` in the job and raise
             `orbit.PermanentError` only for 4xx status codes.""",
            ),
            ("r", "Went with the explicit status check. Works."),
        ],
    ),
    issue(
        "ret-timeout",
        "question",
        "Does hitting timeout= consume a retry attempt?",
        """
        If a job exceeds `timeout=120`, is it retried, and does that count toward `retries`?
        """,
        comp=R,
        version="3.1.0",
        state="open",
        when=("2025-10-16", "2025-11-20"),
        comments=[
            (
                "m",
                "Yes and yes: sync jobs get `orbit.JobTimeout` raised inside them, async "
                "jobs are cancelled, and the attempt counts as failed.",
            ),
        ],
    ),
    issue(
        "ret-poison-2x",
        "bug",
        "A task that segfaults the worker loops forever on 2.9",
        """
        One malformed XML file crashes lxml with SIGSEGV. On 2.9.0 the task goes back to the queue after each
        crash without using a retry, so it has crashed workers ~4,000 times since yesterday.
        """,
        comp=R,
        version="2.9.0",
        state="closed",
        when=("2024-06-30", "2024-09-30"),
        comments=[
            (
                "m",
                """
             Known 2.x limitation: a crash isn't recorded as an attempt. Purge that task id manually for now.
             In 3.0 a lease expiry consumes an attempt, so a poison job ends up dead-lettered.""",
            ),
            ("m", "3.0 is out with the new attempt accounting. Closing.", "2025-03-17"),
        ],
    ),
    issue(
        "ret-vague",
        "bug",
        "retries not working",
        """
        my job raises an exception but it's never retried?? @app.job(retries=3). 3.1.0
        """,
        comp=R,
        version="3.1.0",
        state="closed",
        when=("2025-10-16", "2025-11-20"),
        labels=("needs-repro",),
        comments=[
            (
                "m",
                "How do you call it? `my_job(...)` runs the function directly in your process; "
                "only `my_job.enqueue(...)` goes through a worker with retries.",
            ),
            ("r", "...I was calling it directly in the test. sorry"),
        ],
    ),
    issue(
        "wk-async",
        "question",
        "async def jobs: each child still runs one at a time?",
        """
        We made our HTTP-heavy jobs `async def` expecting one child to run many concurrently. Throughput
        didn't change. Is that expected?
        """,
        comp=W,
        version="3.0.2",
        state="open",
        when=("2025-06-20", "2025-09-30"),
        comments=[
            (
                "m",
                """
             Yes: a child runs one job at a time whether it's sync or async. `async def` helps when the job
             itself does concurrent I/O (gathering several requests). For more parallel jobs, raise
             `concurrency`; for I/O-bound work 2–4× the cores is a good start.""",
            ),
        ],
    ),
    issue(
        "wk-windows",
        "bug",
        "orbit worker fails on Windows: cannot find context for 'fork'",
        """
        ```
        {{tb:windows_fork}}
        ```

        Windows 11, Python 3.12. The docs don't say Windows is unsupported.
        """,
        comp=W,
        version="3.0.1",
        state="closed",
        when=("2025-05-01", "2025-07-30"),
        labels=("wontfix",),
        comments=[
            (
                "m",
                """
             Workers fork their children from the parent, which Windows can't do. Producers
             (`enqueue()`), the CLI and the dashboard work on Windows; for workers use WSL2 or a container.
             We'll make the docs explicit.""",
            ),
        ],
    ),
    issue(
        "wk-priority",
        "question",
        "Jobs on default never run while the emails queue is busy",
        """
        `orbit worker --queues emails,default`. During newsletter sends `default` waits for hours. Is there
        weighted round robin?
        """,
        comp=W,
        version="3.0.3",
        state="open",
        when=("2025-08-28", "2025-10-30"),
        comments=[
            (
                "m",
                """
             Queues are strict priority: a child always takes from the first non-empty queue. Run a second
             worker with `--queues default` (or `default,emails`) so both always get capacity.""",
            ),
        ],
    ),
    issue(
        "wk-timeout-c",
        "bug",
        "timeout=60 doesn't stop a job stuck in a C call",
        """
        Our optimisation job calls a vendor solver through ctypes (`lib.solve(model_ptr)`). When the solver
        hangs, the job runs far past `timeout=60`; after ~70s the child is killed and replaced, and the
        `finally:` block that releases our solver licence never runs. Is that the intended behaviour?
        """,
        comp=W,
        version="3.1.0",
        state="open",
        when=("2025-10-16", "2025-11-20"),
        comments=[
            (
                "m",
                """
             Yes. `JobTimeout` is raised in the child's main thread, which can't happen while it's inside a
             C call. If the job hasn't returned 10s after the timeout, the parent kills the child and starts a
             new one; the attempt counts as failed.""",
            ),
        ],
    ),
    issue(
        "wk-sigint",
        "question",
        "Pressing Ctrl-C twice: are running jobs lost?",
        """
        Locally I often hit Ctrl-C twice because the first one seems to do nothing. What happens to jobs
        that were running?
        """,
        comp=W,
        state="open",
        when=("2025-03-20", "2025-11-20"),
        comments=[
            (
                "m",
                """
             The first SIGINT starts a graceful shutdown (running jobs get `shutdown_grace_seconds`). The
             second exits immediately; the jobs stay leased and come back after `lease_seconds` as ORB-1101,
             counting as an attempt. Nothing is lost, just delayed.""",
            ),
        ],
    ),
    issue(
        "wk-prefetch",
        "bug",
        "prefetch = 20 makes one worker hog jobs while others sit idle",
        """
        With slow jobs (~30s) and `prefetch = 20`, the first worker reserves a big batch and the other
        workers are idle. Total time got worse.
        """,
        comp=W,
        version="3.0.2",
        state="open",
        when=("2025-06-20", "2025-09-30"),
        comments=[
            (
                "m",
                """
             Expected: prefetched jobs are leased to that child and wait behind its current job even if
             another worker is free. Prefetch only pays off for millisecond jobs; keep it at 1 for anything
             longer.""",
            ),
        ],
    ),
    issue(
        "wk-segfault",
        "question",
        "Child killed by SIGSEGV: job dead-lettered after three crashes",
        """
        A corrupt image makes Pillow segfault. The child dies, the job comes back after 60s, crashes another
        child, and after three times it's in `default.dead` with ORB-1201. Is that the intended handling?
        """,
        comp=W,
        version="3.1.0",
        state="open",
        when=("2025-10-16", "2025-11-20"),
        comments=[
            (
                "m",
                """
             Yes: the crash means no acknowledgement, the lease expires, and in 3.x that consumes an attempt,
             so a poison job ends up in the dead-letter queue instead of crashing workers forever (the 2.x
             behaviour). Validating the image before decoding would avoid the crashes.""",
            ),
        ],
    ),
    issue(
        "wk-stuck",
        "bug",
        "workers stuck sometimes??",
        """
        workers stuck sometimes?? orbit status shows BUSY 8/8 but nothing finishes, no errors in log. restart fixes.
        3.0.3, redis
        """,
        comp=W,
        version="3.0.3",
        state="open",
        when=("2025-09-10", "2025-11-20"),
        labels=("needs-repro",),
        comments=[
            (
                "m",
                """
             Next time it happens, before restarting, run `py-spy dump --pid <child pid>` on a couple of
             children. That shows where each job is stuck (usually a network call without a timeout).""",
            ),
        ],
    ),
    issue(
        "wk-status-json",
        "feature",
        "Machine-readable output for orbit status",
        """
        We parse `orbit status` in a cron script for dashboards. Columns shifted in 2.7 and broke it. Could
        there be a `--json` flag?
        """,
        comp="cli",
        version="2.7.0",
        state="closed",
        when=("2023-09-25", "2023-12-20"),
        comments=[
            ("m", "Makes sense. It'll come with the CLI rework in 3.0."),
            ("m", "`orbit status --json` is in 3.0.0.", "2025-03-17"),
        ],
    ),
]

DUPLICATES = [
    issue(
        "retd-dlq",
        "question",
        "Requeue dead-lettered jobs after RetriesExhausted (ORB-1201)?",
        """
        After our SMTP outage a few hundred jobs are in the dead queue. What's the command to run them again?
        """,
        comp=R,
        version="3.1.0",
        dup="ret-dlq",
        dup_note="`orbit retry <job-id>`; bulk retry is tracked separately.",
    ),
    issue(
        "wkd-windows",
        "bug",
        "Worker won't start on my Windows laptop (multiprocessing fork error)",
        """
        `orbit worker` crashes immediately on my Windows laptop with a multiprocessing fork error.
        """,
        comp=W,
        version="3.1.0",
        dup="wk-windows",
        dup_note="Workers need fork; use WSL2 or a container on Windows.",
    ),
]
