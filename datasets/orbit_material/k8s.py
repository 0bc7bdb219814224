"""Kubernetes deploys: SIGTERM and grace periods, probes, autoscaling on queue depth."""

from __future__ import annotations

from .model import issue

S = "kubernetes"
C = "kubernetes"

SPECS = [
    issue(
        "k8s-sigterm",
        "bug",
        "Jobs killed mid-run on every rollout: shutdown_grace_seconds vs terminationGracePeriodSeconds",
        """
        Every deploy, a few of our longer jobs (1–3 min) die mid-run and come back a minute later with
        ORB-1101. We use the default `shutdown_grace_seconds = 30` and the pod spec doesn't set
        `terminationGracePeriodSeconds`. Log from one pod at rollout:

        ```
        2025-04-09 11:02:14.006 INFO orbit.worker SIGTERM received; draining 6 running jobs (shutdown_grace_seconds=30)
        2025-04-09 11:02:29.871 INFO orbit.worker job succeeded job_id=01JRD2W4T7Y0A3C6E9GJKMNPQR duration=74.102s
        ```

        ...and then nothing, the pod is gone. I expected "released N jobs" like in the docs.
        """,
        comp=C,
        version="3.0.1",
        story=S,
        state="closed",
        when=("2025-05-01", "2025-06-05"),
        comments=[
            (
                "m",
                """
             Kubernetes' default grace period is also 30s, so the kubelet's SIGKILL arrives right when Orbit
             would start releasing the remaining jobs. They aren't lost, but they stay leased until
             `lease_seconds` passes, which is the ORB-1101 you see. Set
             `terminationGracePeriodSeconds` to at least `shutdown_grace_seconds + 10`, e.g. 45 or 60.""",
            ),
            ("r", 'terminationGracePeriodSeconds: 60 — clean "released 2 running jobs" on the last deploy. Thanks!'),
        ],
    ),
    issue(
        "k8s-liveness",
        "question",
        "What should the liveness probe check for a worker pod?",
        """
        Workers don't serve HTTP, so what do people use for liveness? We tried an exec probe running
        `orbit status`, but during a Redis hiccup all pods got restarted at once, which made things worse.
        """,
        comp=C,
        version="3.0.0",
        story=S,
        state="open",
        when=("2025-03-25", "2025-06-30"),
        comments=[
            (
                "m",
                """
             Start workers with `--metrics-port 9464` and probe `GET /healthz` on that port. It reports whether
             the parent's supervision loop is alive and deliberately ignores the broker, for exactly the
             reason you found: a broker outage should not restart the fleet. Use a generous
             `failureThreshold`, a wedged parent is rare.""",
            ),
            ("r", "Switched to /healthz, much better."),
        ],
    ),
    issue(
        "k8s-hpa",
        "question",
        "Autoscaling workers on queue depth instead of CPU",
        """
        HPA on CPU doesn't work for us: workers mostly wait on HTTP APIs, so CPU is low while the queue grows
        to 50k. How do people scale Orbit workers on queue length? We have KEDA installed.
        """,
        comp=C,
        version="3.0.2",
        story=S,
        state="closed",
        when=("2025-06-20", "2025-08-30"),
        comments=[
            (
                "m",
                """
             With the Redis broker, each queue's ready jobs are a list named `orbit:<app>:q:<queue>`, so
             KEDA's `redis` scaler works directly (`listName: orbit:billing:q:default`, `listLength` = target
             per replica). Keep `minReplicaCount >= 1`, the cron scheduler runs inside workers. With the
             Postgres broker, use the `orbit_queue_ready_jobs` metric via the Prometheus adapter.""",
            ),
            ("r", "KEDA redis scaler works nicely. We went with listLength 200."),
            ("u", "Thanks, this should be in the k8s docs."),
            ("m2", "It is now, with a full ScaledObject example."),
        ],
    ),
    issue(
        "k8s-pid1",
        "bug",
        "Worker ignores SIGTERM when started from an entrypoint script",
        """
        Our image uses `ENTRYPOINT ["/bin/sh", "-c", "/app/entrypoint.sh"]` which runs migrations checks and
        then `orbit worker --app ...`. On pod termination Orbit never logs "SIGTERM received" and the pod is
        SIGKILLed after the grace period. Running `orbit worker` directly as the command works.
        """,
        comp=C,
        version="3.0.3",
        story=S,
        state="closed",
        when=("2025-08-28", "2025-10-10"),
        comments=[
            (
                "m",
                """
             The shell is PID 1 and doesn't forward SIGTERM to its child. End the script with
             `exec orbit worker ...` so Orbit replaces the shell, or use a tiny init like tini/dumb-init.""",
            ),
            ("r", "`exec` did it. Embarrassing, thanks."),
        ],
    ),
    issue(
        "k8s-probe-restarts",
        "bug",
        "Worker pods restarted every few hours by the liveness probe",
        """
        `kubectl describe` shows `Liveness probe failed: context deadline exceeded` a few times a day, always
        while heavy PDF jobs run. Probe: `httpGet /healthz`, `timeoutSeconds: 1`, `failureThreshold: 1`.
        CPU limit 1 core, concurrency 4. 3.1.0.
        """,
        comp=C,
        version="3.1.0",
        story=S,
        state="closed",
        when=("2025-10-16", "2025-11-15"),
        comments=[
            (
                "m",
                """
             Jobs run in child processes, so they don't block `/healthz` directly, but four CPU-bound children
             under a 1-core limit get the whole pod throttled, and the parent waits for CPU like everyone else.
             A 1s timeout with a single failure allowed is too tight. Use `timeoutSeconds: 5`,
             `periodSeconds: 20`, `failureThreshold: 6`, and consider matching concurrency to the CPU limit.""",
            ),
            ("r", "Relaxed the probe and set concurrency 2 for the PDF queue. No restarts for a week."),
        ],
    ),
    issue(
        "k8s-keda-docs",
        "docs",
        "Kubernetes page: KEDA example uses the wrong Redis list name",
        """
        The ScaledObject example on *Deploying on Kubernetes* has `listName: orbit:q:default`, but the actual
        key in Redis is `orbit:billing:q:default` (the app name is part of it). KEDA silently reports 0 and
        never scales up.
        """,
        comp=C,
        version="3.0.2",
        story=S,
        state="closed",
        when=("2025-07-01", "2025-09-15"),
        labels=("good first issue",),
        comments=[
            ("m", "Good catch, thank you. Fixed on the page."),
        ],
    ),
    issue(
        "k8s-spot",
        "question",
        "What happens to running jobs when a spot node is reclaimed?",
        """
        We run workers on spot instances (GKE). On preemption the node gets ~30s notice. Do the running jobs
        get lost, retried, or stuck?
        """,
        comp=C,
        story=S,
        state="open",
        when=("2025-04-01", "2025-11-01"),
        comments=[
            (
                "m",
                """
             On the notice the kubelet sends SIGTERM; Orbit stops taking jobs and lets running ones finish
             for up to `shutdown_grace_seconds`, then releases the rest back to the queue (no attempt
             consumed). If the node vanishes before that, the jobs come back after `lease_seconds` as
             ORB-1101 and count as a failed attempt. Either way nothing is lost, but jobs should be
             idempotent. Keep `shutdown_grace_seconds` under the preemption notice.""",
            ),
        ],
    ),
    issue(
        "k8s-vague",
        "bug",
        "pods restart loop",
        """
        worker pods go into CrashLoopBackOff right after deploying 3.1.0 to our new cluster. worked in the old one
        """,
        comp=C,
        version="3.1.0",
        story=S,
        state="closed",
        when=("2025-10-17", "2025-11-20"),
        labels=("needs-repro",),
        comments=[
            ("m", "What does `kubectl logs --previous` show for one of them?"),
            (
                "r",
                """
             ```
             ERROR orbit.broker ORB-1401 BrokerUnavailable url=redis://localhost:6379/0 error="ConnectionRefusedError: [Errno 111] Connection refused"
             ```

             localhost?? oh. the secret with ORBIT_BROKER_URL wasn't copied to the new namespace.""",  # noqa: E501 (quoted whole: a log line, or the issue's own line breaks)
            ),
            ("m", "That'd do it. Glad it's sorted."),
        ],
    ),
    issue(
        "k8s-env-override",
        "question",
        "ORBIT_CONCURRENCY env var in the Deployment is ignored",
        """
        We set `ORBIT_CONCURRENCY=4` in the pod env but workers still start 8 children. The logs have an
        `ORB-1802` warning I don't understand. The orbit.toml in the ConfigMap doesn't set concurrency.
        """,
        comp="configuration",
        version="3.0.2",
        story=S,
        state="closed",
        when=("2025-06-20", "2025-09-10"),
        comments=[
            (
                "m",
                """
             Env overrides include the section: `ORBIT_<SECTION>_<KEY>`, so it's `ORBIT_WORKER_CONCURRENCY=4`.
             Unknown `ORBIT_` variables are logged as ORB-1802 UnknownConfigKey at WARNING and ignored
             (in the file they'd be fatal). `orbit doctor --show-config` shows where each value came from.""",
            ),
            ("r", "Fixed, thanks. The warning makes sense now."),
        ],
    ),
    issue(
        "k8s-helm",
        "feature",
        "Official Helm chart for workers and the dashboard",
        """
        Every team here writes its own Deployment, ScaledObject and dashboard Ingress for Orbit. An official
        chart with sane defaults (grace periods, /healthz probe, KEDA optional) would avoid the usual mistakes.
        """,
        comp=C,
        story=S,
        when=("2025-04-01", "2025-11-20"),
        comments=[
            (
                "m",
                """
             We've resisted so far because every org's chart conventions differ and we'd end up maintaining
             a chart nobody uses as-is. The docs page has a reference manifest and a checklist instead.
             Leaving open to gauge interest.""",
            ),
            ("u", "+1, even a minimal chart would help."),
            ("u2", "I'd rather have the manifests kept correct than a chart that lags behind."),
        ],
    ),
    issue(
        "k8s-scale-down",
        "bug",
        "KEDA scale-down keeps interrupting long report jobs",
        """
        With KEDA scaling on queue depth, pods are removed as soon as the queue drains, and running 10-minute
        report jobs get released and restarted elsewhere, sometimes three or four times. Wasted compute and
        the reports are late. cooldownPeriod is KEDA's default.
        """,
        comp=C,
        version="3.1.0",
        story=S,
        state="closed",
        when=("2025-10-18", "2025-11-20"),
        comments=[
            (
                "m",
                """
             Each scale-down is a SIGTERM; with 10-minute jobs and a 30s grace, they get released. Raise
             KEDA's `cooldownPeriod` to several times the job duration (e.g. 1800) and put the report jobs on
             their own queue and Deployment, so the fast queue's scaling doesn't churn them.""",
            ),
            ("r", "Separate deployment + cooldown 1800 solved it."),
        ],
    ),
    issue(
        "k8s-healthz-2x",
        "feature",
        "Health endpoint for worker pods",
        """
        We run 2.8 on Kubernetes and have no good liveness signal for workers. Could the worker serve a tiny
        HTTP health endpoint?
        """,
        comp=C,
        version="2.8.0",
        story=S,
        state="closed",
        when=("2024-02-20", "2024-06-30"),
        comments=[
            ("m", "Planned for 3.0 alongside Prometheus metrics; 2.x won't get it."),
            ("m", "3.0 serves `/healthz` and `/metrics` with `orbit worker --metrics-port`. Closing.", "2025-03-17"),
        ],
    ),
]

