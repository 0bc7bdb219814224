"""Labels for a new issue: the nearest earlier labelled issues vote, weighted by similarity, beside
what the issue's own words meant on earlier labelled issues (label_words.py): a label's score is a
blend of the two (WORDS_SHARE), so a label the neighbours half-agree on rises when the words agree
(issue 36: black's `T: bug` is on 72% of its labelled issues, and the vote alone told them apart poorly).

Only topic labels vote (labels.py); a family is suggested under the name the repository used most
recently before the issue, and only if that name was in use by then. A version label is suggested
from the version the report itself names (the newest, when it names several), never voted.
"""

from __future__ import annotations

import bisect
from collections import defaultdict
from collections.abc import Iterable

from workers.triage import labels as label_kinds
from workers.triage.cues import cues, sections
from workers.triage.history import History
from workers.triage.label_words import LabelWords
from workers.triage.similarity import AsOfIndex, features
from workers.triage.versions import reported_versions

LABEL_THRESHOLD = 0.6  # a label is suggested at this score: the lowest whose precision on Orbit's replay reaches 0.9
NEIGHBOURS = 10  # nearest earlier labelled issues whose labels vote
SHARPNESS = 1.0  # votes weigh similarity to this power
CUE_RATE = 0.8  # a cue is evidence for a label only when most earlier reports showing it carried the label
CUE_SUPPORT = 10  # earlier labelled issues showing a cue before it says anything
# A label's score: this share from its words (label_words.py), the rest from the vote (or cue). Chosen on black's and
# Orbit's rolling backtests (0.25 to 0.5 within noise of each other; 0.65 lost recall on both).
WORDS_SHARE = 0.35
RECENT = 30  # issues: which of a family's names (`bug`, `T: bug`) the repository uses now
VERSION_SCORE = 0.9  # the version the report names, when the repository has that version's label


