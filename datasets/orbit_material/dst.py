"""Cron and DST issues: double runs on the autumn change, gaps in spring, dst_policy questions."""

from __future__ import annotations

from .model import issue

S = "dst"
C = "cron-scheduling"

SPECS = [
    issue(
        "dst-berlin-2x",
        "bug",
        "Cron job fires twice when clocks go back",
        """
        We run a nightly export with `@app.periodic(cron="30 2 * * *")` and `timezone = "Europe/Berlin"`. Last night
        (Oct 29, clocks went from 03:00 CEST back to 02:00 CET) it ran twice, exactly one hour apart:

        ```
        2023-10-29 00:30:00.004 INFO orbit.scheduler tick schedule=exports.jobs.nightly_export local=02:30+02:00
        2023-10-29 01:30:00.011 INFO orbit.scheduler tick schedule=exports.jobs.nightly_export local=02:30+01:00
        ```

        The export appends to a partner's SFTP drop, so they received two files and double counted the day.
        I'd expect a wall-clock schedule to fire once per calendar day. Is there a switch for this in 2.7?

        {{env}}
        """,
        comp=C,
        version="2.7.0",
        story=S,
        state="closed",
        when=("2023-10-29", "2023-11-02"),
        labels=("confirmed",),
        comments=[
            (
                "m",
                """
             Confirmed. 2.x matches the cron expression against local wall time, and 02:30 exists twice in
             Europe/Berlin that night, so both instants match. There is no switch in 2.7. Workarounds: run
             the scheduler in UTC and shift the expression (`30 0 * * *` in winter terms), or make the job
             idempotent with a per-day key. A proper policy for ambiguous and missing local times is on the
             list for 3.x.""",
            ),
            ("u", "Same here with an invoice run in Europe/Vienna. We moved it to 03:30, which sidesteps it."),
            (
                "m",
                """
             3.0.2 adds `[scheduler] dst_policy` (`run_once` default, `skip`, `run_both`), plus a
             per-schedule override. With `run_once` the 02:30 tick fires only at the first occurrence.
             Closing; the *Cron schedules and DST* page has the table.""",
                "2025-06-17",
            ),
        ],
    ),
    issue(
        "dst-spring-2x",
        "bug",
        "Job scheduled at 02:30 never ran on 31 March (Europe/Amsterdam)",
        """
        Our `30 2 * * *` cleanup didn't run at all on Sunday 31 March. The scheduler log jumps straight from
        the 01:30 job to the 03:00 one. Nothing was down; `orbit status` showed all three workers the
        whole night. Orbit 2.7.1, timezone Europe/Amsterdam.

        Is the scheduler supposed to silently drop a run when the time doesn't exist?
        """,
        comp=C,
        version="2.7.1",
        story=S,
        state="closed",
        when=("2024-03-31", "2024-04-04"),
        comments=[
            (
                "m",
                """
             Yes, that's 2.x behaviour: it compares wall-clock times, and 02:30 did not exist that morning
             (clocks jumped 02:00 → 03:00), so nothing matched. It's the spring side of #[dst-berlin-2x].
             Safest fix on 2.x: schedule outside 02:00–03:00.""",
            ),
            ("r", "Moved it to 03:15. Might be worth a line in the docs, it took us a week to notice."),
        ],
    ),
    issue(
        "dst-chicago-292",
        "bug",
        "Duplicate payroll emails on 3 Nov — America/Chicago schedule",
        """
        Every Sunday at 01:30 we email managers a payroll approval reminder:

        ```python
        @app.periodic(cron="30 1 * * 0")
        def payroll_reminder():
            ...
        ```

        with `timezone = "America/Chicago"` in orbit.toml. This Sunday (Nov 3) every manager got it twice,
        at 01:30 CDT and again at 01:30 CST. HR is not amused. orbit-jobs 2.9.2, Redis 7.0.

        Is there a way to tell the scheduler "only the first 01:30"? I searched the 2.9 docs and found nothing.
        """,
        comp=C,
        version="2.9.2",
        story=S,
        state="closed",
        when=("2024-11-03", "2024-11-06"),
        comments=[
            (
                "m",
                """
             Same root cause as #[dst-berlin-2x]: in 2.x a cron time inside the repeated hour matches twice.
             No setting for it in 2.9. For a weekly reminder the least invasive fix is to schedule it at
             03:30 local, outside the 01:00–02:00 window that repeats in US zones.""",
            ),
            ("r", "Moved to 03:30. Thanks for the quick answer."),
        ],
    ),
    issue(
        "dst-sydney-300",
        "bug",
        "Australia/Sydney: settlement batch executed twice on 6 April",
        """
        Southern hemisphere report for a change. Our settlement batch is `0 2 * * *` with
        `timezone = "Australia/Sydney"`. DST ended on Sunday 6 April (03:00 AEDT → 02:00 AEST) and the batch
        ran at 02:00 AEDT and again at 02:00 AEST. Second run posted 1,412 duplicate ledger lines that we
        had to reverse by hand.

        We're on 3.0.0, I assumed the 3.0 rewrite handled this. {{env}}
        """,
        comp=C,
        version="3.0.0",
        story=S,
        state="closed",
        when=("2025-04-06", "2025-04-10"),
        labels=("confirmed",),
        comments=[
            (
                "m",
                """
             Sorry about the ledger clean-up. 3.0.0 kept the 2.x matching rules unchanged, so the double run
             is expected there. We're designing a `dst_policy` setting for an upcoming 3.0.x patch (a
             tracking issue will follow). Until then: move the batch out of 02:00–03:00 local.""",
            ),
            ("r", "Moved to 04:00. Subscribed to the design issue."),
            ("m", "`dst_policy` shipped in 3.0.2, default `run_once`. Closing.", "2025-06-17"),
        ],
    ),
    issue(
        "dst-policy-design",
        "feature",
        "Scheduler: configurable policy for ambiguous and non-existent local times",
        """
        Tracking issue for DST handling in the scheduler, after #[dst-berlin-2x], #[dst-chicago-292] and
        #[dst-sydney-300].

        Proposal:

        - new key `[scheduler] dst_policy`, values `run_once` (default), `skip`, `run_both`;
        - autumn overlap: `run_once` fires at the first occurrence, `skip` not at all, `run_both` at both
          (what 2.x and 3.0.0/3.0.1 do today);
        - spring gap: `run_once` and `run_both` fire at the first valid minute after the gap, `skip` drops it;
        - a per-schedule override: `@app.cron("15 1 * * *", dst_policy="skip")`;
        - every resolution is logged as ORB-1302 AmbiguousLocalTime so people can see what happened;
        - `orbit migrate-config` writes `dst_policy = "run_both"` into converted 2.x files, so upgrading
          alone never changes behaviour.

        Target: 3.0.2.
        """,
        comp=C,
        version="3.0.1",
        story=S,
        state="closed",
        by="maintainer",
        when=("2025-04-29", "2025-05-09"),
        comments=[
            (
                "u",
                """
             Could `run_once` in the gap log at WARNING rather than INFO? We alert on warnings and would like
             to know when a job got shifted.""",
            ),
            ("m", "ORB-1302 is logged at WARNING in all cases; it's rare enough."),
            (
                "u2",
                """
             I'm not sure migrate-config should pin `run_both`. Almost nobody wants a double run. Maybe
             write it with a big comment instead?""",
            ),
            (
                "m",
                """
             We discussed it: an upgrade that silently changes when billing jobs run is worse than one that
             preserves a known bug. migrate-config adds it with a `# keeps 2.x behavior; review` comment and
             the report line says so.""",
            ),
            ("m", "Released in 3.0.2.", "2025-06-16"),
        ],
    ),
    issue(
        "dst-london-301",
        "bug",
        "3.0.1: daily digest sent twice on Oct 26 (Europe/London)",
        """
        `@app.cron("15 1 * * *")`, timezone Europe/London. On Sunday 26 October our subscribers received the
        daily digest at 01:15 BST and then again at 01:15 GMT. I thought DST was handled in 3.x?

        ```
        $ orbit --version
        orbit 3.0.1
        ```
        """,
        comp=C,
        version="3.0.1",
        story=S,
        state="closed",
        when=("2025-10-26", "2025-10-29"),
        comments=[
            (
                "m",
                """
             `dst_policy` arrived in 3.0.2; 3.0.0 and 3.0.1 still behave like 2.x (`run_both`). Upgrading to
             3.0.3 or 3.1.0 gives you `run_once` by default. If you do go to 3.1.0, also set
             `reconnect_min_seconds = 1` under `[broker]` until 3.1.1 is out (see #[rs-lockstep]).""",
            ),
            ("r", "Upgraded to 3.0.3 for now. Thanks."),
        ],
    ),
    issue(
        "dst-1302-question",
        "question",
        "What does ORB-1302 AmbiguousLocalTime in the scheduler log mean?",
        """
        After the clocks changed last weekend we got this warning, and our on-call got paged because the
        alert rule matches any `ORB-` code at WARNING:

        ```
        2025-10-26 02:30:00.009 WARNING orbit.scheduler ORB-1302 AmbiguousLocalTime schedule=ops.jobs.rotate_logs local_time=2025-10-26T02:30 timezone=Europe/Paris kind=overlap dst_policy=run_once action=ran_first_occurrence
        ```

        Did something go wrong? The job seems to have run once. Should we exclude this code from paging?
        """,  # noqa: E501 (quoted whole: a log line, or the issue's own line breaks)
        comp=C,
        version="3.0.3",
        story=S,
        state="open",
        when=("2025-10-27", "2025-10-31"),
        comments=[
            (
                "m",
                """
             Nothing went wrong: ORB-1302 is informational. The scheduler found that 02:30 happened twice in
             Europe/Paris and, with `dst_policy = "run_once"`, ran only the first occurrence. It's logged at
             WARNING so it shows up in reviews, but it's fine to exclude from paging. ORB-1301
             (ScheduleMisfire) is the scheduler code worth paging on.""",
            ),
        ],
    ),
    issue(
        "dst-migrate-runboth",
        "bug",
        'migrate-config set dst_policy = "run_both" and billing ran twice on Nov 2',
        """
        We upgraded from 2.9.4 to 3.1.0 three weeks ago using `orbit migrate-config`. On Nov 2 our 01:45
        `America/New_York` billing run happened twice again. Turns out the converted config contains:

        ```toml
        [scheduler]
        timezone = "America/New_York"
        dst_policy = "run_both"   # keeps 2.x behavior; review
        ```

        I get why it preserves behaviour, but "review" in a comment nobody reads is not much of a guard. Two
        suggestions: print the dst_policy line in red / as a warning at the end of migrate-config, and have
        `orbit doctor` warn when `run_both` is combined with a non-UTC timezone.
        """,
        comp=C,
        version="3.1.0",
        story=S,
        when=("2025-11-02", "2025-11-05"),
        comments=[
            (
                "m",
                """
             Fair criticism. The `run_both` default in migrate-config was deliberate (see the discussion in
             #[dst-policy-design]) but the review step clearly isn't working. A doctor warning for
             `run_both` + non-UTC timezone is a good idea; I'll take that for 3.1.1.""",
            ),
            ("u", "+1 to the doctor check. We found the same line in our config only after reading this."),
        ],
    ),
    issue(
        "dst-misfire-deploy",
        "question",
        "ORB-1301 ScheduleMisfire after a deploy at 02:00 — can it catch up?",
        """
        Our deploy window overlapped the 02:00 tick of `reports.jobs.nightly_rollup`. Workers were down for
        ~7 minutes and afterwards:

        ```
        2025-09-14 02:07:03.118 WARNING orbit.scheduler ORB-1301 ScheduleMisfire schedule=reports.jobs.nightly_rollup due=2025-09-14T02:00:00+02:00 late_by=423.1s
        ```

        The rollup never ran that day. Is there an option to run missed ticks when the scheduler comes back?
        """,  # noqa: E501 (quoted whole: a log line, or the issue's own line breaks)
        comp=C,
        version="3.0.3",
        story=S,
        state="closed",
        when=("2025-09-14", "2025-09-20"),
        comments=[
            (
                "m",
                """
             Ticks later than `misfire_grace_seconds` (default 60) are dropped by design, and Orbit never
             replays a backlog. For a nightly job set `misfire_grace_seconds = 21600` (six hours); the late
             tick will then be enqueued as soon as a worker is back.""",
            ),
            ("r", "Set it to 4h, works. Thanks!"),
        ],
    ),
    issue(
        "dst-tzdata-slim",
        "bug",
        "ZoneInfoNotFoundError for Europe/Berlin in python:3.12-slim image",
        """
        Worker crashes at startup since we switched base image to `python:3.12-slim`:

        ```
        {{tb:zoneinfo}}
        ```

        Same code works on my Mac.
        """,
        comp=C,
        version="3.0.2",
        state="closed",
        when=("2025-06-20", "2025-08-15"),
        comments=[
            (
                "m",
                """
             The slim images don't ship the system tz database and `zoneinfo` needs one. `pip install tzdata`
             (or add it to your requirements) fixes it. `orbit doctor` checks exactly this under
             "timezone database", worth running in your image build.""",
            ),
            ("r", "That was it. Adding `tzdata` to requirements."),
            ("u", "Could orbit-jobs depend on tzdata directly? It's tiny."),
            ("m", "We'd rather not override the system database where one exists. Doctor + docs it is."),
        ],
    ),
    issue(
        "dst-utc-question",
        "question",
        "Is it better to keep the scheduler on UTC and convert times myself?",
        """
        We have ~20 schedules, mostly "every morning at 7 local" for customers in one country. After reading
        the DST threads here I'm tempted to set `timezone = "UTC"` and just accept that the jobs move by an
        hour twice a year. Is that what people do? Any downside besides the shift?
        """,
        comp=C,
        state="open",
        when=("2024-11-10", "2025-02-20"),
        comments=[
            (
                "m",
                """
             If "7 local" matters to your users, keep the local timezone; the schedule then follows the wall
             clock, which is what people expect. If it doesn't, UTC is simplest: no gaps, no overlaps. The
             real trap is only jobs between 01:00 and 03:00 local; move those and local time is painless.""",
            ),
            ("u", "We did UTC for internal jobs and local time for customer-facing ones. Works fine."),
        ],
    ),
    issue(
        "dst-vague",
        "bug",
        "cron ran twice last night??",
        """
        our daily job ran 2 times last night, orbit 2.9.4. nothing changed on our side. anyone else??
        """,
        comp=C,
        version="2.9.4",
        story=S,
        state="closed",
        when=("2025-11-02", "2025-11-03"),
        labels=("needs-repro",),
        comments=[
            (
                "m",
                "What's `timezone` under `[scheduler]`, and what time is the job "
                "scheduled? Last night was the US DST change.",
            ),
            ("r", "America/Denver, 1:10am. oh."),
            (
                "m",
                """
             That's it then: 01:10 happened twice. 2.9.x has no fix for this; see #[dst-chicago-292] for the
             workaround, or upgrade to 3.x where `dst_policy = "run_once"` is the default (don't keep
             `run_both` if migrate-config adds it).""",
            ),
        ],
    ),
    issue(
        "dst-docs-example",
        "docs",
        "Cron page: add a worked example of the overlap hour with real timestamps",
        """
        The DST table on the cron page is clear, but when I explained it to our team what clicked was writing
        out the UTC instants: for `30 2 * * *` in Europe/Berlin on 2025-10-26, 00:30Z and 01:30Z both map to
        02:30 local. Suggest adding a small block like that under the table, and the same for the spring gap.
        Happy to send a PR.
        """,
        comp=C,
        state="closed",
        when=("2025-07-01", "2025-09-30"),
        labels=("good first issue",),
        comments=[
            ("m", "Yes please, PR welcome. Keep it to Europe/Berlin and America/New_York so it matches the table."),
            ("r", "PR is up."),
            ("m", "Merged, thanks!"),
        ],
    ),
    issue(
        "dst-schedule-list",
        "bug",
        "`orbit schedule list` shows the pre-DST offset for next run",
        """
        Ran `orbit schedule list` on Saturday 25 Oct; for a Monday schedule it showed
        `2025-10-27 09:00 +02:00` but after the change Monday is +01:00. The job itself ran at the right
        time, so it's just the display. 3.1.0, Europe/Berlin.
        """,
        state="open",
        comp="cli",
        version="3.1.0",
        story=S,
        when=("2025-10-25", "2025-11-10"),
        labels=("good first issue",),
        comments=[
            (
                "m",
                """
             Confirmed: the listing computes the next run's offset from "now" instead of from the
             run's own date. Cosmetic, but confusing exactly when people check. Good first issue if anyone
             wants it: the fix is in `orbit/cli/schedule.py`.""",
            ),
        ],
    ),
]

