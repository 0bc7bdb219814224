"""First steps, general questions and documentation issues, from the 2.x years to today."""

from __future__ import annotations

from .model import issue

G = "getting-started"

SPECS = [
    issue(
        "gs-import",
        "bug",
        "ModuleNotFoundError: No module named 'orbit' after pip install",
        """
        ```
        $ pip install orbit
        ...
        Successfully installed orbit-0.2.1
        $ python -c "import orbit; orbit.App"
        AttributeError: module 'orbit' has no attribute 'App'
        ```

        The README says `import orbit`. What am I missing?
        """,
        comp=G,
        version="2.6.0",
        state="closed",
        when=("2023-05-20", "2023-08-30"),
        comments=[
            (
                "m",
                "The package on PyPI is `orbit-jobs`; `orbit` is an unrelated project that happens to use "
                "the same import name. `pip uninstall orbit && pip install orbit-jobs`.",
            ),
            ("r", "Ugh, thanks. Maybe put that in bold in the README."),
            ("m", "Done."),
        ],
    ),
    issue(
        "gs-mac-fork",
        "bug",
        "Worker children crash on macOS with objc fork error",
        """
        Running the tutorial on macOS 13, the worker starts and every child dies immediately:

        ```
        objc[48211]: +[__NSCFConstantString initialize] may have been in progress in another thread when fork() was called.
        objc[48211]: +[__NSCFConstantString initialize] may have been in progress in another thread when fork() was called. We cannot safely call it or ignore it in the fork() child process. Crashing instead.
        ```

        orbit-jobs 2.7.0, Python 3.11 from Homebrew.
        """,  # noqa: E501 (quoted whole: a log line, or the issue's own line breaks)
        comp=G,
        version="2.7.0",
        state="open",
        when=("2023-09-20", "2023-12-15"),
        comments=[
            (
                "m",
                """
             macOS refuses to run some Objective-C initialisers in forked children; it's triggered by
             libraries the parent imported (often via `requests` → system proxy lookup). For local
             development, `export OBJC_DISABLE_INITIALIZE_FORK_SAFETY=YES` before starting the worker.
             Production on Linux isn't affected.""",
            ),
            ("r", "That works. Thanks!"),
            ("u", "Could the getting started page mention this? Every Mac user on our team hit it."),
        ],
    ),
    issue(
        "gs-not-running",
        "question",
        "Job enqueued, worker running, nothing happens",
        """
        Followed the getting started page. `orbit enqueue` prints a job id, `orbit worker` is running, but the
        job never executes. `orbit status` shows it READY in the `emails` queue.
        """,
        comp=G,
        version="3.1.0",
        state="open",
        when=("2025-10-16", "2025-11-20"),
        comments=[
            (
                "m",
                'Your job is declared with `queue="emails"` and the worker consumes `default` '
                "unless told otherwise. Start it with `--queues emails,default`.",
            ),
            ("r", "Yep, that was it."),
        ],
    ),
    issue(
        "gs-zsh-extras",
        "question",
        "zsh: no matches found: orbit-jobs[msgpack]",
        """
        ```
        $ pip install orbit-jobs[msgpack]
        zsh: no matches found: orbit-jobs[msgpack]
        ```

        Works in bash on the CI box. Is the extra misnamed?
        """,
        comp=G,
        version="2.8.0",
        state="closed",
        when=("2024-02-20", "2024-06-30"),
        labels=("good first issue",),
        comments=[
            (
                "m",
                "zsh treats the brackets as a glob. Quote it: `pip install "
                '"orbit-jobs[msgpack]"`. We\'ll quote all install commands in the docs.',
            ),
        ],
    ),
    issue(
        "gs-py314",
        "question",
        "Python 3.14 support?",
        """
        3.14 is out and we'd like to move our worker images to `python:3.14-slim` this quarter. Is
        orbit-jobs 3.1 tested on it? The classifiers stop at 3.13, and `pip install "orbit-jobs[msgpack]"`
        tries to build msgpack from source on 3.14.
        """,
        comp=G,
        version="3.1.0",
        state="open",
        when=("2025-10-20", "2025-11-25"),
        comments=[
            (
                "m",
                "Not yet officially. CI runs on 3.14 now and passes except the msgpack extra, which is "
                "waiting on wheels. We'll add the classifier once that's sorted.",
            ),
            ("u", "Runs fine for us on 3.14 with json."),
        ],
    ),
    issue(
        "gs-flask",
        "question",
        "Using Orbit jobs with a Flask app factory (app context)",
        """
        Our jobs need `current_app` and the SQLAlchemy session from Flask-SQLAlchemy. With the app factory
        pattern, where do I create the Flask app in the worker so jobs run inside an app context?
        """,
        comp=G,
        state="open",
        when=("2024-01-15", "2025-06-30"),
        comments=[
            (
                "u",
                """
             We create the Flask app at module level in the module that defines the Orbit app, and each job
             starts with `with flask_app.app_context():`. A decorator wrapping that keeps it tidy.""",
            ),
        ],
    ),
    issue(
        "gs-async-enqueue",
        "feature",
        "An async enqueue() for asyncio producers",
        """
        In FastAPI handlers, `enqueue()` is a blocking Redis call. Could there be an `await job.aenqueue(...)`
        that uses redis.asyncio? Right now we wrap it in `run_in_threadpool`.
        """,
        comp=G,
        version="3.1.0",
        when=("2025-10-16", "2025-11-25"),
        comments=[
            (
                "m",
                "Reasonable. Enqueue is a single round trip, so the thread pool wrapper costs "
                "little, but a native async path is on our list for 3.2.",
            ),
        ],
    ),
    issue(
        "gs-docs-jobname",
        "docs",
        "Getting started: registered job name in the text doesn't match the example",
        """
        The page says the job is registered as `billing.jobs.send_invoice`, but the example defines it in
        `billing/app.py`, so the name is `billing.app.send_invoice`. Confused me when `orbit enqueue` said
        unknown job.
        """,
        comp=G,
        version="3.0.1",
        state="closed",
        when=("2025-05-01", "2025-07-30"),
        labels=("good first issue",),
        comments=[
            ("m", "Thanks, fixed the text to `billing.app.send_invoice`."),
        ],
    ),
    issue(
        "ec-1103-docs",
        "docs",
        "Error codes page: ORB-1103 has no guidance on what to do",
        """
        The entry for ORB-1103 HeartbeatFailed explains what it is but not whether to act. We see a handful
        per day; should we alert?
        """,
        comp="error-codes",
        version="3.0.2",
        state="closed",
        when=("2025-06-20", "2025-08-30"),
        comments=[
            (
                "m",
                "Good point. Added a Fix paragraph: isolated ones during failovers need "
                "nothing; a sustained rate points at broker latency.",
            ),
        ],
    ),
    issue(
        "ec-explain",
        "feature",
        "orbit explain ORB-xxxx: print an error code's description in the terminal",
        """
        On-call often sees a code in a log at 3am. `orbit explain ORB-1403` printing the entry from the error
        codes page (meaning + fix) would save a browser trip.
        """,
        comp="error-codes",
        version="3.0.3",
        when=("2025-09-01", "2025-11-20"),
        comments=[
            ("m", "Cute idea and cheap since the texts exist. Labelled for contributors."),
        ],
        labels=("good first issue",),
    ),
    issue(
        "ec-stable",
        "question",
        "Are ORB error codes stable across releases?",
        """
        We want to build alerts on specific ORB codes. Will they change meaning between minor releases?
        """,
        comp="error-codes",
        version="3.0.0",
        state="closed",
        when=("2025-03-20", "2025-06-30"),
        comments=[
            (
                "m",
                "Yes, stable: a code never changes meaning and is never reused. New situations get "
                "new codes. In JSON logs the code is in its own `code` field.",
            ),
        ],
    ),
    issue(
        "docs-changelog-310",
        "docs",
        "3.1.0 changelog doesn't mention the reconnect loop rework",
        """
        After the reconnect storm reports I went back to the 3.1.0 changelog and it doesn't mention that the
        Redis reconnect loop was reworked at all. A "changed" entry would have told us what to watch.
        """,
        state="open",
        comp="redis-broker",
        version="3.1.0",
        story="reconnect-storm",
        when=("2025-10-22", "2025-11-20"),
        comments=[
            (
                "m",
                """
             Fair criticism; it was considered an internal refactor. We'll add it retroactively with a link to
             the known-issue section, and 3.1.1's notes will describe the fix.""",
            ),
        ],
    ),
    issue(
        "docs-architecture",
        "docs",
        "Explain what Orbit stores in Redis and who runs the scheduler",
        """
        We're evaluating Orbit 2.6 and ops asked: which keys does it create, how big do they get, and which
        process runs the cron scheduler? The docs only cover the Python API.
        """,
        comp="redis-broker",
        version="2.6.0",
        state="closed",
        when=("2023-05-20", "2023-09-30"),
        comments=[
            ("m", "Good questions, and the answers should be in the docs. Writing a broker internals section."),
            (
                "m",
                "The 3.0 docs have this on the Redis broker page (key layout) and the cron page (scheduler election).",
                "2025-03-17",
            ),
        ],
    ),
    issue(
        "docs-offline",
        "docs",
        "Offline / PDF version of the documentation",
        """
        Our production network has no internet access. Could the docs be published as a downloadable PDF
        or HTML archive with each release?
        """,
        version="2.7.0",
        state="closed",
        when=("2023-09-20", "2024-01-30"),
        labels=("wontfix",),
        comments=[
            (
                "m",
                "The docs are plain Markdown in the repository (`docs/`), so a checkout of the "
                "release tag is the offline version. We won't maintain a PDF build.",
            ),
        ],
    ),
    issue(
        "docs-retries-wording",
        "docs",
        "Retries page: `retries=` meaning 'attempts' is confusing",
        """
        `@app.job(retries=8)` allowing eight attempts in total reads like eight retries (nine attempts). The
        page explains it, but maybe put the sentence right next to the first example, that's where people
        copy from.
        """,
        comp="retries-and-backoff",
        version="3.1.0",
        when=("2025-10-16", "2025-11-25"),
        comments=[
            ("u", "Agree, this tripped us up during the 2.x migration."),
        ],
    ),
    issue(
        "q-testing",
        "question",
        "How do you test code that enqueues jobs?",
        """
        In unit tests I don't want a Redis. What's the recommended approach for testing code that calls
        `.delay()`? Mocking every task feels clumsy.
        """,
        version="2.5.1",
        state="closed",
        when=("2023-03-10", "2023-07-30"),
        comments=[
            (
                "m",
                """
             Unit tests: patch the task's `.delay` (or, in your own code, inject the enqueue function) and
             assert on the arguments; the task function itself is a plain function you can call directly.
             Integration tests: run a worker against a throwaway Redis (a container per test session).""",
            ),
            ("u", "We use a fixture that patches `delay` to call the function inline, works well."),
        ],
    ),
    issue(
        "q-shared-redis",
        "question",
        "Can two Orbit apps share one Redis database?",
        """
        We have `billing` and `notifications` apps. Do they need separate Redis databases?
        """,
        comp="redis-broker",
        version="2.6.1",
        state="closed",
        when=("2023-07-10", "2023-11-30"),
        comments=[
            (
                "m",
                "They can share one: every key is prefixed with the app name. Keep `noeviction` "
                "and watch memory, since one app's backlog affects the other.",
            ),
        ],
    ),
    issue(
        "q-idempotency",
        "question",
        "Stable idempotency key for payment API calls inside a job",
        """
        We want to pass an idempotency key to Stripe so retries and lease-expiry re-runs don't double charge.
        Is there something stable across attempts?
        """,
        comp="leases-and-heartbeats",
        version="3.0.2",
        state="closed",
        when=("2025-06-20", "2025-10-30"),
        comments=[
            (
                "m",
                "`orbit.current_job().id` is the same for every attempt of a job, including re-runs "
                "after ORB-1101. Use it (perhaps prefixed with the operation name).",
            ),
        ],
    ),
    issue(
        "q-celery",
        "question",
        "Coming from Celery: equivalents of groups and chords?",
        """
        We're evaluating a move from Celery. We use groups and a few chords (fan-out then a callback). What's
        the Orbit way?
        """,
        state="open",
        version="2.7.1",
        when=("2023-11-25", "2024-04-30"),
        comments=[
            (
                "m",
                """
             There are no workflow primitives. Fan-out is a loop of `enqueue()`; for the callback, the usual
             pattern is a counter in your database that each job decrements, and the one that reaches zero
             enqueues the follow-up. It's more explicit, which people either love or hate.""",
            ),
            ("u", "We did exactly that with a Postgres row and `UPDATE ... RETURNING`. Works fine."),
        ],
    ),
]