DUPLICATES = [
    issue(
        "k8sd-sigterm",
        "bug",
        "Rolling deploy interrupts running jobs; is terminationGracePeriodSeconds 30 too short?",
        """
        During rollouts our 2-minute jobs are cut off and retried later after a lease expiry. Pod grace period
        is the default and Orbit's shutdown grace is default too.
        """,
        comp=C,
        version="3.0.2",
        story=S,
        dup="k8s-sigterm",
        dup_note="The pod's grace period must exceed `shutdown_grace_seconds` by 10–15s.",
    ),
    issue(
        "k8sd-keda",
        "question",
        "KEDA: scale worker pods on queue depth",
        """
        Which Redis key should a KEDA ScaledObject watch to scale Orbit workers by pending jobs?
        """,
        comp=C,
        version="3.0.3",
        story=S,
        dup="k8s-hpa",
        dup_note="`orbit:<app>:q:<queue>` with KEDA's redis scaler; details and an example in the original.",
    ),
    issue(
        "k8sd-pid1",
        "bug",
        "SIGTERM never reaches orbit under an sh -c entrypoint",
        """
        Container runs `sh -c "prepare && orbit worker ..."`. Kubernetes kills it hard at the end of the grace
        period; orbit never logs the shutdown.
        """,
        comp=C,
        version="3.1.0",
        story=S,
        dup="k8s-pid1",
        dup_note="Use `exec orbit worker ...` so Orbit is PID 1 and receives the signal.",
    ),
]
