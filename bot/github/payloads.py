"""The shape of a GitHub webhook payload, checked at intake before anything is queued (issue 35).

A signed body is GitHub's, but a signature says who sent it, not that it is well formed (a leaked secret,
a proxy, a bug): a `repository` that is a string, an issue numbered -1 or a comment without an id
crashed the job, which was retried four times, or was stored and triaged. These models hold exactly the
fields the worker reads (workers/jobs/github.py, workers/new_issues/, workers/followup/), typed strictly;
the rest of the payload passes through unread. A payload nested past the parser's recursion limit is
refused at parse.
"""

from __future__ import annotations

import json
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr, ValidationError

from atlas.errors import AtlasError


class _Part(BaseModel):
    model_config = ConfigDict(extra="allow", strict=True)


class Repository(_Part):
    full_name: StrictStr
    default_branch: StrictStr | None = None


class User(_Part):
    login: StrictStr


class Label(_Part):
    name: StrictStr


class Issue(_Part):
    number: Annotated[StrictInt, Field(ge=1)]
    id: StrictInt | None = None
    title: StrictStr = ""
    body: StrictStr | None = None
    state: StrictStr | None = None
    state_reason: StrictStr | None = None
    user: User | None = None
    labels: list[Label] = []
    author_association: StrictStr | None = None
    html_url: StrictStr | None = None
    created_at: StrictStr | None = None
    updated_at: StrictStr | None = None
    pull_request: dict[str, Any] | None = None


class Comment(_Part):
    id: Annotated[StrictInt, Field(ge=1)]
    body: StrictStr | None = None
    user: User | None = None
    author_association: StrictStr | None = None
    created_at: StrictStr | None = None
    updated_at: StrictStr | None = None


class Release(_Part):
    tag_name: StrictStr
    name: StrictStr | None = None
    body: StrictStr | None = None
    html_url: StrictStr | None = None


class Commit(_Part):
    added: list[StrictStr] = []
    modified: list[StrictStr] = []
    removed: list[StrictStr] = []


class Delivery(_Part):
    """What every delivery Atlas handles carries."""

    repository: Repository
    action: StrictStr | None = None
    sender: User | None = None


class IssuesDelivery(Delivery):
    issue: Issue


class CommentDelivery(IssuesDelivery):
    comment: Comment


class LabelDelivery(Delivery):
    label: Label
    changes: dict[str, Any] | None = None


class ReleaseDelivery(Delivery):
    release: Release


class PushDelivery(Delivery):
    ref: StrictStr
    commits: list[Commit] | None = None


class RepositoryRef(_Part):
    """A repository an installation lists (GitHub's `{id, node_id, name, full_name, private}`)."""

    full_name: StrictStr


class InstallationRef(_Part):
    id: StrictInt


class InstallationDelivery(_Part):
    """`installation`: created, deleted, suspend, unsuspend (and others Atlas ignores), with the repositories the
    installation covers (GitHub lists them when it selected some; absent: the installation's every one)."""

    action: StrictStr
    installation: InstallationRef
    repositories: list[RepositoryRef] | None = None


class InstallationRepositoriesDelivery(_Part):
    """`installation_repositories`: added or removed, each list of the repositories changed."""

    action: StrictStr | None = None
    installation: InstallationRef | None = None
    repositories_added: list[RepositoryRef] = []
    repositories_removed: list[RepositoryRef] = []


MODELS: dict[str, type[_Part]] = {
    "installation": InstallationDelivery,
    "installation_repositories": InstallationRepositoriesDelivery,
    "issues": IssuesDelivery,
    "issue_comment": CommentDelivery,
    "label": LabelDelivery,
    "release": ReleaseDelivery,
    "push": PushDelivery,
}


class Malformed(AtlasError, ValueError):
    """Why a payload was refused, in a sentence for the 400's body and the log (never a traceback)."""


def parse(body: bytes) -> dict[str, Any]:
    """The JSON object of a body; Malformed when it is not JSON, not an object, or nested too deep."""
    try:
        payload = json.loads(body)
    except RecursionError:  # json's parser refuses at its recursion limit, long before a 100,000-deep body ends
        raise Malformed("nested too deep to be a GitHub payload") from None
    except ValueError:
        raise Malformed("not JSON") from None
    if not isinstance(payload, dict):
        raise Malformed(f"not a JSON object but a JSON {type(payload).__name__}")
    return payload


def check(event: str, payload: dict[str, Any]) -> Any:
    """The payload as the model of its event; Malformed unless it has the shape Atlas reads for this event."""
    model = MODELS.get(event, Delivery)
    try:
        return model.model_validate(payload)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ())) or "payload"
        raise Malformed(f"malformed {event or 'event'} payload: {where}: {first.get('msg')}") from None
