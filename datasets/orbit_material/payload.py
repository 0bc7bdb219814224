"""Payload issues: ORB-1501 over max_payload_kb ("pass ids, not blobs") and ORB-1502 serialization."""

from __future__ import annotations

from .model import issue

S = "payload"
C = "payloads"

SPECS = [
    issue(
        "pay-pdf",
        "bug",
        "ORB-1501 PayloadTooLarge when enqueuing generated PDF bytes",
        """
        We generate account statements in the web request and hand the PDF to a job that emails it:

        ```
        {{tb:payload_too_large}}
        ```

        Statements are 300 KB to several MB. Is there a way to allow bytes payloads bigger than 256 KB, or
        should the job get the PDF some other way?
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
             The other way, please: pass an id or a storage key, not the file. Either render the PDF inside
             the job (`render_statement.enqueue(account_id=acct.id)`), or upload it to object storage in the
             request and enqueue the key. Payloads sit in broker memory for as long as a job is queued,
             retried or dead-lettered; megabyte payloads make Redis memory and the dashboard miserable.""",
            ),
            ("r", "Moved rendering into the job. Simpler, actually."),
        ],
    ),
    issue(
        "pay-raise",
        "question",
        "Can max_payload_kb be raised to 10 MB?",
        """
        We have a legitimate use (ML feature vectors, ~3–8 MB per job, no natural storage for them). Is
        `max_payload_kb = 10240` supported, and what breaks?
        """,
        comp=C,
        version="3.0.2",
        story=S,
        state="open",
        when=("2025-06-20", "2025-09-20"),
        comments=[
            (
                "m",
                """
             Supported: set it app-wide, and make sure producers and workers use the same value. `orbit
             doctor` checks it against what the broker accepts in one value. What gets worse: Redis memory
             (a backlog of 10k such jobs is 80 GB), latency of every move (enqueue, fetch, retry), and the
             dashboard's job view. If there's any object store around, passing keys is still the better
             design.""",
            ),
            ("r", "We'll try 10 MB with a small queue and move to S3 if it hurts."),
        ],
    ),
    issue(
        "pay-datetime",
        "bug",
        "ORB-1502 SerializationError for a datetime argument",
        """
        After upgrading to 3.0.0 our digest job fails at enqueue time:

        ```
        {{tb:serialize_datetime}}
        ```

        This worked on 2.x.
        """,
        comp=C,
        version="3.0.0",
        story=S,
        state="closed",
        when=("2025-03-20", "2025-05-10"),
        comments=[
            (
                "m",
                """
             2.x defaulted to pickle, 3.0 defaults to json, which has no datetime type. Pass
             `since=last_sent.isoformat()` and parse it in the job with `datetime.fromisoformat`. If you
             can't change the callers yet, `migrate-config` pins `serializer = "pickle"` for a 2.x config,
             but pickle is deprecated.""",
            ),
            ("r", "isoformat it is, thanks."),
        ],
    ),
    issue(
        "pay-decimal",
        "bug",
        "msgpack serializer can't encode Decimal either (ORB-1502)",
        """
        We switched to msgpack hoping it handles more types than json, but money amounts fail:

        ```
        {{tb:serialize_decimal}}
        ```
        """,
        comp=C,
        version="3.0.3",
        story=S,
        state="open",
        when=("2025-08-28", "2025-10-30"),
        comments=[
            (
                "m",
                """
             msgpack handles JSON types plus bytes, and non-string dict keys; Decimal isn't among them. Send
             `str(order.total)` (or integer cents) and convert back in the job. Converting to float would lose
             precision, so don't.""",
            ),
        ],
    ),
    issue(
        "pay-pickle-migrate",
        "question",
        "Moving from pickle to json without breaking jobs already queued",
        """
        We have ~30k delayed jobs (retries with long backoff) pickled by 2.9.4 producers. If we switch
        `serializer` to json on 3.0.1, will workers fail to read the old ones?
        """,
        comp=C,
        version="3.0.1",
        story=S,
        state="closed",
        when=("2025-05-01", "2025-07-30"),
        comments=[
            (
                "m",
                """
             No: each job records the serializer that encoded it and workers decode by that record, not by
             their own setting. Switch producers to json, keep the pickle-decoding ability on workers
             (it's built in), and once the queues and dead-letter queues hold no pickled jobs you're done.""",
            ),
            ("r", "Did it last week, zero failures. 👍"),
        ],
    ),
    issue(
        "pay-result",
        "bug",
        "Job result replaced by a placeholder, ORB-1501 direction=result in worker log",
        """
        The dashboard shows `<result too large: 1203 KB>` for our export job and the worker logs:

        ```
        WARNING orbit.worker ORB-1501 PayloadTooLarge job=exports.jobs.build_ledger size_kb=1203 max_payload_kb=256 direction=result
        ```

        The job did succeed. Is the result lost? We read it from the caller with the job handle.
        """,  # noqa: E501 (quoted whole: a log line, or the issue's own line breaks)
        comp=C,
        version="3.1.0",
        story=S,
        state="open",
        when=("2025-10-16", "2025-11-20"),
        comments=[
            (
                "m",
                """
             Return values count against `max_payload_kb` too; an oversized result is replaced by the
             placeholder and the job still succeeds. So yes, the data isn't stored. Return a summary with a
             storage key (`{"rows": 18234, "key": "exports/..."}`) instead; it also keeps worker memory flat.""",
            ),
        ],
    ),
    issue(
        "pay-vague",
        "bug",
        "PayloadTooLarge but my data is tiny",
        """
        enqueue raises PayloadTooLarge, I only pass a list of ids. 3.0.3
        """,
        comp=C,
        version="3.0.3",
        story=S,
        state="open",
        when=("2025-09-01", "2025-11-01"),
        labels=("needs-repro",),
        comments=[
            ("m", "How many ids? The error line has `size_kb=`; each id in JSON costs its digits plus a comma."),
            ("r", "oh. 60k ids. ok i'll pass the filter instead"),
        ],
    ),
    issue(
        "pay-compress",
        "feature",
        "Optional zstd compression for large payloads",
        """
        Many of our payloads are repetitive JSON (~400 KB) that would compress 10×. A
        `[payload] compression = "zstd"` option would keep us under `max_payload_kb` without code changes.
        """,
        comp=C,
        version="3.0.3",
        story=S,
        when=("2025-09-05", "2025-11-20"),
        comments=[
            (
                "m",
                """
             It would hide the symptom rather than the cause, and we'd have to decide whether the limit
             applies before or after compression. We're not against it in principle, but passing references
             remains the recommendation. Leaving open for input.""",
            ),
            ("u", "If it comes, the limit should apply to the compressed size, that's what the broker stores."),
        ],
    ),
    issue(
        "pay-docs-s3",
        "docs",
        "Payloads page: show the ids-not-blobs pattern with object storage",
        """
        The payloads page says "pass ids, not blobs" but only shows a database example. Uploads and
        generated exports have no database row; an S3 example (upload, enqueue the key, delete after) would
        cover the common case.
        """,
        comp=C,
        version="3.0.0",
        story=S,
        state="closed",
        when=("2025-03-25", "2025-05-30"),
        labels=("good first issue",),
        comments=[
            ("u", "Also mention cleanup, we forgot and filled a bucket."),
            ("m", "Added an object-storage example to the page. Thanks both."),
        ],
    ),
    issue(
        "pay-cli",
        "question",
        "`orbit enqueue --kwargs` fails with ORB-1501 for a backfill file",
        """
        For a one-off backfill I tried `orbit enqueue ... --kwargs "$(cat accounts.json)"` with ~9k account ids
        and got ORB-1501. Is there a CLI flag to bypass the limit for manual runs?
        """,
        comp="cli",
        version="3.0.2",
        story=S,
        state="open",
        when=("2025-06-20", "2025-09-30"),
        comments=[
            (
                "m",
                """
             No bypass; the CLI applies the same check as `enqueue()` in Python, since workers would have
             the same problem. Split the file (`jq -c '_nwise(500)'` piped into a loop), or enqueue one job
             per account.""",
            ),
        ],
    ),
    issue(
        "pay-2x-limit",
        "question",
        "No payload limit in 2.x, now ORB-1501 after upgrading to 3.0",
        """
        Some of our jobs carried 1–2 MB payloads on 2.9.4 without problems. After the 3.0 upgrade they
        fail at enqueue with PayloadTooLarge. Is the 256 KB limit new?
        """,
        comp="upgrading-from-2x",
        version="3.0.0",
        story=S,
        state="closed",
        when=("2025-03-20", "2025-05-30"),
        comments=[
            (
                "m",
                """
             Yes, `[payload] max_payload_kb` (default 256) is new in 3.0. You can raise it app-wide, but the
             limit exists because multi-MB payloads hurt the broker; passing ids or storage keys is the
             recommended fix.""",
            ),
            ("r", "Raised to 2048 for now, refactoring the two jobs."),
        ],
    ),
    issue(
        "pay-tuples",
        "question",
        "Tuples arrive as lists and int dict keys as strings in my job",
        """
        `summarize.enqueue(period=(2025, 10), totals={7: 1250})` → inside the job `period == [2025, 10]` and
        `totals == {"7": 1250}`. Bug?
        """,
        comp=C,
        version="3.0.1",
        story=S,
        state="open",
        when=("2025-05-01", "2025-08-30"),
        comments=[
            (
                "m",
                """
             That's JSON: no tuples, and object keys are strings. It's listed under "JSON gotchas" on the
             payloads page. msgpack keeps non-string keys if that matters to you.""",
            ),
        ],
    ),
]

