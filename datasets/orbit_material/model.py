"""The shape of hand-written issue material, and the constructor every story module uses.

A `Spec` is one issue as a person wrote it: title, markdown body, comments by role. The generator
(`datasets.generate`) turns specs into tracker records: it picks authors, dates and ids, and fills
these markers in bodies and comments:

* `{{env}}`         an environment block (orbit-jobs version, Python, broker, OS) for this reporter;
* `{{tb:NAME}}`     a traceback from `tracebacks.SCENARIOS[NAME]`;
* `{{logs:NAME}}`   a short log excerpt from `logs.EXCERPTS[NAME]`, timestamped just before filing;
* `#[KEY]`          a reference to another issue, rendered as `#<its id>`.

Comment roles: "m" and "m2" are two maintainers, "r" is the reporter, "u" and "u2" other users.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass

KINDS = ("bug", "question", "docs", "feature")
ROLES = ("m", "m2", "r", "u", "u2")


@dataclass(frozen=True)
class Comment:
    """One hand-written comment: who (a role), what, and optionally a date it cannot precede."""

    role: str
    text: str
    not_before: str | None = None


@dataclass(frozen=True)
class Spec:
    """One hand-written issue before ids, authors and dates are assigned."""

    key: str
    kind: str
    title: str
    body: str
    comp: str | None = None
    version: str | None = None
    story: str | None = None
    state: str | None = None
    comments: tuple[Comment, ...] = ()
    labels: tuple[str, ...] = ()
    dup: str | None = None
    dup_note: str = ""
    when: tuple[str, str] | None = None
    by: str = "user"
    log_format: str = "text"


def _clean(text: str) -> str:
    return textwrap.dedent(text).strip("\n").rstrip()


def issue(
    key: str,
    kind: str,
    title: str,
    body: str,
    *,
    comp: str | None = None,
    version: str | None = None,
    story: str | None = None,
    state: str | None = None,
    comments: tuple[tuple[str, ...], ...] | list[tuple[str, ...]] = (),
    labels: tuple[str, ...] = (),
    dup: str | None = None,
    dup_note: str = "",
    when: tuple[str, str] | None = None,
    by: str = "user",
    log_format: str = "text",
) -> Spec:
    """Build a `Spec` from compact literals; comments are `(role, text)` or `(role, text, not_before)`."""
    if kind not in KINDS:
        raise ValueError(f"{key}: unknown kind {kind!r}")
    built = []
    for entry in comments:
        role, text, *rest = entry
        if role not in ROLES:
            raise ValueError(f"{key}: unknown comment role {role!r}")
        built.append(Comment(role, _clean(text), rest[0] if rest else None))
    return Spec(
        key=key,
        kind=kind,
        title=title,
        body=_clean(body),
        comp=comp,
        version=version,
        story=story,
        state=state,
        comments=tuple(built),
        labels=tuple(labels),
        dup=dup,
        dup_note=_clean(dup_note),
        when=when,
        by=by,
        log_format=log_format,
    )
