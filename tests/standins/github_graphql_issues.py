"""The stand-in's GraphQL issues: `Repository.issue(number:)` and its `timelineItems`, for the one question Atlas
asks of them: which issue a duplicate closed in GitHub's UI was marked a duplicate of.

The SDL is the part of GitHub's public schema Atlas reads, with GitHub's names, argument lists and nullability:
`Issue.timelineItems(after, before, first, itemTypes: [IssueTimelineItemsItemType!], last, since, skip)`, the
`IssueTimelineItemsItemType` enum as GitHub lists it, and `MarkedAsDuplicateEvent` / `UnmarkedAsDuplicateEvent`
(`actor`, `canonical` and `duplicate` as `IssueOrPullRequest`, `createdAt`, `id`, `isCrossRepository`). GitHub's
`IssueTimelineItems` union has some thirty members; the stand-in holds only these two, so that is its union.
GitHub's REST timeline says `marked_as_duplicate` with no original; only this event names it (`canonical`).
`Repository.issue` of a pull request's number or of no issue is GitHub's NOT_FOUND error.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tests.standins.github_repo import Repo

ITEM_TYPES = (
    "ADDED_TO_PROJECT_EVENT ASSIGNED_EVENT CLOSED_EVENT "
    "COMMENT_DELETED_EVENT CONNECTED_EVENT CONVERTED_NOTE_TO_ISSUE_EVENT "
    "CONVERTED_TO_DISCUSSION_EVENT CROSS_REFERENCED_EVENT "
    "DEMILESTONED_EVENT DISCONNECTED_EVENT ISSUE_COMMENT LABELED_EVENT "
    "LOCKED_EVENT MARKED_AS_DUPLICATE_EVENT MENTIONED_EVENT MILESTONED_EVENT MOVED_COLUMNS_IN_PROJECT_EVENT "
    "PARENT_ISSUE_ADDED_EVENT PARENT_ISSUE_REMOVED_EVENT PINNED_EVENT REFERENCED_EVENT REMOVED_FROM_PROJECT_EVENT "
    "RENAMED_TITLE_EVENT REOPENED_EVENT SUBSCRIBED_EVENT "
    "SUB_ISSUE_ADDED_EVENT SUB_ISSUE_REMOVED_EVENT TRANSFERRED_EVENT "
    "UNASSIGNED_EVENT UNLABELED_EVENT UNLOCKED_EVENT UNMARKED_AS_DUPLICATE_EVENT UNPINNED_EVENT UNSUBSCRIBED_EVENT "
    "USER_BLOCKED_EVENT"
)
HELD = {
    "MARKED_AS_DUPLICATE_EVENT": "MarkedAsDuplicateEvent",
    "UNMARKED_AS_DUPLICATE_EVENT": "UnmarkedAsDuplicateEvent",
}
EVENT_FIELDS = """
  actor: Actor
  canonical: IssueOrPullRequest
  createdAt: DateTime!
  duplicate: IssueOrPullRequest
  id: ID!
  isCrossRepository: Boolean!
"""

SDL = f"""
type Issue {{
  id: ID!
  number: Int!
  repository: Repository!
  timelineItems(after: String, before: String, first: Int, itemTypes: [IssueTimelineItemsItemType!], last: Int,
                since: DateTime, skip: Int): IssueTimelineItemsConnection!
  title: String!
  url: URI!
}}

type PullRequest {{
  id: ID!
  number: Int!
  repository: Repository!
  title: String!
  url: URI!
}}

union IssueOrPullRequest = Issue | PullRequest

enum IssueTimelineItemsItemType {{ {ITEM_TYPES} }}

union IssueTimelineItems = MarkedAsDuplicateEvent | UnmarkedAsDuplicateEvent

type MarkedAsDuplicateEvent {{{EVENT_FIELDS}}}

type UnmarkedAsDuplicateEvent {{{EVENT_FIELDS}}}

type IssueTimelineItemsConnection {{
  edges: [IssueTimelineItemsEdge]
  filteredCount: Int!
  nodes: [IssueTimelineItems]
  pageCount: Int!
  pageInfo: PageInfo!
  totalCount: Int!
  updatedAt: DateTime!
}}

type IssueTimelineItemsEdge {{
  cursor: String!
  node: IssueTimelineItems
}}
"""


class NotFound(LookupError):
    """GitHub's NOT_FOUND error for `Repository.issue` (the caller types it)."""


def issue_node(repo: Repo, number: int, connection: Any) -> dict[str, Any]:
    """Issue #number as GitHub's GraphQL Issue; `connection` pages its timeline (github_graphql._connection)."""
    raw = repo.issues.get(number)
    if raw is None or "pull_request" in raw:
        raise NotFound(f"Could not resolve to an Issue with the number of {number}.")

    def timeline(info: Any, **args: Any) -> dict[str, Any]:
        wanted = {HELD[t] for t in args.get("itemTypes") or HELD if t in HELD}
        events = [e for e in repo.timeline.get(number, []) if e["__typename"] in wanted]
        page = connection("timelineItems", [(e["createdAt"], e["id"], e) for e in events], args)
        return {**page, "filteredCount": len(events), "pageCount": len(page["nodes"]), "updatedAt": raw["updated_at"]}

    return {
        "__typename": "Issue",
        "id": raw["node_id"],
        "number": number,
        "title": raw["title"],
        "url": raw["html_url"],
        "repository": {"nameWithOwner": repo.full_name},
        "timelineItems": timeline,
    }


def _subject(repo: Repo, number: int, other: str | None) -> dict[str, Any]:
    """An IssueOrPullRequest: one of this repository's, or an issue of another (`owner/name`)."""
    if other is not None:
        return {
            "__typename": "Issue",
            "id": f"I_{other}_{number}",
            "number": number,
            "title": f"{other}#{number}",
            "url": f"https://github.com/{other}/issues/{number}",
            "repository": {"nameWithOwner": other},
        }
    raw = repo.issues[number]
    kind = "PullRequest" if "pull_request" in raw else "Issue"
    return {
        "__typename": kind,
        "id": raw["node_id"],
        "number": number,
        "title": raw["title"],
        "url": raw["html_url"],
        "repository": {"nameWithOwner": repo.full_name},
    }


def close_as_duplicate(
    repo: Repo,
    number: int,
    canonical: int,
    *,
    actor: str = "maria",
    canonical_repo: str | None = None,
    unmarked: bool = False,
) -> dict[str, Any]:
    """What "Close as duplicate of ..." in GitHub's UI does: a MarkedAsDuplicateEvent naming `canonical` (of
    `canonical_repo`, default this one) on the issue's timeline, and the issue closed with state_reason "duplicate"
    and no comment. `unmarked`: the mark undone since (an UnmarkedAsDuplicateEvent after it)."""
    with repo.lock:
        events = repo.timeline.setdefault(number, [])
        for kind in ("MarkedAsDuplicateEvent", *(("UnmarkedAsDuplicateEvent",) if unmarked else ())):
            events.append(
                {
                    "__typename": kind,
                    "id": f"MADE_{number}_{len(events)}",
                    "createdAt": repo.tick(),
                    "actor": {"login": actor, "url": f"https://github.com/{actor}"},
                    "isCrossRepository": canonical_repo is not None and canonical_repo != repo.full_name,
                    "canonical": _subject(
                        repo, canonical, canonical_repo if canonical_repo != repo.full_name else None
                    ),
                    "duplicate": _subject(repo, number, None),
                }
            )
        return repo.edit_issue(number, state="closed", state_reason="duplicate")
