"""The one very long issue: a reconnect-storm incident report on 3.1.0 with the full worker logs.

The logs are simulated: 5 worker pods lose the ElastiCache primary at once, retry in lockstep
(no jitter, the 3.1.0 bug), briefly connect, get dropped again by the overloaded primary, and only
settle after about eighteen minutes. Heartbeats fail, leases expire, the scheduler misfires, and
one child crashes with a traceback, as in a real incident.
"""

from __future__ import annotations

import random

from .logs import Event, job_id, pod_names
from .model import issue

URL = "rediss://master.orbit-prod.x1k9qe.euw1.cache.amazonaws.com:6379/0"
JOBS = (
    "billing.jobs.send_invoice",
    "billing.jobs.sync_usage",
    "ledger.jobs.post_entries",
    "notify.jobs.send_email",
    "exports.jobs.build_csv",
    "billing.jobs.charge_card",
)

_CRASH = """child exited unexpectedly child={child} exitcode=1
Traceback (most recent call last):
  File "/app/.venv/lib/python3.12/site-packages/orbit/worker/child.py", line 211, in main
    loop.run()
  File "/app/.venv/lib/python3.12/site-packages/orbit/worker/loop.py", line 148, in run
    job = self.broker.fetch(self.queues)
  File "/app/.venv/lib/python3.12/site-packages/orbit/broker/redis.py", line 377, in fetch
    reply = self._client.blmove(src, dst, timeout=self.poll_seconds)
  File "/app/.venv/lib/python3.12/site-packages/redis/commands/core.py", line 2605, in blmove
    return self.execute_command("BLMOVE", *params)
  File "/app/.venv/lib/python3.12/site-packages/redis/client.py", line 623, in execute_command
    return self._execute_command(*args, **options)
  File "/app/.venv/lib/python3.12/site-packages/redis/connection.py", line 1422, in get_connection
    connection.connect()
  File "/app/.venv/lib/python3.12/site-packages/redis/connection.py", line 369, in connect
    self.on_connect()
  File "/app/.venv/lib/python3.12/site-packages/redis/connection.py", line 436, in on_connect
    auth_response = self.read_response()
  File "/app/.venv/lib/python3.12/site-packages/redis/_parsers/resp2.py", line 29, in _read_response
    raise error
redis.exceptions.ConnectionError: max number of clients reached"""


