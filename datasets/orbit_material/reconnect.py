"""The 3.1.0 reconnect storm: workers reconnecting to Redis in lockstep after a failover."""

from __future__ import annotations

from .model import issue

S = "reconnect-storm"
C = "redis-broker"
V = "3.1.0"

SPECS = [
    issue(
        "rs-cpu",
        "bug",
        "Redis CPU at 100% for minutes after upgrading to 3.1.0",
        """
        Upgraded 14 services from 3.0.3 to 3.1.0 yesterday. This morning our Redis primary had a short blip
        (maintenance restart) and afterwards CPU sat at 100% for about six minutes. `INFO clients` showed
        connected_clients jumping between 40 and 900. Everything recovered by itself eventually.

        Never saw anything like it on 3.0.x with the same Redis. Not sure yet what to look at.

        {{env}}
        """,
        comp=C,
        version=V,
        story=S,
        state="closed",
        when=("2025-10-15", "2025-10-16"),
        comments=[
            (
                "m",
                "Can you share worker logs from the window? Especially the "
                "ORB-1402 lines with their `reconnect_in` values.",
            ),
            (
                "r",
                """
             Here's a slice from three pods:

             ```
             {{logs:reconnect}}
             ```""",
            ),
            (
                "m",
                """
             Thanks, that's telling: every worker waits exactly 0.50s, then 1.00s, then 2.00s. With
             `reconnect_jitter = true` those should be spread out. Tracking it in #[rs-lockstep], which has a
             clearer reproduction; closing this one in favour of it.""",
                "2025-10-19",
            ),
        ],
    ),
    issue(
        "rs-lockstep",
        "bug",
        "Workers reconnect in lockstep after Redis failover (ORB-1402 flood), jitter has no effect",
        """
        **Summary:** on 3.1.0, after a Redis failover every worker retries its connection at the same
        instants, the new primary gets hit by all of them at once, times out, and the cycle repeats.

        **Reproduce** (docker compose, 1 Redis, 30 workers with `--concurrency 4`):

        1. start workers with default `[broker]` settings;
        2. `docker restart redis`;
        3. watch the ORB-1402 lines.

        ```
        {{logs:reconnect}}
        ```

        All `reconnect_in` values are identical across workers (0.50, 1.00, 2.00, 4.00...). On 3.0.3 the same
        setup shows values spread between 0.25 and 0.5 on the first attempt and the Redis restart is a
        non-event.

        Setting `reconnect_min_seconds = 1` makes the delays random again, which is how I noticed it has
        something to do with the minimum.

        {{env}}
        """,
        comp=C,
        version=V,
        story=S,
        state="closed",
        when=("2025-10-17", "2025-10-18"),
        labels=("confirmed", "regression"),
        comments=[
            (
                "m",
                """
             Great reproduction, thank you. Confirmed on main. The 3.1.0 refactor of the reconnect loop only
             applies jitter when `reconnect_min_seconds >= 1`, a guard that was meant for something else.
             With the default 0.5 the delays are deterministic, so all workers reconnect in lockstep.

             Workaround until the patch: set `reconnect_min_seconds = 1` under `[broker]` (or
             `ORBIT_BROKER_RECONNECT_MIN_SECONDS=1`). That re-enables jitter.""",
            ),
            ("u", "Confirming the workaround fixed it for us (60 workers, ElastiCache)."),
            ("m2", "Docs updated with a warning on the Redis broker and configuration pages."),
            ("m", "Fix merged; it will ship in 3.1.1. Closing here."),
        ],
    ),
    issue(
        "rs-jitter-code",
        "bug",
        "reconnect_jitter silently disabled when reconnect_min_seconds is below 1",
        """
        Found the cause of the lockstep reconnects while reading `orbit/broker/reconnect.py` in 3.1.0:

        ```python
        def next_delay(self, attempt: int) -> float:
            delay = min(self.min_seconds * 2 ** (attempt - 1), self.max_seconds)
            if self.jitter and self.min_seconds >= 1:
                delay = random.uniform(delay / 2, delay)
            return delay
        ```

        The `self.min_seconds >= 1` condition looks like it was meant to be `delay >= 1` (or nothing at
        all). With the default `reconnect_min_seconds = 0.5` jitter is never applied, for any attempt.
        3.0.3's version had no such condition.
        """,
        comp=C,
        version=V,
        story=S,
        state="closed",
        when=("2025-10-18", "2025-10-20"),
        labels=("confirmed",),
        comments=[
            (
                "m",
                """
             Yes, that's exactly it, thanks for digging. It came from a test-speed tweak that leaked into the
             real code path. The fix removes the condition and adds a test that 100 simulated workers never
             pick the same delay. Same bug as #[rs-lockstep]; keeping this open until the fix is merged.""",
            ),
            ("m", "Merged for 3.1.1."),
        ],
    ),
    issue(
        "rs-sentinel",
        "bug",
        "Sentinel failover leaves 200 workers hammering the new master",
        """
        Redis with Sentinel (bitnami chart), 200 worker processes across 25 pods, orbit 3.1.0. When
        Sentinel promotes a replica, the new master goes to 100% CPU and stays there. `redis-cli --latency`
        shows >2s. Sentinel then sometimes fails over *again* because the new master looks unhealthy, which
        restarts the whole thing.

        We had two of these cascades this week. With 3.0.3 failovers were boring.
        """,
        comp=C,
        version=V,
        story=S,
        state="closed",
        when=("2025-10-20", "2025-10-23"),
        comments=[
            (
                "m",
                """
             This is the 3.1.0 lockstep reconnect bug, #[rs-lockstep]: with jitter off, 200 processes
             reconnect within the same millisecond, and the repeated failover makes it worse. Set
             `reconnect_min_seconds = 1` now; 3.1.1 fixes the default.""",
            ),
            ("r", "Deployed the workaround, tested a manual failover: CPU peak 35% and back to normal in ~10s. 👍"),
        ],
    ),
    issue(
        "rs-downgrade",
        "question",
        "Is it safe to downgrade from 3.1.0 to 3.0.3 because of the reconnect storm?",
        """
        We'd rather not carry a config workaround across 40 services. Can we pin `orbit-jobs==3.0.3` again,
        or did 3.1.0 change anything in the Redis key layout that would break a downgrade with jobs in flight?
        """,
        comp=C,
        version=V,
        story=S,
        state="open",
        when=("2025-10-20", "2025-11-06"),
        comments=[
            (
                "m",
                """
             The Redis key layout is unchanged between 3.0.3 and 3.1.0, so a rolling downgrade is safe; jobs
             enqueued by 3.1.0 producers are readable by 3.0.3 workers. You'd lose the 3.1 features you use,
             of course. Personally I'd keep 3.1.0 and set `ORBIT_BROKER_RECONNECT_MIN_SECONDS=1` in your
             base image; that's one line, not 40.""",
            ),
            ("r", "Fair, env var in the base image it is."),
        ],
    ),
    issue(
        "rs-memorystore",
        "bug",
        "GCP Memorystore maintenance window triggers ORB-1402 stampede on 3.1.0",
        """
        Memorystore (Standard tier) did its scheduled maintenance last night. The failover itself took ~2s
        but our workers logged ORB-1402 for 9 minutes afterwards, ~180k lines, and the instance hit
        `ERR max number of clients reached` twice. GKE, 36 worker pods, orbit 3.1.0, default broker settings.
        """,
        comp=C,
        version=V,
        story=S,
        state="closed",
        when=("2025-10-22", "2025-11-02"),
        comments=[
            (
                "m",
                """
             Same root cause as #[rs-lockstep]. The maxclients errors come from every process opening its
             `pool_size` connections at the same moment. Workaround `reconnect_min_seconds = 1`, fixed in
             3.1.1.""",
            ),
        ],
    ),
    issue(
        "rs-workaround-q",
        "question",
        "Does reconnect_min_seconds = 1 have any downside?",
        """
        The docs say to set `reconnect_min_seconds = 1` on 3.1.0. Does that mean jobs pause for at least a
        second on every blip? We have latency-sensitive jobs (payment webhooks) and a network that drops a
        connection every few hours.
        """,
        comp=C,
        version=V,
        story=S,
        state="open",
        when=("2025-10-24", "2025-11-12"),
        comments=[
            (
                "m",
                """
             Only the reconnect waits: the first retry after a dropped connection comes after 0.5–1s (jittered) instead of exactly 0.5s. Jobs that
             are already running keep running; only fetching the next job and heartbeats wait for the
             reconnect. For occasional blips the difference is a fraction of a second. After 3.1.1 you can go back to
             0.5 if you like.""",  # noqa: E501 (quoted whole: a log line, or the issue's own line breaks)
            ),
            ("r", "Makes sense, thanks."),
        ],
    ),
    issue(
        "rs-eta",
        "question",
        "When will 3.1.1 with the reconnect fix be released?",
        """
        The reconnect fix has been merged for a while. Is there a date for 3.1.1? We're holding a 3.1
        rollout across our platform until it's out, because our security team doesn't want config
        workarounds that need to be removed later.
        """,
        comp=C,
        version=V,
        story=S,
        when=("2025-10-30", "2025-11-14"),
        comments=[
            (
                "m",
                """
             3.1.1 is waiting on one more fix (a migrate-config warning for `dst_policy`). We're aiming for
             the week after next. The reconnect fix itself is merged; you can test it from main if that
             helps your security review.""",
            ),
            ("u", "Also waiting on this. A pre-release on PyPI would help."),
            ("m2", "We'll publish 3.1.1rc1 as soon as the last PR lands."),
        ],
    ),
    issue(
        "rs-vague",
        "bug",
        "workers go crazy after redis restart",
        """
        after we restart redis all workers spam errors for like 5 min and redis is super slow. 3.1.0. restart of
        workers fixes it
        """,
        comp=C,
        version=V,
        story=S,
        state="closed",
        when=("2025-10-21", "2025-11-15"),
        labels=("needs-repro",),
        comments=[
            (
                "m",
                "Do the errors say ORB-1402 with the same `reconnect_in` on every worker? If "
                "so it's #[rs-lockstep]: set `reconnect_min_seconds = 1`.",
            ),
            ("r", "yes same numbers everywhere. will try"),
            ("r", "fixed. thx"),
        ],
    ),
    issue(
        "rs-k8s-restart",
        "bug",
        "ORB-1402 on every Redis pod restart in k8s, workers take minutes to settle",
        """
        Self-hosted Redis as a StatefulSet, workers as a Deployment (48 replicas). Any Redis pod restart
        (node drain, image bump) is followed by minutes of ORB-1402 warnings and failed heartbeats:

        ```
        {{logs:heartbeat}}
        ```

        Some jobs then run twice because their leases expired. 3.1.0; it was fine on 3.0.2.
        """,
        comp=C,
        version=V,
        story=S,
        state="open",
        when=("2025-10-23", "2025-11-10"),
        comments=[
            (
                "m",
                """
             The ORB-1101s are a consequence: while all workers fight to reconnect, heartbeats fail (ORB-1103)
             and leases expire. The reconnect storm is #[rs-lockstep]; with `reconnect_min_seconds = 1`
             the restart should settle in seconds. If you still see lease expiries after that, open a new
             issue with logs.""",
            ),
        ],
    ),
    issue(
        "rs-log-volume",
        "bug",
        "ORB-1402 log spam: 40k lines per minute during a Redis failover",
        """
        Independent of the reconnect bug itself: when it happens, every worker logs one ORB-1402 line per
        attempt per connection, and our log pipeline (Loki) started dropping data. Could repeated identical
        ORB-1402 lines be rate-limited or summarised ("12 more reconnect attempts")?
        """,
        comp="monitoring",
        version=V,
        story=S,
        when=("2025-10-25", "2025-11-20"),
        comments=[
            (
                "m",
                """
             Agreed the volume is excessive, and it's worse than it should be on 3.1.0 because all processes
             retry together. We'll look at logging the first attempt and then every Nth at WARNING, the rest
             at DEBUG. Leaving open as an enhancement.""",
            ),
        ],
    ),
    issue(
        "rs-doctor",
        "feature",
        "orbit doctor: warn about the 3.1.0 reconnect settings",
        """
        Now that the lockstep reconnect issue is known, could `orbit doctor` on 3.1.0 print a warning when
        `reconnect_min_seconds < 1`? It already knows the version and the config, and doctor is the first
        thing the docs tell people to run.
        """,
        comp="cli",
        version=V,
        story=S,
        state="closed",
        when=("2025-10-21", "2025-11-05"),
        comments=[
            (
                "m",
                """
             Since 3.1.1 fixes the bug itself, a check that only applies to 3.1.0 can't be shipped in 3.1.0.
             The docs carry the warning instead. Closing as won't fix, but thanks for thinking of doctor.""",
            ),
        ],
        labels=("wontfix",),
    ),
    issue(
        "rs-metrics",
        "feature",
        "Metrics for failed reconnect attempts and reconnect delays",
        """
        During the recent reconnect storms we only noticed via Redis CPU alerts. `orbit_broker_reconnects_total`
        only counts *successful* reconnects, so it barely moved while workers were failing in a loop. Could
        we get a counter of failed attempts and a histogram of the chosen `reconnect_in` delays? The
        histogram would have shown the missing jitter immediately (every sample in the same bucket).
        """,
        state="open",
        comp="monitoring",
        version=V,
        story=S,
        when=("2025-10-27", "2025-11-20"),
        comments=[
            (
                "m",
                "Good idea, especially the delay histogram. Would accept a PR adding "
                "both next to the existing reconnect counter.",
            ),
            ("u", '+1, we alert on `orbit_errors_total{code="ORB-1402"}` for now, which works but is noisy.'),
        ],
    ),
]

