"""Worker memory growth on 3.0.x (msgpack, large results) and the recycling settings around it."""

from __future__ import annotations

from .model import issue

S = "memory"
C = "workers"

SPECS = [
    issue(
        "mem-msgpack",
        "bug",
        "Worker RSS grows steadily with serializer = msgpack (3.0.1)",
        """
        Since switching `[payload] serializer` from json to msgpack (for speed) our worker children grow by
        roughly 150–250 MB per hour until we restart them. Same jobs on json: flat.

        ```
        {{logs:memory}}
        ```

        Jobs are small (a few ids in, a dict of ~50 keys out). Nothing cached on our side as far as I can tell.

        {{env}}
        """,
        comp=C,
        version="3.0.1",
        story=S,
        state="closed",
        when=("2025-05-05", "2025-06-10"),
        labels=("confirmed",),
        comments=[
            (
                "m",
                """
             Reproduced with a synthetic job returning a 50-key dict: the msgpack result encoder keeps a
             growing internal buffer per child. Workaround until a fix: set
             `max_jobs_per_child = 1000` and/or `max_memory_mb` around 1.5× the child's normal RSS; recycles
             happen between jobs and lose nothing.""",
            ),
            ("r", "max_memory_mb = 600 keeps us stable. Sawtooth graph, but stable."),
            ("u", "Seeing the same on 3.0.2 with msgpack. Workaround works."),
            ("m", "The encoder now resets its buffer after each result. Fixed in 3.1.0.", "2025-10-14"),
        ],
    ),
    issue(
        "mem-large-results",
        "bug",
        "Memory keeps climbing when jobs return large results",
        """
        Our export job returns the generated rows (a list of ~200k dicts, so maybe 60 MB as JSON) so the
        caller can fetch them later. After a few hundred runs each child sits at 3–4 GB. orbit 3.0.0,
        default json serializer, concurrency 4.
        """,
        comp=C,
        version="3.0.0",
        story=S,
        state="closed",
        when=("2025-03-25", "2025-05-15"),
        comments=[
            (
                "m",
                """
             Return values are encoded in the child before they're stored, and encoding a 60 MB structure
             leaves the allocator with fragmented arenas it rarely gives back to the OS. Two fixes: don't
             return big data (write the rows to object storage and return the key; results also count
             against the broker's memory), and set `max_memory_mb` so children get recycled.""",
            ),
            ("r", "We now return an S3 key. Children stay under 400 MB."),
        ],
    ),
    issue(
        "mem-1701-q",
        "question",
        "Does ORB-1701 WorkerMemoryLimit lose the job that was running?",
        """
        We're about to set `max_memory_mb = 1024`. When a child goes over and gets recycled, what happens to
        the job it was running? Retried? Lost?
        """,
        comp=C,
        story=S,
        state="open",
        when=("2025-03-20", "2025-11-10"),
        comments=[
            (
                "m",
                """
             Neither: the limit is checked after a job finishes. The child acknowledges the job normally,
             logs ORB-1701, exits, and the parent forks a replacement. Nothing is retried. The only case it
             doesn't cover is a single job that allocates far beyond the limit; that one gets OOM-killed by
             the kernel mid-run and comes back after its lease.""",
            ),
        ],
    ),
    issue(
        "mem-k8s-oom",
        "bug",
        "Worker pods OOMKilled every ~6 hours",
        """
        EKS, worker pods with `limits.memory: 2Gi`, `concurrency = 8`. Every 5–7 hours a pod gets OOMKilled
        (exit 137) and a handful of jobs come back later with ORB-1101. RSS per child goes from ~180 MB at
        start to ~250 MB, which times 8 plus the parent is right at the limit.
        """,
        comp="kubernetes",
        version="3.0.2",
        story=S,
        state="closed",
        when=("2025-06-20", "2025-09-20"),
        comments=[
            (
                "m",
                """
             With 8 children at 250 MB you're at the limit even without any leak. Set
             `max_memory_mb` so `concurrency × max_memory_mb` + the parent fits under the container limit,
             e.g. `max_memory_mb = 220` for 2Gi, or give the pod more memory. Orbit recycling a child between
             jobs is harmless; the kernel killing the whole pod mid-job is not.""",
            ),
            ("r", "Went to 3Gi and max_memory_mb = 300. No OOM kills in a week."),
        ],
    ),
    issue(
        "mem-tracemalloc",
        "bug",
        "tracemalloc points at the msgpack encoder for worker memory growth",
        """
        Following up on the msgpack growth others reported. I ran one child with `PYTHONTRACEMALLOC=25` and
        compared snapshots 30 minutes apart:

        ```
        orbit/payload/serializers.py:91: size=412 MiB (+401 MiB), count=1843 (+1790), average=229 KiB
        orbit/worker/child.py:264: size=18.2 MiB (+17.9 MiB), count=1851 (+1797), average=10 KiB
        msgpack/fallback.py:886: size=1.1 MiB (+0.2 MiB), count=40 (+7), average=28 KiB
        ```

        serializers.py:91 is the `packb` call for results. The count grows by one per job.
        """,
        comp=C,
        version="3.0.2",
        story=S,
        state="closed",
        when=("2025-06-20", "2025-07-25"),
        comments=[
            (
                "m",
                """
             This is very helpful and confirms the analysis in #[mem-msgpack]: one retained buffer per
             result. We'll fix it there; thanks for the numbers.""",
            ),
            ("m", "Fixed in 3.1.0.", "2025-10-14"),
        ],
    ),
    issue(
        "mem-max-jobs",
        "question",
        "max_jobs_per_child = 50 cut our throughput in half",
        """
        We set `max_jobs_per_child = 50` as a safety net and throughput dropped from ~300 to ~150 jobs/s.
        Is recycling that expensive? Jobs are tiny (cache invalidation).
        """,
        comp=C,
        version="3.0.3",
        story=S,
        state="open",
        when=("2025-08-30", "2025-10-30"),
        comments=[
            (
                "m",
                """
             For millisecond jobs, 50 means a fork every fraction of a second per child, and each new child
             re-establishes its broker connections and warms up. Use something like 5,000–10,000 for tiny
             jobs, or rely on `max_memory_mb` alone. Also try `prefetch = 10` for this queue; for very short
             jobs it saves a round trip per job.""",
            ),
            ("r", "10k and prefetch 10: 340 jobs/s. Thanks."),
        ],
    ),
    issue(
        "mem-vague",
        "bug",
        "memory leak?",
        """
        worker process uses 6GB after a few days. is that normal? 3.0.3
        """,
        comp=C,
        version="3.0.3",
        story=S,
        state="closed",
        when=("2025-08-28", "2025-10-30"),
        labels=("needs-repro",),
        comments=[
            (
                "m",
                """
             Not normal. Which serializer, and is it the parent or the children? (`ps -o pid,rss,cmd`
             under the worker.) Meanwhile `max_memory_mb` bounds it.""",
            ),
            ("m", "No reply for a month, closing. Reopen with the details if it persists."),
        ],
    ),
    issue(
        "mem-pickle-2x",
        "bug",
        "2.9 worker memory grows when using the pickle serializer",
        """
        On 2.9.1 with `serializer = "pickle"` our workers grow to several GB over a week. It's fine with json
        but we pass numpy arrays between jobs so json isn't an option.
        """,
        comp=C,
        version="2.9.1",
        story=S,
        state="closed",
        when=("2024-08-26", "2024-12-20"),
        labels=("wontfix",),
        comments=[
            (
                "m",
                """
             2.9 only gets security fixes now, and pickle will be deprecated in 3.0 (it's also a remote code
             execution risk if anyone can write to your broker). For arrays, store them in object storage
             and pass the key, or use msgpack with a small ext hook. Recycling children
             (`max_tasks_per_child` in 2.x) bounds the growth in the meantime.""",
            ),
        ],
    ),
    issue(
        "mem-rss-metric",
        "feature",
        "Export child RSS as a metric",
        """
        We'd like to graph worker child memory without scraping `ps`. A gauge per child on the metrics
        endpoint would be enough.
        """,
        comp="monitoring",
        version="2.9.3",
        story=S,
        state="closed",
        when=("2024-12-15", "2025-02-25"),
        comments=[
            ("m", "Planned for 3.0 together with the new metrics endpoint."),
            ("m", "3.0 exports `orbit_child_rss_bytes` on `--metrics-port`. Closing.", "2025-03-17"),
        ],
    ),
    issue(
        "mem-sighup",
        "question",
        "Is a nightly SIGHUP a safe way to reclaim worker memory?",
        """
        Instead of tuning `max_memory_mb` per service, we'd like to send SIGHUP to all workers at 04:00. Does
        that interrupt jobs?
        """,
        comp=C,
        version="3.1.0",
        story=S,
        state="open",
        when=("2025-10-20", "2025-11-20"),
        comments=[
            (
                "m",
                """
             SIGHUP recycles each child one at a time after its current job finishes, so nothing is
             interrupted. It's a fine approach; just be aware it also picks up new code on disk, which can
             surprise you if a deploy is half-finished at 04:00.""",
            ),
        ],
    ),
    issue(
        "mem-310-json",
        "bug",
        "RSS still grows on 3.1.0 with the json serializer",
        """
        We upgraded to 3.1.0 hoping the memory fix would help, but our children still grow ~50 MB/hour. json
        serializer, jobs return None. Attaching `tracemalloc` top 3 after 2h:

        ```
        app/pricing/rules.py:212: size=301 MiB (+298 MiB), count=412310 (+409877), average=766 B
        orbit/worker/child.py:264: size=0.6 MiB (+0.0 MiB), count=30 (+0), average=20 KiB
        ```
        """,
        comp=C,
        version="3.1.0",
        story=S,
        state="closed",
        when=("2025-10-16", "2025-11-20"),
        comments=[
            ("m", "The growth is in `app/pricing/rules.py:212`, your code, not Orbit's. What's on that line?"),
            ("r", "`@functools.lru_cache(maxsize=None)` on a function keyed by (customer, timestamp). Oops. Thanks."),
        ],
    ),
]

