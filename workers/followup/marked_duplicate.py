"""The original of a duplicate closed in GitHub's UI ("Close as duplicate of ..."), which leaves no "Duplicate of #N".

GitHub's REST timeline says `marked_as_duplicate` and names no original; only GraphQL's `MarkedAsDuplicateEvent`
does (`canonical`, an `IssueOrPullRequest`). So one small query (through githubkit's GraphQL client and the sync's
Fetcher: failures mapped, a rate limit not waited out) asks for the issue's last duplicate mark or unmark. The
original is named only when it is in the same repository: a triage outcome and a notice's "#N" mean this
repository's issue, so a cross-repository canonical (`isCrossRepository`) is not named at all, and neither is a
mark undone since (an `UnmarkedAsDuplicateEvent` last). Any failure or empty answer is None: the notice says
"as a duplicate" as before and learning records an unknown original (a log line says why; nothing is retried
here, the webhook job goes on).
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from atlas import github_client
from atlas.errors import AtlasError
from atlas.project_settings import GitHubSettings
from datasets.github.fetch import Fetcher
from datasets.github.store import Store
from datasets.sync_progress import Silent

log = logging.getLogger("atlas.followup")

# Field names as GitHub's public schema has them (Repository.issue, Issue.timelineItems, MarkedAsDuplicateEvent).
QUERY = """
query($owner: String!, $name: String!, $number: Int!) {
  repository(owner: $owner, name: $name) {
    issue(number: $number) {
      timelineItems(last: 1, itemTypes: [MARKED_AS_DUPLICATE_EVENT, UNMARKED_AS_DUPLICATE_EVENT]) {
        nodes {
          __typename
          ... on MarkedAsDuplicateEvent {
            isCrossRepository
            canonical {
              ... on Issue { number repository { nameWithOwner } }
              ... on PullRequest { number repository { nameWithOwner } }
            }
          }
        }
      }
    }
  }
}
"""


def original(gh: GitHubSettings, folder: Path, number: int) -> int | None:
    """The same-repository issue #number was last marked a duplicate of, by GitHub's timeline; None when there is
    none, it is another repository's, or GitHub could not be asked."""
    store = Store(folder)
    try:
        fetch = Fetcher(github_client.client(gh), store, gh.repo, Silent(), wait=False)
        data = fetch.graphql(
            QUERY,
            {"owner": gh.owner, "name": gh.name, "number": number},
            doing=f"read the duplicate mark of #{number} of",
            needs=github_client.READ_ISSUES,
        )
    except AtlasError as exc:  # GitHubFailure (rate limit, permission, outage), GitHubConfigError
        log.warning("the original of duplicate %s#%s is not known: %s", gh.repo, number, exc)
        return None
    finally:
        store.close()
    return canonical_in(data, gh.repo)


def canonical_in(data: Any, repo: str) -> int | None:
    """The canonical issue's number in the query's answer, when the last event is a mark within `repo`."""
    issue = ((data or {}).get("repository") or {}).get("issue") if isinstance(data, dict) else None
    nodes = ((issue or {}).get("timelineItems") or {}).get("nodes") if isinstance(issue, dict) else None
    last = nodes[-1] if isinstance(nodes, list) and nodes else None
    if (
        not isinstance(last, dict)
        or last.get("__typename") != "MarkedAsDuplicateEvent"
        or last.get("isCrossRepository")
    ):
        return None
    canonical = last.get("canonical")
    if not isinstance(canonical, dict) or not isinstance(canonical.get("number"), int):
        return None
    where = str((canonical.get("repository") or {}).get("nameWithOwner") or "")
    return int(canonical["number"]) if where.lower() == repo.lower() else None