DUPLICATES = [
    issue(
        "rsd-lockstep",
        "bug",
        "All workers hit Redis at the same instant after a failover (3.1.0)",
        """
        After an ElastiCache failover every worker process seems to reconnect at exactly the same
        moment; the new primary times out, they all back off by the same amount, and it repeats. Is
        `reconnect_jitter` broken in 3.1.0? It's set to true.
        """,
        comp=C,
        version=V,
        story=S,
        dup="rs-lockstep",
        dup_note="Workaround there: `reconnect_min_seconds = 1`; the fix ships in 3.1.1.",
    ),
    issue(
        "rsd-cpu",
        "bug",
        "redis-server pinned at 100% CPU since the orbit 3.1.0 upgrade",
        """
        Since moving to 3.1.0 our Redis CPU goes to 100% after every connection blip and takes minutes to
        come down. 3.0.3 didn't do this.
        """,
        comp=C,
        version=V,
        story=S,
        dup="rs-cpu",
        dup_note="The root cause is tracked in #[rs-lockstep] (set `reconnect_min_seconds = 1` until 3.1.1).",
    ),
    issue(
        "rsd-sentinel",
        "bug",
        "Sentinel failover: every worker reconnects simultaneously to the promoted replica",
        """
        Redis Sentinel setup, orbit 3.1.0. During a failover drill all ~120 worker processes reconnected in
        the same instant and the new master stalled; Sentinel almost failed over a second time.
        """,
        comp=C,
        version=V,
        story=S,
        dup="rs-sentinel",
        dup_note="Same sentinel cascade; the 3.1.0 workaround is `reconnect_min_seconds = 1`.",
    ),
    issue(
        "rsd-jitter",
        "bug",
        "Jitter not applied to the reconnect delay below one second",
        """
        Reading the 3.1.0 source: the reconnect delay only gets randomised if the configured minimum is at
        least 1 second. With the default minimum 0.5, all delays are deterministic. Intentional?
        """,
        comp=C,
        version=V,
        story=S,
        dup="rs-jitter-code",
        dup_note="Not intentional; the fix is merged for 3.1.1.",
    ),
    issue(
        "rsd-memorystore",
        "bug",
        "Ten minutes of ORB-1402 from every worker after a Memorystore maintenance event",
        """
        Google's maintenance event on our Memorystore instance caused ~10 minutes of reconnect errors from
        all workers and connection-limit errors on the Redis side. orbit 3.1.0 on GKE.
        """,
        comp=C,
        version=V,
        story=S,
        dup="rs-memorystore",
        dup_note="It's the 3.1.0 lockstep reconnect bug; see the workaround in the original.",
    ),
    issue(
        "rsd-eta",
        "question",
        "ETA for the 3.1.1 patch release (reconnect fix)?",
        """
        Any idea when 3.1.1 will be on PyPI? We need the reconnect fix and would like to avoid the config
        workaround if it's only days away.
        """,
        comp=C,
        version=V,
        story=S,
        dup="rs-eta",
        dup_note="Release status for 3.1.1 is tracked there.",
    ),
]
