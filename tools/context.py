"""What a tool call may use besides its arguments: the project corpus, the result stash, the run id, the
repositories."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from tools.corpus import Corpus
    from tools.solved_threads import SolvedThreads
    from tools.tracker import Tracker


@dataclass(frozen=True)
class StashPage:
    """One page of a stashed result. Offsets count o200k tokens; `next_offset` is None at the end."""

    text: str
    next_offset: int | None
    total_tokens: int


class ResultStash(Protocol):
    """Long tool results kept outside the transcript (the workers own it, in Redis)."""

    def put(self, text: str) -> str:
        """Keep `text` whole and return its ref, the handle `read_more` pages it by."""
        ...

    def page(self, ref: str, offset: int) -> StashPage | None:
        """The page starting `offset` tokens into the result `ref`; None for an unknown or expired ref."""
        ...


@dataclass(frozen=True)
class RepoScope:
    """The repositories a call may reach now, the run's own (None: all), and how one is opened:
    `open(repo)` gives its corpus and tracker, or why it is not served (removed from the App's installation)."""

    repos: tuple[str, ...]
    repo: str | None
    open: Callable[[str], tuple[Corpus, Tracker | None] | str]  # no tracker: reads only (a lookup)

    def name(self, given: str) -> str | None:
        """`given` as served: OWNER/REPO in any case, or REPO alone when one repository has that name."""
        wanted = given.strip().lower()
        exact = [r for r in self.repos if r.lower() == wanted]
        short = [r for r in self.repos if r.split("/", 1)[1].lower() == wanted]
        if exact:
            return exact[0]
        return short[0] if len(short) == 1 else None


@dataclass(frozen=True)
class ToolContext:
    """Passed to every tool function along with its validated arguments."""

    corpus: Corpus
    stash: ResultStash | None = None
    run_id: str | None = None
    call_id: str | None = None  # set when an approved side-effect call runs: the tracker records it
    tracker: Tracker | None = None  # None: the demo SQLite tracker of corpus.data_dir
    proposed_at: float | None = None  # set when an approved call is checked again: when it was proposed (epoch seconds)
    solved: SolvedThreads | None = None  # approved solved threads (search_history); None: none (the CLI, MCP)
    scope: RepoScope | None = None  # several repositories: which a call may reach (tools/repo_scope.py); None: one
