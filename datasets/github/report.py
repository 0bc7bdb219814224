"""What one `atlas sync github` did: its pages, what was unchanged or left out, the counts it left behind.

The sync fills it (datasets/github/sync.py, the listings' walk in datasets/github/listing.py); `atlas sync`
prints it, and the benchmarks read it.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class SyncReport:
    """What one sync did, for the command's summary and the benchmarks."""

    repo: str
    folder: str
    complete: bool = False
    stopped: str | None = None  # why it stopped early, as a sentence
    pages: dict[str, int] = field(default_factory=dict)
    unchanged: list[str] = field(default_factory=list)  # listings answered 304
    docs_written: int = 0
    docs_removed: int = 0
    code_written: int = 0
    code_removed: int = 0
    releases: int | None = None  # releases written; None: the listing was unchanged (or releases are off)
    discussions: int | None = None  # discussions new or changed; None: discussions are off or were left out
    pull_files: int | None = None  # pull requests whose changed paths were asked; None: left out
    skipped: list[str] = field(default_factory=list)  # sources left out, each as a sentence (the sync went on)
    requests: int = 0
    not_modified: int = 0
    waited_seconds: float = 0.0
    counts: dict[str, int] = field(default_factory=dict)
    reconciled: bool = False  # every issue number was checked against GitHub's listing
    dropped: int = 0  # issues GitHub no longer has here (deleted or transferred), dropped by the reconcile
    kept: bool = False  # a project folder is there to serve (something was synced, now or before)
    github_open: int | None = (
        None  # GitHub's open_issues_count (issues and pull requests), to compare with counts["open"]
    )
