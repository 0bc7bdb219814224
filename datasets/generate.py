"""Deterministic generator for the Orbit issue tracker dataset (`datasets/orbit/issues/issues.jsonl`).

The issues themselves are hand-written in `datasets.orbit_material`; this module gives them what a
tracker would: ids in filing order, authors, timestamps consistent with Orbit's releases, comment
threads, labels, and rendered tracebacks, logs and environment blocks. Everything random comes
from `random.Random` seeded by `seed` (and, per issue, by `seed` plus the issue's key), never from
the clock, so the same seed always produces byte-identical output.

Run `python -m datasets.generate` to rewrite the committed file.
"""

from __future__ import annotations

import json
import random
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from datasets import derived, knowledge_generate
from datasets.issue_context import context, dress, parse_time, render
from datasets.orbit_material import all_specs
from datasets.orbit_material.model import Spec
from datasets.orbit_material.people import MAINTAINERS, OWNERS, USERS
from datasets.orbit_material.versions import RELEASES

DATA_DIR = Path(__file__).resolve().parent / "orbit"
SNAPSHOT = datetime(2025, 11, 28, 17, 0, tzinfo=UTC)
EARLIEST = datetime(2023, 1, 16, tzinfo=UTC)

_REF = re.compile(r"#\[([a-z0-9-]+)\]")


def _iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def _window(spec: Spec) -> tuple[datetime, datetime]:
    if spec.when:
        return parse_time(spec.when[0]), parse_time(spec.when[1], end_of_day=True)
    if spec.version:
        start = datetime.combine(RELEASES[spec.version] + timedelta(days=1), datetime.min.time(), UTC)
        return start, min(SNAPSHOT - timedelta(days=1), start + timedelta(days=300))
    return EARLIEST, SNAPSHOT - timedelta(days=1)


def _pick(rng: random.Random, start: datetime, end: datetime) -> datetime:
    span = max(int((end - start).total_seconds()), 60)
    return start + timedelta(seconds=rng.randrange(span))


def _created_times(specs: list[Spec], seed: int) -> dict[str, datetime]:
    created: dict[str, datetime] = {}
    for spec in specs:
        rng = random.Random(f"{seed}:{spec.key}:created")
        start, end = _window(spec)
        if spec.dup:
            start = max(start, created[spec.dup] + timedelta(hours=3))
            if not spec.when:
                end = min(start + timedelta(days=16), SNAPSHOT - timedelta(hours=6))
        if start >= end:
            raise ValueError(f"{spec.key}: empty date window {start} .. {end}")
        created[spec.key] = _pick(rng, start, end)
    return created


def _assign_authors(order: list[Spec], seed: int) -> dict[str, str]:
    rng = random.Random(f"{seed}:authors")
    pool = list(USERS)
    rng.shuffle(pool)
    authors: dict[str, str] = {}
    seen_in_story: dict[str, set[str]] = {}
    cursor = 0
    for spec in order:
        if spec.by == "maintainer":
            authors[spec.key] = OWNERS.get(spec.comp or "", MAINTAINERS[0])
            continue
        taken = seen_in_story.setdefault(spec.story or spec.key, set())
        while pool[cursor % len(pool)] in taken or (spec.dup and pool[cursor % len(pool)] == authors[spec.dup]):
            cursor += 1
        authors[spec.key] = pool[cursor % len(pool)]
        taken.add(authors[spec.key])
        cursor += 1
    return authors


def _link(text: str, spec: Spec, at: datetime, ids: dict[str, int], created: dict[str, datetime]) -> str:
    def ref(match: re.Match[str]) -> str:
        key = match.group(1)
        if key not in ids:
            raise KeyError(f"{spec.key}: reference to unknown issue {key!r}")
        if created[key] >= at:
            raise ValueError(f"{spec.key}: refers to {key} before it was filed")
        return f"#{ids[key]}"

    return _REF.sub(ref, text)


def _next_time(prev: datetime, rng: random.Random, not_before: str | None = None, quick: bool = False) -> datetime:
    hours = rng.expovariate(1 / (1.5 if quick else 20.0))
    moment = prev + timedelta(seconds=max(300, int(min(hours, 14 * 24) * 3600)))
    if not_before:
        moment = max(moment, parse_time(not_before) + timedelta(seconds=rng.randint(1800, 36 * 3600)))
    if moment >= SNAPSHOT:
        moment = prev + (SNAPSHOT - prev) * rng.uniform(0.05, 0.4)
    return moment.replace(microsecond=0)


