"""Configuration (ORB-1801/ORB-1802, env overrides) and upgrading from 2.x to 3.x."""

from __future__ import annotations

from .model import issue

C = "configuration"
U = "upgrading-from-2x"

SPECS = [
    issue(
        "cfg-typo",
        "feature",
        "ORB-1802 for a typo'd key: suggest the closest valid key",
        """
        I spent 20 minutes on this:

        ```
        ERROR orbit.config ORB-1802 UnknownConfigKey key=worker.concurency
        ```

        For 2.x keys there's a helpful hint, for plain typos there's none. A "did you mean
        `worker.concurrency`?" would be great.
        """,
        comp=C,
        version="3.0.1",
        state="closed",
        when=("2025-05-01", "2025-07-10"),
        labels=("good first issue",),
        comments=[
            ("m", "Nice small improvement; difflib's get_close_matches over the known keys would do. PR welcome."),
            ("u", "I'll take it."),
            ("m", "Merged, will be in 3.1.0.", "2025-07-12"),
        ],
    ),
    issue(
        "cfg-backoff",
        "bug",
        'ORB-1801 ConfigInvalid for backoff = "exp"',
        """
        ```
        {{tb:config_invalid_backoff}}
        ```

        Not really a bug, the message is clear; but the 2.x docs used "exp" as the short name and our
        old config had it. Could "exp" be accepted as an alias?
        """,
        comp=C,
        version="3.0.0",
        state="closed",
        when=("2025-03-20", "2025-05-30"),
        labels=("wontfix",),
        comments=[
            (
                "m",
                "We'd rather keep exactly one spelling per value. `migrate-config` "
                "rewrites `exp` to `exponential` for 2.x files.",
            ),
        ],
    ),
    issue(
        "cfg-env-bool",
        "question",
        "ORBIT_RETRIES_JITTER=off rejected with ORB-1801",
        """
        `ORBIT_RETRIES_JITTER=off` makes the worker refuse to start:

        ```
        ERROR orbit.config ORB-1801 ConfigInvalid key=retries.jitter value=off reason="not a boolean"
        ```

        Which boolean spellings are accepted for environment variables?
        """,
        comp=C,
        version="3.0.2",
        state="closed",
        when=("2025-06-20", "2025-09-30"),
        comments=[
            (
                "m",
                "`true`/`false`, `1`/`0`, `yes`/`no`, case-insensitive. "
                "`on`/`off` aren't in the list, deliberately small.",
            ),
            ("r", "OK, `false` then. Maybe list them in the error message?"),
            ("m", "Good point, the message now lists the accepted spellings."),
        ],
    ),
    issue(
        "cfg-location",
        "question",
        "Where does orbit look for orbit.toml?",
        """
        I have `/etc/orbit/orbit.toml` but the worker seems to run with defaults. It's started by a systemd
        unit as `orbit worker --app billing.app:app`; the `ORBIT_` variables from the unit's
        EnvironmentFile do apply, only the file is ignored. Is there a search path?
        """,
        comp=C,
        state="open",
        when=("2025-03-20", "2025-11-10"),
        comments=[
            (
                "m",
                """
             Only `./orbit.toml` in the process's working directory; anything else needs `--config PATH`.
             A missing file isn't an error, which is why you silently got defaults. `orbit doctor --show-config`
             prints the source of every value.""",
            ),
        ],
    ),
    issue(
        "cfg-interp",
        "feature",
        "Expand ${VAR} placeholders inside orbit.toml",
        """
        We'd like `url = "redis://:${REDIS_PASSWORD}@redis:6379/0"` in orbit.toml. Right now the placeholder
        is taken literally and auth fails.
        """,
        comp=C,
        version="3.0.3",
        state="closed",
        when=("2025-08-28", "2025-11-01"),
        labels=("wontfix",),
        comments=[
            (
                "m",
                """
             Not planned: every key already has an env override, so set the whole URL as `ORBIT_BROKER_URL`
             from your secret store. Interpolation inside the file would be a second, subtly different
             mechanism.""",
            ),
        ],
    ),
    issue(
        "cfg-heartbeat-eq",
        "bug",
        "Worker refuses to start: heartbeat_seconds must be less than lease_seconds",
        """
        ```
        ERROR orbit.config ORB-1801 ConfigInvalid key=worker.heartbeat_seconds value=30 reason="must be less than worker.lease_seconds (30)"
        ```

        We wanted short leases for fast recovery. Why can't they be equal?
        """,  # noqa: E501 (quoted whole: a log line, or the issue's own line breaks)
        comp=C,
        version="3.1.0",
        state="open",
        when=("2025-10-16", "2025-11-20"),
        comments=[
            (
                "m",
                """
             With equal values a lease would expire at the same moment its renewal is due, so any delay
             at all means a duplicate run. Keep `heartbeat_seconds` at or below a third of `lease_seconds`,
             e.g. 30/10.""",
            ),
        ],
    ),
    issue(
        "cfg-durations",
        "feature",
        'Accept duration strings ("5m", "2h") for *_seconds keys',
        """
        `misfire_grace_seconds = 21600` is hard to read. Would you accept `"6h"` style values for the
        seconds keys?
        """,
        comp=C,
        version="3.0.3",
        when=("2025-09-01", "2025-11-20"),
        comments=[
            (
                "m",
                "The key names already say `_seconds`, so a string there would be "
                "odd. Leaving open to see if others want it.",
            ),
            ("u", "TOML comments work fine for this: `misfire_grace_seconds = 21600  # 6h`."),
        ],
    ),
    issue(
        "cfg-vague",
        "bug",
        "config changes do nothing",
        """
        changed lease_seconds in orbit.toml and restarted, worker still uses 60. 3.1.0
        """,
        comp=C,
        version="3.1.0",
        state="open",
        when=("2025-10-16", "2025-11-20"),
        comments=[
            (
                "m",
                "Is the worker's working directory the one with orbit.toml? Run `orbit doctor "
                "--show-config` from the same place, it prints which file was read.",
            ),
            ("r", "systemd unit had WorkingDirectory=/ ... added --config. works"),
        ],
    ),
    issue(
        "up-broker-url",
        "bug",
        "ORB-1802 for broker_url after upgrading to 3.0",
        """
        ```
        {{tb:config_unknown_key}}
        ```

        Our config worked for two years on 2.x. Why is a renamed key fatal instead of a warning?
        """,
        comp=U,
        version="3.0.0",
        state="closed",
        when=("2025-03-18", "2025-04-30"),
        comments=[
            (
                "m",
                """
             2.x silently ignored unknown keys, which hid real typos for years (a misspelled retry key is
             a silent data-loss bug). 3.x makes unknown keys in the file fatal. Run
             `orbit migrate-config old.toml -o orbit.toml` and it renames everything it knows.""",
            ),
            ("r", "migrate-config converted it fine. Would have been nice to read that first, my bad."),
        ],
    ),
    issue(
        "up-task-decorator",
        "question",
        "AttributeError: 'App' object has no attribute 'task' on 3.0",
        """
        ```
        Traceback (most recent call last):
          File "/srv/shop/tasks.py", line 9, in <module>
            @app.task(max_retries=5)
             ^^^^^^^^
        AttributeError: 'App' object has no attribute 'task'
        ```

        Is `@app.task` gone completely? No deprecation period?
        """,
        comp=U,
        version="3.0.0",
        state="closed",
        when=("2025-03-18", "2025-05-15"),
        comments=[
            (
                "m",
                """
             Yes, removed in 3.0 (it was deprecated through 2.8 and 2.9). Use `@app.job(retries=6)`; note
             that 3.x counts attempts, so `max_retries=5` becomes `retries=6`. The upgrade guide has a
             table and a grep command to find everything that needs changing.""",
            ),
        ],
    ),
    issue(
        "up-positional",
        "bug",
        "TypeError: enqueue() takes 1 positional argument but 2 were given",
        """
        After upgrading to 3.0.1 our checkout view fails:

        ```
        Traceback (most recent call last):
          File "/srv/shop/checkout/views.py", line 88, in confirm
            send_invoice.enqueue(order.invoice_id)
        TypeError: Job.enqueue() takes 1 positional argument but 2 were given
        ```

        In 2.x `send_invoice.delay(order.invoice_id)` worked, and I read the upgrade guide as "rename
        `.delay` to `.enqueue`". We have ~200 call sites like this.
        """,
        comp=U,
        version="3.0.1",
        state="closed",
        when=("2025-05-01", "2025-07-30"),
        comments=[
            (
                "m",
                """
             Deliberate: `enqueue()` is keyword-only (`send_invoice.enqueue(invoice_id=42)`). Positional
             arguments meant that reordering a job's parameters silently broke jobs already in the queue.""",
            ),
            ("r", "Makes sense. sed to the rescue."),
        ],
    ),
    issue(
        "up-mixed",
        "question",
        "Can 2.9 and 3.0 workers consume the same queue during the rollout?",
        """
        We have ~60 services and can't upgrade everything at once. What's the safe order?
        """,
        comp=U,
        version="3.0.0",
        state="open",
        when=("2025-03-18", "2025-05-30"),
        comments=[
            (
                "m",
                """
             Get everything to 2.9.4 first. Then upgrade **workers** first: 3.x workers read jobs from 2.9.4
             producers (pickled ones included), but 2.x workers can't read jobs from 3.x producers. Stop all
             2.x workers before the first producer moves to 3.x; `orbit status` shows each worker's version.
             Also a 2.x worker left running keeps its own scheduler ticking.""",
            ),
            ("r", "Clear plan, thanks."),
        ],
    ),
    issue(
        "up-retries-off-by-one",
        "bug",
        "Jobs retry one time fewer after the 3.0 upgrade",
        """
        Our flaky-API job used to try 4 times on 2.9 (`max_retries=3`). On 3.0.1 it goes to the dead-letter
        queue (ORB-1201) after 3 attempts. We converted the config by hand.
        """,
        comp=U,
        version="3.0.1",
        state="closed",
        when=("2025-05-01", "2025-07-30"),
        comments=[
            (
                "m",
                """
             2.x counted retries, 3.x counts attempts including the first: `max_retries = 3` is
             `max_attempts = 4`. `migrate-config` adds the one for you; a hand conversion easily misses it.""",
            ),
        ],
    ),
    issue(
        "up-comments-lost",
        "bug",
        "migrate-config drops all comments from the config file",
        """
        `orbit migrate-config` produced a valid 3.x file but all our comments (why each value was chosen)
        are gone. Could it keep them?
        """,
        comp=U,
        version="3.0.0",
        state="closed",
        when=("2025-03-20", "2025-05-10"),
        comments=[
            (
                "m",
                "Fair; it round-trips through a plain dict. Switching to a comment-preserving TOML writer for 3.0.2.",
            ),
            ("m", "3.0.2 keeps comments on keys it renames or leaves alone.", "2025-06-16"),
        ],
    ),
    issue(
        "up-unknownjob",
        "bug",
        "ORB-1503 UnknownJob for half our jobs after the upgrade",
        """
        After moving workers to 3.0.2, jobs from the `notifications` module fail:

        ```
        {{tb:unknown_job}}
        ```

        The module exists and imports fine in a shell.
        """,
        comp=U,
        version="3.0.2",
        state="closed",
        when=("2025-06-20", "2025-08-30"),
        comments=[
            (
                "m",
                """
             The worker only knows jobs from modules it imports. In 2.x autodiscovery imported every
             `tasks.py`; 3.x imports what's listed in `include=` of `orbit.App(...)`. Add
             `"notifications.jobs"` there. `orbit doctor` lists registered jobs under "job imports".""",
            ),
            ("r", "That's it, we relied on autodiscovery. Added include=."),
        ],
    ),
    issue(
        "up-lease-3600",
        "question",
        "migrate-config turned visibility_timeout=3600 into lease_seconds=3600 — keep it?",
        """
        migrate-config printed a note suggesting 60–300 instead. Our longest job is ~40 minutes. Is it safe
        to go down to the default 60?
        """,
        comp=U,
        version="3.0.1",
        state="open",
        when=("2025-05-01", "2025-08-10"),
        comments=[
            (
                "m",
                """
             Yes, as long as heartbeats get through: 3.x renews the lease every `heartbeat_seconds` while the
             job runs, so job length no longer matters. Keep 3600 and a crashed worker's jobs wait an hour. If
             the 40-minute job is CPU-bound in a way that holds the GIL, call
             `orbit.current_job().extend_lease()` in it rather than raising the global lease.""",
            ),
        ],
    ),
    issue(
        "up-python38",
        "bug",
        "pip can't find orbit-jobs 3.0.0 on Python 3.8",
        """
        `pip install orbit-jobs==3.0.0` → `No matching distribution found`. 2.9.4 installs fine.
        """,
        comp=U,
        version="3.0.0",
        state="closed",
        when=("2025-03-18", "2025-04-30"),
        comments=[
            (
                "m",
                "3.x supports CPython 3.9 to 3.13; 3.8 is end-of-life. pip hides versions "
                "whose `Requires-Python` doesn't match, hence the message.",
            ),
        ],
    ),
    issue(
        "up-env-docs",
        "docs",
        "Upgrade guide: mention that environment variable names changed too",
        """
        We converted orbit.toml with migrate-config but our Helm values still set `ORBIT_BROKER` and
        `ORBIT_WORKER_VISIBILITY_TIMEOUT`. Those are only warnings in 3.x, so the settings were silently
        lost and workers connected to localhost. The guide should call this out.
        """,
        comp=U,
        version="3.0.1",
        state="closed",
        when=("2025-05-01", "2025-06-30"),
        comments=[
            ("m", "Agreed, added a paragraph with the env renames and a note to grep deployment manifests."),
        ],
    ),
    issue(
        "up-2x-end",
        "question",
        "Will 2.9 get more fixes?",
        """
        We can't upgrade to 3.x this year: one of our worker hosts is a vendor appliance pinned to Python
        3.8 until the vendor ships an update. Will 2.9.x get security or DST fixes in the meantime?
        """,
        comp=U,
        version="2.9.4",
        state="closed",
        when=("2025-04-01", "2025-07-30"),
        comments=[
            (
                "m",
                """
             No, 2.9.4 was the last 2.x release. If you stay, move daily jobs out of 01:00–03:00 local time
             (or run the scheduler in UTC) and keep `visibility_timeout` above your longest job.""",
            ),
        ],
    ),
]

DUPLICATES = [
    issue(
        "upd-broker-url",
        "bug",
        "Config from 2.9 won't load in 3.0: UnknownConfigKey broker.broker_url",
        """
        Upgraded a service and the worker exits at startup complaining about `broker.broker_url`. Did the
        key change?
        """,
        comp=U,
        version="3.0.1",
        dup="up-broker-url",
        dup_note="`orbit migrate-config` renames 2.x keys (`broker_url` → `url`).",
    ),
    issue(
        "upd-task",
        "question",
        "Every module using @app.task fails to import since moving to orbit 3",
        """
        Every module with `@app.task` fails to import since the upgrade. What replaces it?
        """,
        comp=U,
        version="3.0.2",
        dup="up-task-decorator",
        dup_note="Use `@app.job`; the upgrade guide has the full table.",
    ),
]