def storm_events(rng: random.Random, hosts: list[str], jitter: bool) -> list[Event]:
    """Merged ORB lines from 5 pods over an eighteen-minute lockstep reconnect storm."""
    pods = pod_names(rng, 5)
    events: list[Event] = []
    for _ in range(6):
        events.append(
            (
                rng.uniform(0, 2.5),
                "INFO",
                "orbit.worker",
                None,
                f"job succeeded job_id={job_id(rng, True)} job={rng.choice(JOBS)} duration={rng.uniform(0.05, 4):.2f}s "
                f"worker={rng.choice(pods)}/child-{rng.randint(1, 6)}",
            )
        )
    attempt = dict.fromkeys(pods, 1)
    due = dict.fromkeys(pods, 3.0)
    leased: list[tuple[str, str, float]] = []
    t_end, crashed, misfires = 1090.0, False, 0
    while min(due.values()) < t_end:
        now = min(due.values())
        group = [p for p in pods if abs(due[p] - now) < 0.02]
        for i, pod in enumerate(group):
            at = now + i * rng.uniform(0.0003, 0.0021)
            if now < 7.0:
                error = "ReadOnlyError: You can't write against a read only replica."
            elif now > t_end - 60:
                error = None
            else:
                roll = rng.random()
                error = (
                    "TimeoutError: Timeout connecting to server"
                    if roll < 0.62
                    else "ConnectionError: max number of clients reached"
                    if roll < 0.82
                    else "ConnectionResetError: [Errno 104] Connection reset by peer"
                    if roll < 0.9
                    else None
                )
            if error is None:
                events.append(
                    (
                        at,
                        "INFO",
                        "orbit.broker",
                        None,
                        f"connected url={URL} server=redis 7.1.0 role=master attempt={attempt[pod]} worker={pod}",
                    )
                )
                attempt[pod] = 1
                due[pod] = now + (rng.uniform(2.0, 9.0) if now <= t_end - 60 else t_end + 999)
                if due[pod] < t_end:
                    events.append(
                        (
                            due[pod] - 0.001,
                            "WARNING",
                            "orbit.broker",
                            "ORB-1402",
                            f'BrokerConnectionLost error="TimeoutError: Timeout reading from socket" '
                            f"reconnect_in=0.50s attempt=1 worker={pod}",
                        )
                    )
                    due[pod] += 0.5
                    attempt[pod] = 2
                continue
            delay = min(0.5 * 2 ** (attempt[pod] - 1), 30.0)
            events.append(
                (
                    at,
                    "WARNING",
                    "orbit.broker",
                    "ORB-1402",
                    f'BrokerConnectionLost error="{error}" '
                    f"reconnect_in={delay:.2f}s attempt={attempt[pod]} worker={pod}",
                )
            )
            attempt[pod] += 1
            due[pod] = now + delay
        if rng.random() < 0.12:
            pod = rng.choice(pods)
            jid = job_id(rng, True)
            remaining = rng.uniform(2, 45)
            events.append(
                (
                    now + rng.uniform(0.1, 4),
                    "WARNING",
                    "orbit.worker",
                    "ORB-1103",
                    f'HeartbeatFailed job_id={jid} error="TimeoutError: Redis operation timed out after 5.0s" '
                    f"lease_remaining={remaining:.1f}s",
                )
            )
            leased.append((jid, f"{pod}/child-{rng.randint(1, 6)}", now + remaining + 15))
        for jid, child, expiry in [entry for entry in leased if entry[2] < now]:
            leased.remove((jid, child, expiry))
            age = rng.uniform(60.2, 95)
            events.append(
                (
                    expiry,
                    "WARNING",
                    "orbit.worker",
                    "ORB-1101",
                    f"LeaseExpired job_id={jid} job={rng.choice(JOBS)} attempt=1/4 lease_seconds=60 "
                    f"last_heartbeat_age={age:.1f}s worker={child}",
                )
            )
            if rng.random() < 0.5:
                other = f"{rng.choice(pods)}/child-{rng.randint(1, 6)}"
                events.append(
                    (
                        expiry + rng.uniform(20, 200),
                        "WARNING",
                        "orbit.worker",
                        "ORB-1102",
                        f"LeaseStolen job_id={jid} held_by={other} result=discarded",
                    )
                )
        if not crashed and now > 400:
            crashed = True
            child = f"{rng.choice(pods)}/child-{rng.randint(1, 6)}"
            events.append((now + 0.8, "ERROR", "orbit.worker", None, _CRASH.format(child=child)))
            events.append((now + 1.9, "INFO", "orbit.worker", None, f"child restarted child={child}"))
        if misfires < 2 and now > 140 + misfires * 700:
            misfires += 1
            due_at = "02:15:00" if misfires == 1 else "02:27:00"
            events.append(
                (
                    now + 0.3,
                    "WARNING",
                    "orbit.scheduler",
                    "ORB-1301",
                    f"ScheduleMisfire schedule=billing.jobs.sync_usage due=2025-10-20T{due_at}+00:00 "
                    f"late_by={rng.uniform(61, 140):.1f}s",
                )
            )
    for pod in pods:
        events.append(
            (
                t_end + rng.uniform(1, 4),
                "INFO",
                "orbit.worker",
                None,
                f"resumed fetching queues=default,emails,ledger worker={pod}",
            )
        )
    return events


def staging_events(rng: random.Random, hosts: list[str], jitter: bool) -> list[Event]:
    """The same failover in staging with the workaround: delays spread out, recovery in seconds."""
    pods = pod_names(rng, 8)
    events: list[Event] = []
    for pod in pods:
        t = rng.uniform(0, 0.01)
        delay = rng.uniform(0.5, 1.0)
        events.append(
            (
                t,
                "WARNING",
                "orbit.broker",
                "ORB-1402",
                f'BrokerConnectionLost error="ConnectionResetError: [Errno 104] Connection reset by peer" '
                f"reconnect_in={delay:.2f}s attempt=1 worker={pod}",
            )
        )
        t += delay
        if rng.random() < 0.4:
            second = rng.uniform(1.0, 2.0)
            events.append(
                (
                    t,
                    "WARNING",
                    "orbit.broker",
                    "ORB-1402",
                    f'BrokerConnectionLost error="ReadOnlyError: You can\'t write against a read only replica." '
                    f"reconnect_in={second:.2f}s attempt=2 worker={pod}",
                )
            )
            t += second
        events.append(
            (
                t,
                "INFO",
                "orbit.broker",
                None,
                f"connected url=rediss://master.orbit-stg.k3v0aa.euw1.cache.amazonaws.com:6379/0 "
                f"server=redis 7.1.0 role=master worker={pod}",
            )
        )
    return events


