"""Orbit's release history and the environments reporters run it in.

Dates are release days (UTC). An issue labelled `version:X` is filed after X's release date; the
dataset tests check that against this table.
"""

from __future__ import annotations

from datetime import date

RELEASES: dict[str, date] = {
    "2.0.0": date(2021, 6, 14),
    "2.1.0": date(2021, 10, 4),
    "2.2.0": date(2022, 2, 21),
    "2.3.0": date(2022, 6, 13),
    "2.4.0": date(2022, 10, 10),
    "2.5.0": date(2023, 1, 23),
    "2.5.1": date(2023, 3, 2),
    "2.6.0": date(2023, 5, 15),
    "2.6.1": date(2023, 7, 3),
    "2.7.0": date(2023, 9, 18),
    "2.7.1": date(2023, 11, 20),
    "2.8.0": date(2024, 2, 12),
    "2.8.1": date(2024, 4, 8),
    "2.9.0": date(2024, 6, 24),
    "2.9.1": date(2024, 8, 19),
    "2.9.2": date(2024, 10, 7),
    "2.9.3": date(2024, 12, 9),
    "2.9.4": date(2025, 1, 27),
    "3.0.0": date(2025, 3, 17),
    "3.0.1": date(2025, 4, 28),
    "3.0.2": date(2025, 6, 16),
    "3.0.3": date(2025, 8, 25),
    "3.1.0": date(2025, 10, 14),
}

# Python versions people reported with, by the year they filed.
PYTHONS: dict[int, tuple[str, ...]] = {
    2023: ("3.8.16", "3.9.17", "3.10.12", "3.11.4", "3.11.6"),
    2024: ("3.9.19", "3.10.14", "3.11.9", "3.12.3", "3.12.6"),
    2025: ("3.10.16", "3.11.11", "3.12.8", "3.12.11", "3.13.3", "3.13.7"),
}

REDIS_SERVERS: tuple[str, ...] = (
    "Redis 7.0.12 (self-hosted)",
    "Redis 7.2.4 (ElastiCache, cluster mode off)",
    "Redis 6.2.14 (Memorystore)",
    "Redis 7.2.5 (bitnami chart, sentinel)",
    "Redis 7.0.15 (docker redis:7.0-alpine)",
    "Azure Cache for Redis 6.0",
    "Valkey 8.0.2",
)
POSTGRES_SERVERS: tuple[str, ...] = ("PostgreSQL 15.6 (RDS)", "PostgreSQL 16.4", "PostgreSQL 14.11 (Cloud SQL)")

PLATFORMS: tuple[str, ...] = (
    "Debian 12 (python:3-slim image) on EKS",
    "Ubuntu 20.04 VM",
    "Ubuntu 22.04, systemd unit",
    "Alpine 3.19 container on GKE",
    "macOS (dev laptop)",
    "RHEL 9 on bare metal",
    "Amazon Linux 2023 on ECS Fargate",
    "AKS, distroless python image",
    "Docker Compose on a single Hetzner box",
    "Windows 11 (dev laptop)",
)
