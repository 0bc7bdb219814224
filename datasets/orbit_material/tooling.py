"""The orbit CLI, monitoring and logging, and the dashboard outside of login."""

from __future__ import annotations

from .model import issue

CLI = "cli"
M = "monitoring"

SPECS = [
    issue(
        "cli-doctor-skew",
        "bug",
        "orbit doctor reports clock skew +0.00s even on a host that is minutes off",
        """
        I deliberately set a test VM's clock 3 minutes ahead and `orbit doctor` still says:

        ```
        [ok]   clock skew              +0.00s vs broker
        ```

        Meanwhile the dashboard on that VM fails logins with iat_in_future. 3.0.2, Redis 7.2.
        """,
        comp=CLI,
        version="3.0.2",
        state="closed",
        when=("2025-06-20", "2025-08-10"),
        labels=("confirmed",),
        comments=[
            (
                "m",
                "Confirmed: the check compared the local clock with itself after a "
                "refactor (it should use Redis `TIME`). Fixed for 3.0.3.",
            ),
            ("m", "Released in 3.0.3.", "2025-08-25"),
        ],
    ),
    issue(
        "cli-purge-confirm",
        "feature",
        "orbit purge should ask before deleting a queue",
        """
        A colleague ran `orbit purge default` instead of `orbit purge default.dead` and we lost ~8k jobs.
        2.9.1. Please add a confirmation prompt (and `--yes` for scripts).
        """,
        comp=CLI,
        version="2.9.1",
        state="closed",
        when=("2024-08-25", "2024-11-30"),
        comments=[
            ("m", "Ouch, sorry. Agreed; doing it as part of the 3.0 CLI rework."),
            ("m", "`orbit purge` asks for confirmation in 3.0 unless `--yes` is given.", "2025-03-17"),
        ],
    ),
    issue(
        "cli-enqueue-kwargs",
        "question",
        "How do I pass arguments with orbit enqueue?",
        """
        ```
        $ orbit enqueue --app billing.app:app billing.jobs.send_invoice 42
        usage: orbit enqueue [-h] [--app MODULE:ATTR] [--queue QUEUE] [--kwargs JSON] job
        orbit enqueue: error: unrecognized arguments: 42
        ```

        What's the syntax for passing the invoice id?
        """,
        comp=CLI,
        version="3.0.1",
        state="closed",
        when=("2025-05-01", "2025-08-30"),
        comments=[
            (
                "m",
                "Jobs take keyword arguments only, passed as JSON: `orbit enqueue --app "
                "billing.app:app billing.jobs.send_invoice --kwargs '{\"invoice_id\": 42}'`.",
            ),
        ],
    ),
    issue(
        "cli-doctor-ci",
        "question",
        "Using orbit doctor as a pre-deploy gate",
        """
        We'd like CI to fail if doctor finds problems, including warnings like the lease/heartbeat ratio.
        Which exit codes does it use?
        """,
        comp=CLI,
        version="3.1.0",
        state="open",
        when=("2025-10-16", "2025-11-20"),
        comments=[
            (
                "m",
                "`orbit doctor` exits 1 if any check fails; `--strict` also treats warnings as "
                "failures. Config errors exit 3 like every other command.",
            ),
        ],
    ),
    issue(
        "cli-doctor-exit",
        "bug",
        "orbit doctor exits 0 when the broker check times out",
        """
        With the broker unreachable (firewall drops packets), doctor prints `[FAIL] broker ... timed out` but
        the exit code is 0, so our deploy gate passed.
        """,
        comp=CLI,
        version="3.0.3",
        state="closed",
        when=("2025-08-28", "2025-10-05"),
        labels=("confirmed",),
        comments=[
            (
                "m",
                "Confirmed: a timeout was reported as FAIL but not counted. Fixed in 3.1.0.",
            ),
            ("m", "3.1.0 is out with the fix.", "2025-10-14"),
        ],
    ),
    issue(
        "cli-retry-leased",
        "question",
        "orbit retry refuses: job is currently leased",
        """
        A job has been 'running' for 20 minutes and I want to kick it. `orbit retry <id>` says the job is
        leased. How do I force it?
        """,
        comp=CLI,
        version="3.1.0",
        state="open",
        when=("2025-10-16", "2025-11-20"),
        comments=[
            (
                "m",
                """
             No force on purpose: a leased job is (as far as the broker knows) running, and retrying would
             run it twice. If the worker is gone, the lease expires within `lease_seconds` and the job comes
             back by itself. If it's alive but stuck, look at it with py-spy rather than retrying.""",
            ),
        ],
    ),
    issue(
        "cli-completion",
        "feature",
        "Shell completion for the orbit CLI",
        """
        Bash/zsh completion for subcommands and queue names would be handy, especially `orbit purge`
        where you really want to type the right queue.
        """,
        comp=CLI,
        when=("2025-04-01", "2025-11-20"),
        labels=("good first issue",),
        comments=[
            (
                "m",
                "Static completion for subcommands and flags is easy to add; dynamic "
                "queue names need a broker round trip, maybe later.",
            ),
        ],
    ),
    issue(
        "cli-status-slow",
        "bug",
        "orbit status takes 40 seconds with 2M jobs in a dead-letter queue",
        """
        We have a dead-letter queue with ~2M jobs (yes, we know). `orbit status` takes 40s and Redis latency
        spikes while it runs. 3.1.0.
        """,
        comp=CLI,
        version="3.1.0",
        when=("2025-10-20", "2025-11-25"),
        labels=("confirmed",),
        comments=[
            (
                "m",
                "Status counts the DEAD column by scanning job hashes instead of using LLEN on "
                "the list. Will fix; meanwhile purge what you don't need.",
            ),
        ],
    ),
    issue(
        "mon-json-jobid",
        "bug",
        "JSON logs: 'job failed' lines have no job_id field",
        """
        With `[log] format = "json"` the `job failed` events only have `msg`, no `job_id` or `attempt`, so we
        can't follow a job across retries in Loki. Coded events (ORB-xxxx) do have them.
        """,
        comp=M,
        version="3.0.0",
        state="closed",
        when=("2025-03-20", "2025-04-20"),
        comments=[
            (
                "m",
                "Right, the uncoded job events were missed. Fixed for 3.0.1: every "
                "job-related line carries job_id, job, attempt and queue.",
            ),
            ("m", "Released in 3.0.1.", "2025-04-28"),
        ],
    ),
    issue(
        "mon-otel",
        "feature",
        "OpenTelemetry: propagate trace context from enqueue to the job",
        """
        We'd like a trace that spans the web request, the enqueue and the job run. That needs the trace
        context stored in the job envelope at enqueue time and restored in the child. Would you accept an
        optional `orbit-jobs[otel]` extra?
        """,
        comp=M,
        version="3.0.3",
        when=("2025-09-01", "2025-11-20"),
        comments=[
            (
                "m",
                "Yes, as long as it's optional and the envelope field is ignored when the extra "
                "isn't installed. A design sketch in this issue first would help.",
            ),
            ("u", "Interested too; happy to review."),
        ],
    ),
    issue(
        "mon-sentry",
        "question",
        "Reporting job exceptions to Sentry",
        """
        We use sentry_sdk with the logging integration in our Django app. In workers, failures show up as
        generic `job failed` events without the job name, and a job that fails three times before
        succeeding creates three Sentry events. What's the recommended way to get job failures into
        Sentry with the job name and attempt as tags?
        """,
        comp=M,
        version="3.0.2",
        state="open",
        when=("2025-06-20", "2025-09-30"),
        comments=[
            (
                "m",
                """
             Initialise sentry_sdk in the module that defines your app (so children have it), and read
             `orbit.current_job()` in a `before_send` hook to add `job`, `job_id` and `attempt` as tags.
             Consider ignoring failures on attempts before the last one to avoid noise.""",
            ),
        ],
    ),
    issue(
        "mon-debug-payload",
        "bug",
        "DEBUG logging prints full job arguments, including customer emails",
        """
        With `[log] level = "DEBUG"` the worker logs the full kwargs of every job. Ours contain emails and
        addresses, which now sit in our log store. Arguments shouldn't be logged, even at DEBUG.
        """,
        comp=M,
        version="3.0.1",
        state="closed",
        when=("2025-05-01", "2025-06-05"),
        comments=[
            (
                "m",
                "Agreed, that's a privacy problem. From 3.0.2 DEBUG logs argument names and sizes only, never values.",
            ),
            ("m", "Released in 3.0.2.", "2025-06-16"),
        ],
    ),
    issue(
        "mon-metrics-sum",
        "question",
        "orbit_queue_ready_jobs in Grafana is ten times the real queue depth",
        """
        `sum(orbit_queue_ready_jobs{queue="default"})` shows ~12,000, but `LLEN` says ~1,200. We have 10
        worker pods.
        """,
        comp=M,
        version="3.1.0",
        state="closed",
        when=("2025-10-16", "2025-11-20"),
        comments=[
            ("m", "Every worker reports the same queue-wide value, so aggregate with `max`, not `sum`."),
            ("r", "Of course. Thanks."),
        ],
    ),
    issue(
        "mon-utc",
        "question",
        "Why are log timestamps in UTC when the scheduler timezone is Europe/Berlin?",
        """
        Our on-call reads logs in local time and got confused during the DST night. Can the log timezone
        follow `[scheduler] timezone`?
        """,
        comp=M,
        state="open",
        when=("2025-03-20", "2025-11-20"),
        comments=[
            (
                "m",
                "Logs are always UTC by design, so lines from workers in different zones "
                "sort correctly. Convert in your log viewer; the scheduler's ORB-1302 "
                "lines include the local time explicitly.",
            ),
        ],
    ),
    issue(
        "mon-django-logging",
        "question",
        "orbit.client errors don't show up in our Django logs",
        """
        ORB-1501 from enqueue() in our Django views never appears in our logs, only as an exception in Sentry.
        Does Orbit configure logging in the web process?
        """,
        comp=M,
        version="3.0.2",
        state="open",
        when=("2025-06-20", "2025-09-30"),
        comments=[
            (
                "m",
                "In your own processes Orbit configures nothing; `orbit.client` logs propagate to whatever Django's "
                "LOGGING sets up. Add an `orbit` logger (or let it propagate to root) at WARNING.",
            ),
        ],
    ),
    issue(
        "dash-audit",
        "question",
        "Who purged the queue? Is there an audit trail in the dashboard?",
        """
        Someone purged `exports` from the dashboard yesterday. Is there a record of who did it?
        """,
        comp="dashboard-oidc",
        version="3.0.3",
        state="closed",
        when=("2025-08-28", "2025-10-30"),
        comments=[
            (
                "m",
                "The dashboard logs every retry and purge with the OIDC user: `orbit.dashboard purge "
                "queue=exports jobs=... user=...`. Check the dashboard process's logs.",
            ),
            ("r", "Found it. Thanks."),
        ],
    ),
    issue(
        "dash-dark",
        "feature",
        "Dark mode for the dashboard",
        """
        The dashboard is on a wall screen in our NOC and it's very bright at night. A dark theme (or following
        `prefers-color-scheme`) would be appreciated.
        """,
        comp="dashboard-oidc",
        when=("2025-04-01", "2025-11-20"),
        labels=("good first issue",),
        comments=[
            ("m", "Following `prefers-color-scheme` is a small CSS change. PR welcome."),
        ],
    ),
]

DUPLICATES = [
    issue(
        "clid-skew",
        "bug",
        "Doctor's clock skew check always says +0.00s although NTP is broken",
        """
        `orbit doctor` claims no clock skew on a VM whose clock is clearly wrong (dashboard logins fail).
        """,
        comp=CLI,
        version="3.0.2",
        dup="cli-doctor-skew",
        dup_note="The check compared the local clock with itself; fixed for 3.0.3.",
    ),
]
