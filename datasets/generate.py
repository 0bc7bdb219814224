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

from datasets import derived
from datasets.orbit_material import EXCERPTS, all_specs, tracebacks
from datasets.orbit_material import logs as logs_mod
from datasets.orbit_material.model import Spec
from datasets.orbit_material.people import MAINTAINERS, OWNERS, USERS
from datasets.orbit_material.versions import PLATFORMS, POSTGRES_SERVERS, PYTHONS, REDIS_SERVERS, RELEASES

DATA_DIR = Path(__file__).resolve().parent / "orbit"
SNAPSHOT = datetime(2025, 11, 28, 17, 0, tzinfo=UTC)
EARLIEST = datetime(2023, 1, 16, tzinfo=UTC)

_MARKER = re.compile(r"\{\{(env|tb:[a-z_]+|logs:[a-z_]+(?:@[0-9T:-]+)?)\}\}")
_REF = re.compile(r"#\[([a-z0-9-]+)\]")


def _parse(text: str, end_of_day: bool = False) -> datetime:
    moment = datetime.fromisoformat(text).replace(tzinfo=UTC)
    if end_of_day and "T" not in text:
        moment += timedelta(hours=23, minutes=59, seconds=59)
    return moment


def _iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def _window(spec: Spec) -> tuple[datetime, datetime]:
    if spec.when:
        return _parse(spec.when[0]), _parse(spec.when[1], end_of_day=True)
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


# Words in a report that pin down where it runs: (words, marker in the candidate's description).
_PLATFORM_HINTS = ((("windows",), "Windows"), (("macos", " mac "), "macOS"), (("gke",), "GKE"),
                   (("eks",), "EKS"), (("aks",), "AKS"), (("ecs",), "ECS"), (("systemd",), "systemd"),
                   (("kubernetes", "k8s", " pod", "keda", "helm", "kubectl"), "KS"))
_BROKER_HINTS = ((("elasticache",), "ElastiCache"), (("memorystore",), "Memorystore"),
                 (("azure cache",), "Azure"), (("sentinel",), "sentinel"), (("valkey",), "Valkey"))
_ONLY_WHEN_NAMED = ("Windows", "Valkey")


def _matching(text: str, options: tuple[str, ...], hints: tuple[tuple[tuple[str, ...], str], ...], k8s: bool) -> list[str]:
    """The options consistent with what the report says (all of them if it says nothing specific)."""
    for words, marker in hints:
        if any(word in text for word in words) or (k8s and marker == "KS"):
            chosen = [o for o in options if marker in o]
            if chosen:
                return chosen
    return [o for o in options if not any(special in o for special in _ONLY_WHEN_NAMED)]


def _context(spec: Spec, created: datetime, rng: random.Random) -> dict[str, object]:
    versions = [v for v, day in RELEASES.items() if day < created.date() and v >= "2.5.0"]
    version = spec.version or rng.choice(versions[-3:])
    text = " ".join([spec.title, spec.body, *(c.text for c in spec.comments)]).lower()
    pythons = [p for p in PYTHONS[created.year] if not (version.startswith("3.") and p.startswith("3.8"))]
    named = re.search(r"python (3\.\d+)", text)
    pyver = rng.choice([p for p in pythons if named and p.startswith(named.group(1) + ".")] or pythons)
    short = ".".join(pyver.split(".")[:2])
    platform = rng.choice(_matching(text, PLATFORMS, _PLATFORM_HINTS, spec.comp == "kubernetes"))
    k8s = any(word in platform for word in ("EKS", "GKE", "AKS"))
    hosts = logs_mod.pod_names(rng, rng.randint(3, 5)) if k8s else [f"jobs-{n:02d}" for n in rng.sample(range(1, 24), 3)]
    if "Windows" in platform:
        site = "C:/Users/dev/src/app/.venv/Lib/site-packages"
    else:
        site = rng.choice(["/app/.venv", "/usr/local", "/opt/venv", "/srv/app/.venv"]) + f"/lib/python{short}/site-packages"
    postgres = spec.comp == "postgres-broker" or any(w in text for w in ("postgres", "pgbouncer", "patroni"))
    broker = rng.choice(POSTGRES_SERVERS if postgres else _matching(text, REDIS_SERVERS, _BROKER_HINTS, False))
    return {"version": version, "python": pyver, "platform": platform, "hosts": hosts, "site": site, "broker": broker}


