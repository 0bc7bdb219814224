"""A generated GitHub repository for the stand-in: issues with pull requests mixed in, comments,
labels, and a nested docs tree (plus files the sync must skip), all as GitHub's JSON shapes.

Every change goes through methods that bump a clock, so `updated_at` orders changes the way
GitHub's does and listings with `since` behave like GitHub's.
"""

from __future__ import annotations

import random
import threading
from dataclasses import dataclass, field
from typing import Any

from tests.standins.github_git import GitObjects
from tests.standins.github_spec import skeleton

OWNER, NAME = "acme", "rocket"
WORDS = (
    "retry timeout worker queue redis lease heartbeat crash deploy docker cache memory leak scheduler cron "
    "latency metrics webhook signature token config yaml install upgrade python windows macos"
).split()
LABELS = ("bug", "enhancement", "question", "documentation", "duplicate", "good first issue", "area:queue", "area:docs")
DOCS: dict[str, bytes] = {
    "docs/index.md": b"---\ntitle: Rocket overview\n---\n# Welcome\n\nRocket runs "
    b"jobs.\n\n## Install\n\npip install rocket\n",
    "docs/guides/setup.md": b"# Setting up Rocket\n\nIntro.\n\n## Redis\n\nSet ROCKET_REDIS_URL to your server.\n",
    "docs/guides/deep/tuning-workers.md": b"Some text without a heading.\n\n## "
    b"Concurrency\n\nUse 4 workers per core.\n",
    "docs/reference/config.md": b"# Configuration\n\n## lease_seconds\n\nDefault 30.\n",
    "docs/logo.png": b"\x89PNG\r\n\x1a\n\x00\x00binary",
    "docs/broken.md": b"# Broken\n\n\xff\xfe not utf-8 \x00",
    "README.md": b"# Rocket\n",
    "src/rocket/__init__.py": b"print('hi')\n",
}


