"""What an issue's report says about where it runs, and its markers filled in.

The Orbit issues (datasets.orbit_material) carry markers, `{{env}}`, `{{tb:NAME}}` and
`{{logs:NAME@TIME}}`; this module picks a context consistent with the report's own words (version,
Python, platform, hosts, broker) and renders the markers as environment blocks, tracebacks and log
excerpts, plus the details an issue template adds. Randomness comes only from the `rng` given, so
datasets.generate stays byte-for-byte reproducible.
"""

from __future__ import annotations

import random
import re
from datetime import UTC, datetime, timedelta

from datasets.orbit_material import EXCERPTS, tracebacks
from datasets.orbit_material import logs as logs_mod
from datasets.orbit_material.model import Spec
from datasets.orbit_material.versions import PLATFORMS, POSTGRES_SERVERS, PYTHONS, REDIS_SERVERS, RELEASES

_MARKER = re.compile(r"\{\{(env|tb:[a-z_]+|logs:[a-z_]+(?:@[0-9T:-]+)?)\}\}")


def parse_time(text: str, end_of_day: bool = False) -> datetime:
    moment = datetime.fromisoformat(text).replace(tzinfo=UTC)
    if end_of_day and "T" not in text:
        moment += timedelta(hours=23, minutes=59, seconds=59)
    return moment


# Words in a report that pin down where it runs: (words, marker in the candidate's description).
_PLATFORM_HINTS = (
    (("windows",), "Windows"),
    (("macos", " mac "), "macOS"),
    (("gke",), "GKE"),
    (("eks",), "EKS"),
    (("aks",), "AKS"),
    (("ecs",), "ECS"),
    (("systemd",), "systemd"),
    (("kubernetes", "k8s", " pod", "keda", "helm", "kubectl"), "KS"),
)
_BROKER_HINTS = (
    (("elasticache",), "ElastiCache"),
    (("memorystore",), "Memorystore"),
    (("azure cache",), "Azure"),
    (("sentinel",), "sentinel"),
    (("valkey",), "Valkey"),
)
_ONLY_WHEN_NAMED = ("Windows", "Valkey")


def _matching(
    text: str, options: tuple[str, ...], hints: tuple[tuple[tuple[str, ...], str], ...], k8s: bool
) -> list[str]:
    """The options consistent with what the report says (all of them if it says nothing specific)."""
    for words, marker in hints:
        if any(word in text for word in words) or (k8s and marker == "KS"):
            chosen = [o for o in options if marker in o]
            if chosen:
                return chosen
    return [o for o in options if not any(special in o for special in _ONLY_WHEN_NAMED)]


def context(spec: Spec, created: datetime, rng: random.Random) -> dict[str, object]:
    versions = [v for v, day in RELEASES.items() if day < created.date() and v >= "2.5.0"]
    version = spec.version or rng.choice(versions[-3:])
    text = " ".join([spec.title, spec.body, *(c.text for c in spec.comments)]).lower()
    pythons = [p for p in PYTHONS[created.year] if not (version.startswith("3.") and p.startswith("3.8"))]
    named = re.search(r"python (3\.\d+)", text)
    pyver = rng.choice([p for p in pythons if named and p.startswith(named.group(1) + ".")] or pythons)
    short = ".".join(pyver.split(".")[:2])
    platform = rng.choice(_matching(text, PLATFORMS, _PLATFORM_HINTS, spec.comp == "kubernetes"))
    k8s = any(word in platform for word in ("EKS", "GKE", "AKS"))
    hosts = (
        logs_mod.pod_names(rng, rng.randint(3, 5)) if k8s else [f"jobs-{n:02d}" for n in rng.sample(range(1, 24), 3)]
    )
    if "Windows" in platform:
        site = "C:/Users/dev/src/app/.venv/Lib/site-packages"
    else:
        site = (
            rng.choice(["/app/.venv", "/usr/local", "/opt/venv", "/srv/app/.venv"])
            + f"/lib/python{short}/site-packages"
        )
    postgres = spec.comp == "postgres-broker" or any(w in text for w in ("postgres", "pgbouncer", "patroni"))
    broker = rng.choice(POSTGRES_SERVERS if postgres else _matching(text, REDIS_SERVERS, _BROKER_HINTS, False))
    return {"version": version, "python": pyver, "platform": platform, "hosts": hosts, "site": site, "broker": broker}


def _env_block(ctx: dict[str, object], rng: random.Random) -> str:
    v, py, broker, platform = ctx["version"], ctx["python"], ctx["broker"], ctx["platform"]
    styles = [
        f"**Environment**\n\n- orbit-jobs {v}\n- Python {py}\n- {broker}\n- {platform}",
        f"orbit-jobs {v} / Python {py} / {broker} / {platform}",
        f"```\n$ orbit --version\norbit {v}\n$ python --version\nPython "
        f"{py}\n```\n\nBroker: {broker}. Running on {platform}.",
        f"| | |\n|---|---|\n| orbit-jobs | {v} |\n| Python | {py} |\n| Broker | {broker} |\n| Platform | {platform} |",
    ]
    return rng.choice(styles)


def render(text: str, spec: Spec, ctx: dict[str, object], at: datetime, rng: random.Random) -> str:
    def fill(match: re.Match[str]) -> str:
        marker = match.group(1)
        if marker == "env":
            return _env_block(ctx, rng)
        if marker.startswith("tb:"):
            hosts = _hosts(ctx)
            values = {
                "job": logs_mod.job_id(rng, at.year >= 2025),
                "secs": f"{rng.uniform(60.5, 140):.1f}",
                "host": f"{rng.choice(hosts)}/child-{rng.randint(1, 8)}",
                "kb": str(rng.randint(300, 9000)),
            }
            return tracebacks.render(marker[3:], str(ctx["site"]), str(ctx["python"]), str(ctx["version"]), values)
        name, _, start_text = marker[5:].partition("@")
        start = parse_time(start_text) if start_text else at - timedelta(seconds=rng.randint(3600, 40 * 3600))
        events = EXCERPTS[name](rng, _hosts(ctx), False)
        return "\n".join(logs_mod.render(events, start, spec.log_format))

    return _MARKER.sub(fill, text)


def _hosts(ctx: dict[str, object]) -> list[str]:
    """The issue's hosts (the context holds them as a list of names)."""
    hosts = ctx["hosts"]
    assert isinstance(hosts, list)
    return [str(h) for h in hosts]


def dress(spec: Spec, body: str, ctx: dict[str, object], rng: random.Random) -> str:
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
