"""Whether a piece of found text answers the question, for the offline model.

The offline model has no understanding, only word overlap, so it must be strict about what it
quotes: an identifier in the question (an error code such as ORB-1202, a version such as 3.1.0, a
config key such as lease_seconds) must appear in the text exactly, and more than half of the
question's other distinctive words must appear too. Anything weaker is not quoted, and when
nothing passes the model says what it found nothing about, instead of quoting something unrelated.

Words are found with the search tools' own tokenizer (`tools.fts_query.TERM`, Unicode `\\w`) and
stopword list, so "Cómo" is one word here as it is in the index.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from tools.docsearch.terms import tokens as index_tokens
from tools.fts_query import STOPWORDS, TERM

# Words that say what kind of question it is, not what it is about (on top of the common stopwords).
ASKING = frozenset(
    """anyone cannot else happen happened happens meaning please reported report say said show tell give find
    people comments default value whom yes using use set explain describe detail details detailed briefly""".split()
)


def keywords(question: str) -> list[str]:
    """Distinctive words of the question in order, exact tokens like ORB-1202 and lease_seconds kept whole."""
    words = (w.strip("_") for w in TERM.findall(question))
    return list(dict.fromkeys(w for w in words if len(w) > 1 and w.lower() not in STOPWORDS | ASKING))


def is_identifier(word: str) -> bool:
    """An exact name (ORB-1202, 3.1.0, lease_seconds, orbit.App): a near miss is a different thing."""
    return any(c.isdigit() or c in "_." for c in word)


@dataclass(frozen=True)
class Words:
    """The words of one text: exact (lowercased) for identifiers, folded (plurals) for the rest."""

    exact: frozenset[str]
    folded: frozenset[str]

    @classmethod
    def of(cls, text: str) -> Words:
        return cls(frozenset(w.lower() for w in TERM.findall(text)), frozenset(index_tokens(text)))

    def has(self, word: str) -> bool:
        if is_identifier(word):
            return word.lower() in self.exact
        return any(t in self.folded for t in index_tokens(word)[:1])


@dataclass(frozen=True)
class Question:
    """The question's keywords and the test a text must pass to be quoted for it."""

    keywords: list[str] = field(default_factory=list)

    @classmethod
    def of(cls, question: str) -> Question:
        return cls(keywords(question))

    def found_in(self, text: str) -> list[str]:
        words = Words.of(text)
        return [w for w in self.keywords if words.has(w)]

    def answered_by(self, text: str) -> bool:
        """Every identifier is there exactly, and more than half of all keywords are there."""
        if not self.keywords:
            return True
        found = set(self.found_in(text))
        identifiers_ok = all(w in found for w in self.keywords if is_identifier(w))
        return identifiers_ok and 2 * len(found) > len(self.keywords)

    def touched_by(self, text: str) -> bool:
        """A weaker test for a listed title: every identifier is there and at least one keyword."""
        if not self.keywords:
            return True
        found = set(self.found_in(text))
        return bool(found) and all(w in found for w in self.keywords if is_identifier(w))

    def names_all(self, text: str) -> bool:
        """Every identifier of the question is in `text` exactly (a near miss is a different thing)."""
        found = set(self.found_in(text))
        return all(w in found for w in self.keywords if is_identifier(w))

    def absent_from(self, texts: list[str]) -> list[str]:
        """The keywords none of `texts` has."""
        seen = Words.of("\n".join(texts))
        return [w for w in self.keywords if not seen.has(w)]


def listing(words: list[str]) -> str:
    """'A', 'A and B', 'A, B and C'."""
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


ISSUE_QUESTION = re.compile(
    r"\b(?:has|have|did)\s+(?:any(?:one|body)|some(?:one|body)|people|others?|you)\s+(?:ever\s+|already\s+)?"
    r"(?:reported|filed|raised|asked|seen|hit|had|run\s+into|opened)\b|\bis\s+there\s+(?:an?|any)\s+(?:open\s+|known\s+)?"
    r"(?:issue|bug|ticket|report)s?\b|\b(?:known|open)\s+(?:bug|issue|problem)s?\b|\bbeen\s+reported\b",
    re.IGNORECASE,
)


def is_issue_question(question: str) -> bool:
    """Is this asking whether something was reported ("has anyone reported X?", "is there an issue about X")?"""
    return ISSUE_QUESTION.search(question) is not None


def subject(question: str) -> str:
    """The question without the words that frame an issue question ("Is there an issue about", "has anyone
    reported"): searched for, 'issue' ranked first an issue whose title says "issue"."""
    return ISSUE_QUESTION.sub(" ", question)
