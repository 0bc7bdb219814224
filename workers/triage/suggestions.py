"""What a triage of one issue gives (workers/triage/engine.py computes it): the raw ranking (`Scored`), and the
suggestions a repository's thresholds let through (`Suggestions`), each an approval for a maintainer, never an
action. Kept apart from the engine, which is about how they are computed."""

from __future__ import annotations

from dataclasses import dataclass, field

from workers.triage import duplicates


@dataclass(frozen=True)
class NewIssue:
    """An issue to triage that the history may not hold yet (a webhook's `issues.opened`)."""

    number: int
    title: str
    body: str
    created_at: str = ""


@dataclass(frozen=True)
class DuplicateSuggestion:
    id: int
    score: float
    evidence: str


@dataclass(frozen=True)
class LabelSuggestion:
    name: str
    score: float
    evidence: str = ""  # the neighbours that carried it, or the version the report names


@dataclass(frozen=True)
class Suggestions:
    """What triage proposes for one issue; each is an approval for a maintainer, never an action."""

    issue: int
    duplicates: list[DuplicateSuggestion] = field(default_factory=list)  # the claim (at most one): the close action
    labels: list[LabelSuggestion] = field(default_factory=list)
    reply: str | None = None
    related: list[DuplicateSuggestion] = field(default_factory=list)  # links with evidence, no action
    thresholds: dict[str, object] | None = None  # the figures the decision used (Thresholds.shown)

    def as_json(self) -> dict[str, object]:
        """`atlas triage --json`'s object."""
        out: dict[str, object] = {
            "issue": self.issue,
            "duplicates": [{"id": d.id, "score": d.score, "evidence": d.evidence} for d in self.duplicates],
            "labels": [{"name": s.name, "score": s.score} for s in self.labels],
            "reply": self.reply,
            "related": [{"id": d.id, "score": d.score, "evidence": d.evidence} for d in self.related],
        }
        if self.thresholds is not None:
            out["thresholds"] = self.thresholds
        return out


@dataclass(frozen=True)
class LabelScore:
    """One label's raw score for an issue, before any threshold."""

    name: str
    family: str  # the calibration's key: the family, or `version` for every version label
    score: float
    evidence: str


@dataclass(frozen=True)
class Scored:
    """An issue's raw ranking (`Triage.score`): every candidate and label with its score, no threshold yet."""

    issue: int
    title: str
    body: str
    before: int  # the seq the issue would have: only issues before it were read
    candidates: list[duplicates.Candidate]
    labels: list[LabelScore]
    reply: str | None