DUPLICATES = [
    issue(
        "memd-msgpack",
        "bug",
        "msgpack serializer: child RSS climbs for hours and never drops",
        """
        Worker children on 3.0.2 grow without bound after we enabled msgpack. json doesn't show it. Anyone
        else seeing this?
        """,
        comp=C,
        version="3.0.2",
        story=S,
        dup="mem-msgpack",
        dup_note="Workaround: `max_jobs_per_child` / `max_memory_mb` until the fix is released.",
    ),
    issue(
        "memd-results",
        "bug",
        "Large job results make worker memory balloon on 3.0.0",
        """
        A job returning a large list of rows leaves each child at several GB after a while, 3.0.0.
        """,
        comp=C,
        version="3.0.0",
        story=S,
        dup="mem-large-results",
        dup_note="Return a storage key instead of the data, and bound children with `max_memory_mb`.",
    ),
    issue(
        "memd-oom",
        "bug",
        "Pods get OOMKilled periodically as RSS creeps up to the container limit",
        """
        Our worker Deployment has pods dying with exit code 137 a few times a day; memory graphs show the
        pod creeping to the limit. concurrency 8, limit 2Gi, orbit 3.0.2.
        """,
        comp="kubernetes",
        version="3.0.2",
        story=S,
        dup="mem-k8s-oom",
        dup_note="Size `max_memory_mb` so all children fit under the container limit.",
    ),
]