DUPLICATES = [
    issue(
        "payd-pdf",
        "bug",
        "Passing a rendered invoice PDF to a job raises ORB-1501",
        """
        `send_invoice.enqueue(invoice_id=..., pdf=pdf_bytes)` fails with PayloadTooLarge for most invoices.
        orbit 3.0.2. Can the limit be disabled?
        """,
        comp=C,
        version="3.0.2",
        story=S,
        dup="pay-pdf",
        dup_note="Render the PDF inside the job or pass a storage key instead of the bytes.",
    ),
    issue(
        "payd-datetime",
        "bug",
        "json serializer refuses a datetime kwarg → ORB-1502 at enqueue",
        """
        Enqueueing `remind.enqueue(at=datetime.now())` raises SerializationError since 3.0. Worked before.
        """,
        comp=C,
        version="3.0.0",
        story=S,
        dup="pay-datetime",
        dup_note="Pass an ISO string; json has no datetime type.",
    ),
    issue(
        "payd-2x",
        "bug",
        "Upgraded 2.9 → 3.0: enqueue now rejects our 1 MB payloads",
        """
        After upgrading, jobs that worked for years fail with ORB-1501. Did 3.0 add a size limit?
        """,
        comp="upgrading-from-2x",
        version="3.0.1",
        story=S,
        dup="pay-2x-limit",
        dup_note="`max_payload_kb` is new in 3.0 (default 256).",
    ),
]