def _state(spec: Spec, created: datetime, rng: random.Random) -> str:
    if spec.dup:
        return "closed"
    if spec.state:
        return spec.state
    age = (SNAPSHOT - created).days
    chance = 0.85 if age > 150 else 0.6 if age > 45 else 0.3
    if spec.kind == "feature":
        chance /= 2
    return "closed" if rng.random() < chance else "open"


def _record(
    spec: Spec, number: int, people: dict[str, str], ids: dict[str, int], created: dict[str, datetime], seed: int
) -> dict[str, object]:
    rng = random.Random(f"{seed}:{spec.key}")
    at = created[spec.key]
    ctx = context(spec, at, rng)
    body = _link(dress(spec, render(spec.body, spec, ctx, at, rng), ctx, rng), spec, at, ids, created)
    others = [m for m in MAINTAINERS if m != people["m"]]
    people = {**people, "m2": rng.choice(others)}
    comments: list[dict[str, Any]] = []
    moment = at
    for entry in spec.comments:
        moment = _next_time(moment, rng, entry.not_before)
        text = _link(render(entry.text, spec, ctx, moment, rng), spec, moment, ids, created)
        comments.append({"author": people[entry.role], "body": text, "created_at": _iso(moment)})
    if spec.dup:
        moment = _next_time(moment, rng, quick=True)
        note = _link(spec.dup_note, spec, moment, ids, created)
        comments.append(
            {
                "author": people["m"],
                "body": f"Duplicate of #{ids[spec.dup]}. {note}".strip(),
                "created_at": _iso(moment),
            }
        )
    for position, comment in enumerate(comments, start=1):
        comment["position"] = position
    state = _state(spec, at, rng)
    closed_at = _iso(_next_time(moment, rng, quick=True)) if state == "closed" else None
    labels = [f"type:{spec.kind}"]
    labels += [f"comp:{spec.comp}"] if spec.comp else []
    labels += [f"version:{spec.version}"] if spec.version else []
    labels += list(spec.labels) + (["duplicate"] if spec.dup else [])
    return {
        "id": number,
        "title": spec.title,
        "body": body,
        "state": state,
        "author": people["r"],
        "created_at": _iso(at),
        "closed_at": closed_at,
        "duplicate_of": ids[spec.dup] if spec.dup else None,
        "labels": labels,
        "comments": comments,
    }


def _thread_people(spec: Spec, author: str, seed: int) -> dict[str, str]:
    rng = random.Random(f"{seed}:{spec.key}:people")
    bystanders = rng.sample([u for u in USERS if u != author], 2)
    owner = OWNERS.get(spec.comp or "", rng.choice(MAINTAINERS))
    return {"r": author, "m": owner, "u": bystanders[0], "u2": bystanders[1]}


def _ordered(seed: int) -> tuple[list[Spec], dict[str, datetime]]:
    specs = all_specs()
    keys = [spec.key for spec in specs]
    if len(set(keys)) != len(keys):
        raise ValueError("duplicate spec keys")
    created = _created_times(specs, seed)
    return sorted(specs, key=lambda spec: (created[spec.key], spec.key)), created


def issue_numbers(seed: int = 2026) -> dict[str, int]:
    """Each spec key's issue number (what `#[key]` becomes), for the PRs and releases that cite issues."""
    return {spec.key: number for number, spec in enumerate(_ordered(seed)[0], start=1)}


def generate(seed: int = 2026) -> list[dict[str, Any]]:
    """All issues as tracker records, ordered by id; the same seed always gives the same records."""
    order, created = _ordered(seed)
    ids = {spec.key: number for number, spec in enumerate(order, start=1)}
    authors = _assign_authors(order, seed)
    return [
        _record(spec, ids[spec.key], _thread_people(spec, authors[spec.key], seed), ids, created, seed)
        for spec in order
    ]


def write(path: Path, seed: int = 2026) -> Path:
    """Write the dataset as JSONL (one issue per line, sorted keys) to `path`; returns `path`."""
    lines = [json.dumps(record, ensure_ascii=False, sort_keys=True) for record in generate(seed)]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def build(data_dir: Path) -> Path:
    """Write `<data_dir>/issues/issues.jsonl` with the default seed (used by `atlas dataset build`) and the PRs,
    releases and discussions beside it (datasets/knowledge_generate.py), and mark the folder as Atlas's, so its derived
    index lives beside it (datasets/derived.py)."""
    derived.mark(data_dir)
    path = write(Path(data_dir) / "issues" / "issues.jsonl")
    knowledge_generate.write(Path(data_dir), issue_numbers())
    return path


def main() -> None:
    """Rewrite the committed dataset file next to this module."""
    path = build(DATA_DIR)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