SPECS = [
    issue(
        "rs-long",
        "bug",
        "3.1.0: 18-minute reconnect storm after ElastiCache failover, leases expired, jobs ran twice (full logs)",
        """
        ## Summary

        On Monday 2025-10-20 at 02:13 UTC our ElastiCache replication group (cluster mode off, one primary, two
        replicas, `cache.r7g.large`) did an automatic failover. The failover itself completed in about
        six seconds. Our workers did not recover for **eighteen minutes**:

        - EngineCPUUtilization on the new primary sat at 100% from 02:13:47 to 02:31:50;
        - CurrConnections oscillated between ~300 and the 10,000 maxclients limit;
        - 2,314 jobs were re-run after ORB-1101 lease expiries, including ~400 `billing.jobs.charge_card`
          (idempotency keys saved us there, mostly);
        - two runs of the `*/15` usage sync were dropped as ORB-1301 misfires.

        We upgraded from 3.0.3 to 3.1.0 on 2025-10-16. We've had failovers on 3.0.x before (about one a
        month) and they were never visible beyond a few ORB-1402 lines.

        ## Environment

        - orbit-jobs 3.1.0, Python 3.12.7, redis-py 5.2.1
        - ElastiCache Redis 7.1, TLS, `rediss://`
        - EKS 1.30, 48 worker pods (`orbit worker --concurrency 6`), so ~340 processes holding connections
        - one `orbit.toml` for all pods:

        ```toml
        [worker]
        concurrency = 6
        lease_seconds = 60
        heartbeat_seconds = 15

        [broker]
        url = "rediss://master.orbit-prod.x1k9qe.euw1.cache.amazonaws.com:6379/0"
        pool_size = 10
        socket_timeout_seconds = 5
        # reconnect_* left at defaults

        [log]
        format = "text"
        ```

        ## What we see in the logs

        1. At failover every pod logs ORB-1402 with `reconnect_in=0.50s`, then 1.00s, 2.00s, 4.00s... **the same
           values on every pod, within a few milliseconds of each other**. `reconnect_jitter` is at its
           default (true) so I expected spread.
        2. For the first seconds the DNS name still points at the old primary (ReadOnlyError), which is
           normal for ElastiCache.
        3. Then the new primary gets every connection attempt at the same instant. Some pods connect,
           and a few seconds later they all get dropped together (`Timeout reading from socket`), their
           attempt counter resets to 1, and the next wave is synchronised again.
        4. `max number of clients reached` appears from 02:14 on, so the connection pools are opening far
           more connections than we normally use.
        5. Heartbeats fail (ORB-1103), leases expire (ORB-1101), and other workers pick up the jobs
           (ORB-1102 when the first worker finishes).
        6. One worker child died outright with a traceback (kept it in below).

        It only ended when the synchronisation happened to break up at the 30s cap.

        ## Logs

        Merged from 5 of the 48 pods, one per node group; the other pods look the same. Collected with
        `kubectl logs --since-time ... | grep -E 'orbit\\.(broker|worker|scheduler)' | sort`, 02:13:38 to 02:32:10 UTC. I removed our application's own lines; everything from Orbit is intact.

        ```log
        {{logs:storm@2025-10-20T02:13:38}}
        ```

        Happy to provide the other 43 pods or the CloudWatch graphs if useful.
        """,  # noqa: E501 (quoted whole: a log line, or the issue's own line breaks)
        comp="redis-broker",
        version="3.1.0",
        story="reconnect-storm",
        state="open",
        when=("2025-10-20T09:20", "2025-10-20T11:40"),
        labels=("confirmed",),
        comments=[
            (
                "m",
                """
             Thank you for the complete log, it's the clearest picture of this bug we have. What you're seeing
             is #[rs-lockstep]. In 3.1.0 the reconnect loop only applies jitter when
             `reconnect_min_seconds >= 1`; with the default 0.5 the delays are identical on every process,
             so after a failover all 340 processes reconnect in the same millisecond, the new primary
             falls over, and the cycle repeats. Points 3 and 4 are the same effect: every process opens its
             pool at once, which is how you end up at maxclients.

             The ReadOnlyError lines in the first seconds are expected with ElastiCache and harmless.

             Workaround until 3.1.1: `reconnect_min_seconds = 1` under `[broker]`, or
             `ORBIT_BROKER_RECONNECT_MIN_SECONDS=1` in the pod spec.""",
            ),
            (
                "r",
                """
             Rolled out `ORBIT_BROKER_RECONNECT_MIN_SECONDS=1` to all deployments and triggered a failover in
             staging (same topology, 8 pods). Delays are spread now and everything reconnected within four
             seconds:

             ```log
             {{logs:staging@2025-10-20T15:02:11}}
             ```""",
                "2025-10-20T15:20",
            ),
            (
                "m2",
                """
             One more thing from the config: with `concurrency = 6`, each child process only ever uses one
             or two broker connections, so `pool_size = 10` per process mostly adds headroom you don't need
             during a storm. `pool_size = 4` would have kept you well under maxclients even in this incident.
             Not required once jitter works again, just a cheap safety margin.""",
            ),
            ("u", "Same pattern on Azure Cache for Redis last week, 3.1.0. The workaround fixed it for us too."),
            (
                "m",
                """
             The fix is merged and will be in 3.1.1. I'm leaving this issue open until the release so people
             searching for the symptoms land here.""",
            ),
        ],
    ),
]
