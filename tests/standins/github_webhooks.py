"""Webhook deliveries as GitHub sends them: payloads valid against GitHub's description, signed."""

from __future__ import annotations

import copy
import functools
import hashlib
import hmac
import json
import uuid
from typing import Any
from urllib.error import HTTPError
from urllib.request import Request, urlopen

from tests.standins import github_spec
from tests.standins.github_repo import Repo

SECRET = "webhook-secret-for-tests"


@functools.cache
def _skeleton(name: str) -> Any:
    schema = github_spec.spec()["x-webhooks"][name]["post"]["requestBody"]["content"]["application/json"]["schema"]
    return github_spec._fill(schema, 0)


def payload(name: str, repo: Repo, **parts: Any) -> dict[str, Any]:
    """The `name` webhook (`issues-edited`, `push`, ...) for `repo`, with `parts` overlaid, validated."""
    body = copy.deepcopy(_skeleton(name))
    if isinstance(body.get("repository"), dict):
        body["repository"].update(
            {
                "id": repo.repo_id,
                "name": repo.name,
                "full_name": repo.full_name,
                "default_branch": repo.default_branch,
                "html_url": repo.html(),
            }
        )
    for key, value in parts.items():
        if isinstance(value, dict) and isinstance(body.get(key), dict):
            _overlay(body[key], value)
        else:
            body[key] = value
    github_spec.check_webhook(name, body)
    return body


SCALARS = (
    "number",
    "id",
    "title",
    "body",
    "state",
    "state_reason",
    "html_url",
    "url",
    "issue_url",
    "created_at",
    "updated_at",
    "closed_at",
    "name",
    "color",
    "description",
)


def _overlay(target: dict[str, Any], source: dict[str, Any]) -> None:
    """Copy the fields Atlas reads (and the user's login, the label names) onto a schema-valid object."""
    for key in SCALARS:
        if key in source:
            target[key] = source[key]
    if isinstance(source.get("user"), dict) and isinstance(target.get("user"), dict):
        target["user"]["login"] = source["user"].get("login")
    if "labels" in source:
        template = github_spec._fill(_label_schema(), 0)
        target["labels"] = [
            {**template, "name": label["name"], "id": label["id"], "color": label["color"]}
            for label in source["labels"]
        ]
    for key, value in source.items():
        if key not in target and key not in ("user", "labels", "pull_request"):
            target[key] = value


@functools.cache
def _label_schema() -> Any:
    issue = github_spec.spec()["x-webhooks"]["issues-edited"]["post"]["requestBody"]["content"]["application/json"][
        "schema"
    ]
    node = github_spec._resolve(issue)
    issue_schema = github_spec._resolve(node["properties"]["issue"])
    labels = issue_schema.get("properties", {}).get("labels") or {"items": {}}
    labels = github_spec._resolve(labels)
    if "anyOf" in labels:
        labels = labels["anyOf"][0]
    return labels.get("items", {})


def deliver(
    url: str,
    event: str,
    body: dict[str, Any] | bytes,
    *,
    secret: str | None = SECRET,
    delivery: str | None = None,
    signature: str | None = None,
) -> tuple[int, str]:
    """POST a delivery; returns (status, text). `signature` overrides the computed one."""
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    headers = {
        "Content-Type": "application/json",
        "X-GitHub-Event": event,
        "X-GitHub-Delivery": delivery or str(uuid.uuid4()),
        "User-Agent": "GitHub-Hookshot/test",
    }
    if signature is not None:
        headers["X-Hub-Signature-256"] = signature
    elif secret is not None:
        headers["X-Hub-Signature-256"] = "sha256=" + hmac.new(secret.encode(), raw, hashlib.sha256).hexdigest()
    try:
        with urlopen(Request(url, data=raw, headers=headers, method="POST"), timeout=10) as response:
            return response.status, response.read().decode()
    except HTTPError as exc:
        return exc.code, exc.read().decode()


def sent_by(body: dict[str, Any], login: str, *, kind: str = "User") -> dict[str, Any]:
    """`body` as sent when `login` acted: `kind` "Bot" for an App or an Actions workflow (`github-actions[bot]`,
    a stale bot), as GitHub marks them in `sender.type`."""
    body["sender"].update(login=login, type=kind)
    return body


def commented(body: dict[str, Any], login: str, association: str) -> dict[str, Any]:
    """An `issue_comment` body by `login` as GitHub reports them: a member whose organisation membership is private
    is CONTRIBUTOR (or NONE), not MEMBER."""
    body["comment"]["author_association"] = association
    body["comment"]["user"].update(login=login, type="User")
    return sent_by(body, login)