@dataclass
class Repo(GitObjects):
    """The repository's state; all mutation under `lock`."""

    owner: str = OWNER
    name: str = NAME
    repo_id: int = 4242
    issues: dict[int, dict[str, Any]] = field(default_factory=dict)
    comments: dict[int, dict[str, Any]] = field(default_factory=dict)
    labels: dict[str, dict[str, Any]] = field(default_factory=dict)
    files: dict[str, bytes] = field(default_factory=lambda: dict(DOCS))
    modes: dict[str, str] = field(default_factory=dict)  # a file's git mode when not 100644 (120000: a symlink)
    releases: list[dict[str, Any]] = field(default_factory=list)  # newest first, as GitHub lists them
    discussions: dict[int, dict[str, Any]] = field(default_factory=dict)  # GraphQL Discussion shapes (github_graphql)
    # GraphQL timeline events (github_graphql_issues)
    timeline: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    blobs: dict[str, bytes] = field(default_factory=dict)  # every blob seen, by sha (filled as blobs are asked)
    has_discussions: bool = False  # the repository's Discussions feature (off unless turned on, as on GitHub)
    pull_files: dict[int, list[dict[str, Any]]] = field(default_factory=dict)  # diff entries by PR (github_pulls)
    default_branch: str = "main"
    lock: threading.RLock = field(default_factory=threading.RLock)
    clock: int = 0
    next_comment: int = 900_000
    deleted: set[int] = field(default_factory=set)  # every issue route answers 410 Gone
    moved: dict[int, str] = field(default_factory=dict)  # transferred: every issue route answers 301 to this API path

    @property
    def full_name(self) -> str:
        return f"{self.owner}/{self.name}"

    def url(self, tail: str = "") -> str:
        return f"https://api.github.invalid/repos/{self.full_name}{tail}"

    def html(self, tail: str = "") -> str:
        return f"https://github.com/{self.full_name}{tail}"

    def tick(self) -> str:
        """The next `updated_at`: one second later than the last change."""
        self.clock += 1
        minutes, seconds = divmod(self.clock, 60)
        hours, minutes = divmod(minutes, 60)
        days, hours = divmod(hours, 24)
        return f"2026-{1 + days // 28:02d}-{1 + days % 28:02d}T{hours:02d}:{minutes:02d}:{seconds:02d}Z"

    # -- building ---------------------------------------------------------------------------
    def user(self, login: str) -> dict[str, Any]:
        user = skeleton("simple-user")
        user.update(login=login, id=abs(hash(login)) % 10_000_000, type="User", html_url=f"https://github.com/{login}")
        return user

    def add_label(self, name: str) -> dict[str, Any]:
        label = skeleton("label")
        label.update(
            id=1000 + len(self.labels),
            name=name,
            color="ededed",
            description=None,
            default=False,
            url=self.url(f"/labels/{name}"),
            node_id=f"LA_{len(self.labels)}",
        )
        self.labels[name] = label
        return label

    def add_issue(
        self,
        title: str,
        body: str,
        *,
        author: str = "alice",
        labels: tuple[str, ...] = (),
        pull: bool = False,
        state: str = "open",
    ) -> dict[str, Any]:
        with self.lock:
            number = len(self.issues) + 1
            stamp = self.tick()
            issue = skeleton("issue")
            issue.update(
                id=7_000_000 + number * 13,
                node_id=f"I_{number}",
                number=number,
                title=title,
                body=body,
                state=state,
                user=self.user(author),
                labels=[self.labels[n] for n in labels],
                comments=0,
                locked=False,
                created_at=stamp,
                updated_at=stamp,
                closed_at=stamp if state == "closed" else None,
                state_reason="completed" if state == "closed" else None,
                assignee=None,
                milestone=None,
                url=self.url(f"/issues/{number}"),
                html_url=self.html(f"/{'pull' if pull else 'issues'}/{number}"),
                repository_url=self.url(),
                comments_url=self.url(f"/issues/{number}/comments"),
                events_url=self.url(f"/issues/{number}/events"),
                labels_url=self.url(f"/issues/{number}/labels{{/name}}"),
            )
            if pull:
                issue["pull_request"] = {
                    "url": self.url(f"/pulls/{number}"),
                    "html_url": self.html(f"/pull/{number}"),
                    "diff_url": None,
                    "patch_url": None,
                    "merged_at": stamp if state == "closed" else None,
                }
            self.issues[number] = issue
            return issue

    def add_release(self, tag: str, body: str, *, name: str | None = None) -> dict[str, Any]:
        from tests.standins.github_releases import release

        with self.lock:
            made = release(self, len(self.releases) + 1, tag, name or tag, body, self.tick())
            self.releases.insert(0, made)
            return made

    def add_comment(self, number: int, body: str, *, author: str = "bob") -> dict[str, Any]:
        with self.lock:
            self.next_comment += 1
            stamp = self.tick()
            comment = skeleton("issue-comment")
            comment.update(
                id=self.next_comment,
                node_id=f"IC_{self.next_comment}",
                body=body,
                user=self.user(author),
                created_at=stamp,
                updated_at=stamp,
                url=self.url(f"/issues/comments/{self.next_comment}"),
                html_url=self.html(f"/issues/{number}#issuecomment-{self.next_comment}"),
                issue_url=self.url(f"/issues/{number}"),
                author_association="NONE",
            )
            self.comments[comment["id"]] = comment
            issue = self.issues[number]
            issue["comments"] += 1
            issue["updated_at"] = stamp
            return comment

    def edit_issue(self, number: int, **changes: Any) -> dict[str, Any]:
        with self.lock:
            issue = self.issues[number]
            issue.update(changes)
            issue["updated_at"] = self.tick()
            if changes.get("state") == "closed" and not issue.get("closed_at"):
                issue["closed_at"] = issue["updated_at"]
            if changes.get("state") == "open":  # reopened: GitHub clears closed_at
                issue["closed_at"] = None
            return issue

    def delete_issue(self, number: int) -> None:
        """An issue deleted on GitHub: gone from every listing, with its comments; GET answers 410."""
        with self.lock:
            self.issues.pop(number)
            self.comments = {k: c for k, c in self.comments.items() if not c["issue_url"].endswith(f"/issues/{number}")}
            self.deleted.add(number)

    def transfer_issue(self, number: int, *, to_repo_id: int = 9999, new_number: int = 1) -> None:
        """An issue transferred to another repository: gone from this one's listings; GET answers 301 to it."""
        with self.lock:
            self.issues.pop(number)
            self.comments = {k: c for k, c in self.comments.items() if not c["issue_url"].endswith(f"/issues/{number}")}
            self.moved[number] = f"/repositories/{to_repo_id}/issues/{new_number}"

    def full_repository(self) -> dict[str, Any]:
        repo = skeleton("full-repository")
        repo.update(
            id=self.repo_id,
            name=self.name,
            full_name=self.full_name,
            default_branch=self.default_branch,
            owner=self.user(self.owner),
            html_url=self.html(),
            url=self.url(),
            private=False,
            has_discussions=self.has_discussions,
            open_issues_count=sum(1 for i in self.issues.values() if i["state"] == "open"),
        )  # pull requests too
        return repo


def generate(issues: int = 300, *, comments: int | None = None, pull_every: int = 6, seed: int = 7) -> Repo:
    """A repository with `issues` numbers (every `pull_every`-th a pull request) and about `comments` comments."""
    rng = random.Random(seed)
    repo = Repo()
    for name in LABELS:
        repo.add_label(name)
    for number in range(1, issues + 1):
        words = rng.sample(WORDS, 4)
        pull = number % pull_every == 0
        repo.add_issue(
            f"{words[0].capitalize()} {words[1]} fails with {words[2]} (#{number})",
            f"When I use {words[1]} with {words[3]}, the {words[2]} breaks.\n\nSteps: run it.",
            author=rng.choice(["alice", "bob", "carol", "dave"]),
            pull=pull,
            labels=tuple(rng.sample(LABELS[:4], rng.randint(0, 2))),
            state="closed" if rng.random() < 0.3 else "open",
        )
    total = comments if comments is not None else issues * 2
    for i in range(total):
        number = rng.randint(1, issues)
        repo.add_comment(number, f"Comment {i}: seeing {rng.choice(WORDS)} too.", author=rng.choice(["erin", "frank"]))
    return repo