class LabelBook:
    """When each label was used (by seq), for votes and names as of any point."""

    def __init__(
        self,
        history: History,
        index: AsOfIndex,
        shown: list[frozenset[str]] | None = None,
        headings: list[frozenset[str]] | None = None,
    ) -> None:
        """`index`: the history's word index (its postings are the words' evidence); `shown`, `headings`: the
        cues and section headings each issue shows, by seq, when already known (a grown triage keeps its old
        issues')."""
        self.history = history
        self.shown = shown if shown is not None else [cues(r.title, r.body) for r in history.records]
        self.headings = headings if headings is not None else [sections(r.body) for r in history.records]
        self.uses: dict[str, list[int]] = defaultdict(list)  # label -> the seqs that carry it, ascending
        self.families = [
            frozenset(label_kinds.family(n) for n in r.labels if label_kinds.suggestable(n)) for r in history.records
        ]  # by seq: the topic families each issue carries
        for record in history.records:
            for name in record.labels:
                self.uses[name].append(record.seq)
        # cue -> the labelled seqs that show it; (cue, family) -> those that also carry the family
        self.cue_seqs: dict[str, list[int]] = defaultdict(list)
        self.cue_family_seqs: dict[tuple[str, str], list[int]] = defaultdict(list)
        for record, families, shown_cues in zip(history.records, self.families, self.shown, strict=True):
            if not families:
                continue
            for cue in shown_cues:
                self.cue_seqs[cue].append(record.seq)
                for fam in families:
                    self.cue_family_seqs[(cue, fam)].append(record.seq)
        marks = [_marks(c, h) for c, h in zip(self.shown, self.headings, strict=True)]
        self.words = LabelWords(index, self.families, marks)

    def cue_rates(self, title: str, body: str, before: int) -> dict[str, float]:
        """family -> the highest share, over the cues this issue shows, of the earlier labelled issues
        with that cue that carried the family (cues seen on fewer than CUE_SUPPORT issues say nothing)."""
        rates: dict[str, float] = {}
        for cue in cues(title, body):
            seen = bisect.bisect_left(self.cue_seqs.get(cue, []), before)
            if seen < CUE_SUPPORT:
                continue
            for (c, fam), seqs in self.cue_family_seqs.items():
                if c == cue:
                    rates[fam] = max(rates.get(fam, 0.0), bisect.bisect_left(seqs, before) / seen)
        return rates

    def votes(self, similar: dict[int, float]) -> dict[str, float]:
        """family -> share of the similarity-weighted votes of the nearest labelled neighbours."""
        tally: dict[str, float] = defaultdict(float)
        total, counted = 0.0, 0
        for seq, sim in sorted(similar.items(), key=lambda p: (-p[1], -p[0])):
            topics = self.families[seq]
            if not topics or sim <= 0:
                continue
            counted += 1
            weight = sim**SHARPNESS
            total += weight
            for fam in topics:
                tally[fam] += weight
            if counted >= NEIGHBOURS:
                break
        return {fam: vote / total for fam, vote in tally.items()} if total > 0 else {}

    def suggest(self, votes: dict[str, float], title: str, body: str, before: int) -> list[tuple[str, float, str]]:
        """(name, score, evidence) of each label to suggest at the fixed LABEL_THRESHOLD, best first."""
        return [s for s in self.scores(votes, title, body, before) if s[1] >= LABEL_THRESHOLD]

    def scores(
        self, votes: dict[str, float], title: str, body: str, before: int, terms: Iterable[str] | None = None
    ) -> list[tuple[str, float, str]]:
        """(name, score, evidence) of every label with a score, best first, before any threshold (a
        repository's calibration chooses each one's): the neighbours' vote, or what the report's cue meant
        on earlier issues, whichever is stronger, blended with the words' (WORDS_SHARE); and the version label of
        the version the report names."""
        current = self._current_names(before)
        rates = self.cue_rates(title, body, before)
        terms = terms if terms is not None else features(title, body)
        said = self.words.rates(terms, _marks(cues(title, body), sections(body)), before)
        out = []
        for fam in set(votes) | set(rates):
            vote, rate = votes.get(fam, 0.0), rates.get(fam, 0.0)
            rate = rate if rate >= CUE_RATE else 0.0
            score = (1 - WORDS_SHARE) * max(vote, rate) + WORDS_SHARE * said.get(fam, 0.0)
            if fam in current and score > 0:
                why = (
                    "voted by the nearest earlier issues"
                    if vote >= rate
                    else "what reports like this one were labelled"
                )
                out.append((current[fam], round(score, 3), why))
        text = f"{title}\n{body}"
        out += self._version_labels(text, before)
        return sorted(out, key=lambda s: (-s[1], s[0]))

    def _current_names(self, before: int) -> dict[str, str]:
        """family -> the name the repository used most for it over the RECENT issues before `before`
        (the most recently used name when none of them has it); names not used yet are unknown."""
        best: dict[str, tuple[int, int, str]] = {}
        for name, seqs in self.uses.items():
            if not label_kinds.suggestable(name):
                continue
            i = bisect.bisect_left(seqs, before)
            if i == 0:
                continue  # not used yet: unknown at that time
            recent = i - bisect.bisect_left(seqs, before - RECENT)
            fam = label_kinds.family(name)
            key = (recent, seqs[i - 1], name)
            if fam not in best or key > best[fam]:
                best[fam] = key
        return {fam: key[2] for fam, key in best.items()}

    def _version_labels(self, text: str, before: int) -> list[tuple[str, float, str]]:
        """The version label of the newest version the report names among those with a label in use: a
        report naming two ("since upgrading from 3.0.3 to 3.1.0", "2.6.1 respected the order") is about
        the newer one."""
        known = {}
        for name, seqs in self.uses.items():
            version = label_kinds.version_of(name)
            if version and seqs[0] < before:
                known[version] = name
        found = {v for v in reported_versions(text) if v in known}
        if not found:
            return []
        version = max(found, key=_version_key)
        return [(known[version], VERSION_SCORE, f"the report names {version}")]


def _marks(shown: frozenset[str], headings: frozenset[str]) -> frozenset[str]:
    """An issue's words that are not index terms: its cues (`cue:question`) and its section headings."""
    return frozenset(f"cue:{c}" for c in shown) | headings


def _version_key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))