def _env_block(ctx: dict[str, object], rng: random.Random) -> str:
    v, py, broker, platform = ctx["version"], ctx["python"], ctx["broker"], ctx["platform"]
    styles = [
        f"**Environment**\n\n- orbit-jobs {v}\n- Python {py}\n- {broker}\n- {platform}",
        f"orbit-jobs {v} / Python {py} / {broker} / {platform}",
        f"```\n$ orbit --version\norbit {v}\n$ python --version\nPython {py}\n```\n\nBroker: {broker}. Running on {platform}.",
        f"| | |\n|---|---|\n| orbit-jobs | {v} |\n| Python | {py} |\n| Broker | {broker} |\n| Platform | {platform} |",
    ]
    return rng.choice(styles)


def _render(text: str, spec: Spec, ctx: dict[str, object], at: datetime, rng: random.Random) -> str:
    def fill(match: re.Match[str]) -> str:
        marker = match.group(1)
        if marker == "env":
            return _env_block(ctx, rng)
        if marker.startswith("tb:"):
            hosts = _hosts(ctx)
            values = {"job": logs_mod.job_id(rng, at.year >= 2025), "secs": f"{rng.uniform(60.5, 140):.1f}",
                      "host": f"{rng.choice(hosts)}/child-{rng.randint(1, 8)}", "kb": str(rng.randint(300, 9000))}
            return tracebacks.render(marker[3:], str(ctx["site"]), str(ctx["python"]), str(ctx["version"]), values)
        name, _, start_text = marker[5:].partition("@")
        start = _parse(start_text) if start_text else at - timedelta(seconds=rng.randint(3600, 40 * 3600))
        events = EXCERPTS[name](rng, _hosts(ctx), False)
        return "\n".join(logs_mod.render(events, start, spec.log_format))

    return _MARKER.sub(fill, text)


def _hosts(ctx: dict[str, object]) -> list[str]:
    """The issue's hosts (the context holds them as a list of names)."""
    hosts = ctx["hosts"]
    assert isinstance(hosts, list)
    return [str(h) for h in hosts]


def _dress(spec: Spec, body: str, ctx: dict[str, object], rng: random.Random) -> str:
    """Add what an issue template or a careful reporter adds: environment details, mostly on bugs."""
    if "{{env}}" in spec.body or "needs-repro" in spec.labels or not spec.version:
        return body
    roll = rng.random()
    if spec.kind == "bug" and not spec.dup:
        if roll < 0.3:
            return f"### What happened\n\n{body}\n\n### Environment\n\n{_env_block(ctx, rng)}"
        if roll < 0.8:
            return f"{body}\n\n{_env_block(ctx, rng)}"
    elif spec.kind == "bug" and roll < 0.45:
        return f"{body}\n\n{_env_block(ctx, rng)}"
    elif spec.kind == "question" and roll < 0.35:
        return f"{body}\n\n(orbit-jobs {ctx['version']}, Python {ctx['python']}, {ctx['broker']})"
    return body


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
        moment = max(moment, _parse(not_before) + timedelta(seconds=rng.randint(1800, 36 * 3600)))
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


def _record(spec: Spec, number: int, people: dict[str, str], ids: dict[str, int],
            created: dict[str, datetime], seed: int) -> dict[str, object]:
    rng = random.Random(f"{seed}:{spec.key}")
    at = created[spec.key]
    ctx = _context(spec, at, rng)
    body = _link(_dress(spec, _render(spec.body, spec, ctx, at, rng), ctx, rng), spec, at, ids, created)
    others = [m for m in MAINTAINERS if m != people["m"]]
    people = {**people, "m2": rng.choice(others)}
    comments: list[dict[str, Any]] = []
    moment = at
    for entry in spec.comments:
        moment = _next_time(moment, rng, entry.not_before)
        text = _link(_render(entry.text, spec, ctx, moment, rng), spec, moment, ids, created)
        comments.append({"author": people[entry.role], "body": text, "created_at": _iso(moment)})
    if spec.dup:
        moment = _next_time(moment, rng, quick=True)
        note = _link(spec.dup_note, spec, moment, ids, created)
        comments.append({"author": people["m"], "body": f"Duplicate of #{ids[spec.dup]}. {note}".strip(),
                         "created_at": _iso(moment)})
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


def generate(seed: int = 2026) -> list[dict]:
    """All issues as tracker records, ordered by id; the same seed always gives the same records."""
    specs = all_specs()
    keys = [spec.key for spec in specs]
    if len(set(keys)) != len(keys):
        raise ValueError("duplicate spec keys")
    created = _created_times(specs, seed)
    order = sorted(specs, key=lambda spec: (created[spec.key], spec.key))
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
    """Write `<data_dir>/issues/issues.jsonl` with the default seed (used by `atlas dataset build`), and
    mark the folder as Atlas's, so its derived index lives beside it (datasets/derived.py)."""
    derived.mark(data_dir)
    return write(Path(data_dir) / "issues" / "issues.jsonl")


def main() -> None:
    """Rewrite the committed dataset file next to this module."""
    path = build(DATA_DIR)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