DUPLICATES = [
    issue(
        "dstd-berlin",
        "bug",
        "Nightly export cron executed 2x on Oct 29 (DST, Europe/Berlin)",
        """
        Our 02:30 export to the data warehouse ran twice on Sunday, 00:30 UTC and 01:30 UTC. We're on
        orbit 2.7.0 with timezone Europe/Berlin. The second run overwrote nothing but doubled the row counts
        in the partner report. Looks like a scheduler bug around DST.
        """,
        comp=C,
        version="2.7.0",
        story=S,
        dup="dst-berlin-2x",
        dup_note="Same Europe/Berlin overlap on Oct 29; workarounds are in the original thread.",
    ),
    issue(
        "dstd-chicago",
        "bug",
        "Sunday 01:30 job in America/Chicago ran two times (2.9.2)",
        """
        Weekly job at `30 1 * * 0`, scheduler timezone America/Chicago, orbit 2.9.2. Log shows two ticks on
        Nov 3, 06:30Z and 07:30Z. Nobody restarted anything. Is the scheduler double counting?
        """,
        comp=C,
        version="2.9.2",
        story=S,
        dup="dst-chicago-292",
        dup_note="The 01:00–02:00 hour repeats on the US change; moving the schedule to 03:30 avoids it on 2.x.",
    ),
    issue(
        "dstd-london",
        "bug",
        "Users got the 01:15 digest email two times on 26/10, London tz, orbit 3.0.1",
        """
        Hi, subscribers complained about a duplicated newsletter digest on Sunday. Scheduler is set to
        Europe/London, the job is at 01:15. Version 3.0.1. Any setting I'm missing?
        """,
        comp=C,
        version="3.0.1",
        story=S,
        dup="dst-london-301",
        dup_note="3.0.1 predates `dst_policy`; upgrading to 3.0.2 or later makes `run_once` the default.",
    ),
    issue(
        "dstd-migrate",
        "bug",
        "After upgrading with migrate-config, the DST night ran our cron twice (run_both?)",
        """
        Upgraded 2.9 → 3.1.0 with `orbit migrate-config` last month. Our 01:30 cron in America/Toronto ran
        twice on Nov 2 even though 3.x is supposed to run once. Found `dst_policy = "run_both"` in the
        generated orbit.toml. Why would migrate-config choose that?
        """,
        comp=C,
        version="3.1.0",
        story=S,
        dup="dst-migrate-runboth",
        dup_note=(
            "migrate-config keeps 2.x behaviour on purpose; set `dst_policy = "
            '"run_once"`. A doctor warning is planned there.'
        ),
    ),
    issue(
        "dstd-sydney",
        "bug",
        "Duplicate ledger postings from a 2am batch when Sydney DST ended",
        """
        Same story as others in AU I suspect: our 02:00 batch posted everything twice on the first Sunday of
        April. Scheduler timezone Australia/Sydney, orbit 3.0.0.
        """,
        comp=C,
        version="3.0.0",
        story=S,
        dup="dst-sydney-300",
        dup_note="3.0.0 still behaves like 2.x in the overlap; `dst_policy` is being added for 3.0.2.",
    ),
]
