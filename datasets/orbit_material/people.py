"""Who files and answers Orbit issues: four maintainers (each owning some pages) and many users."""

from __future__ import annotations

MAINTAINERS: tuple[str, ...] = ("mkowalczyk", "dsoto", "ayo-adeyemi", "hlindqvist")

# The maintainer who usually answers issues about a component (comp: label value).
OWNERS: dict[str, str] = {
    "redis-broker": "dsoto",
    "postgres-broker": "dsoto",
    "workers": "dsoto",
    "leases-and-heartbeats": "dsoto",
    "dashboard-oidc": "ayo-adeyemi",
    "monitoring": "ayo-adeyemi",
    "kubernetes": "ayo-adeyemi",
    "cli": "ayo-adeyemi",
    "cron-scheduling": "hlindqvist",
    "retries-and-backoff": "hlindqvist",
    "payloads": "hlindqvist",
    "configuration": "mkowalczyk",
    "upgrading-from-2x": "mkowalczyk",
    "getting-started": "mkowalczyk",
    "error-codes": "mkowalczyk",
}

USERS: tuple[str, ...] = (
    "jrb-ops", "tanvir-h", "lucia-mv", "pkrause", "sam-okafor", "eilidh-mac", "vbarros",
    "ncho-dev", "rafaelquintero", "kasia-zielinska", "tomasz-p", "jdelacroix", "mehmet-ak",
    "abhinav-r", "yuki-tanabe", "olusegun", "frankiej", "ldubois-sre", "hwangmin", "petra-vo",
    "cmoreau", "gbianchi", "andrei-pop", "ffischer", "sanjay-k", "noor-elhadi", "bwalsh",
    "dimitris-k", "mlopez-data", "aoife-byrne", "kenji-m", "rvasquez", "zoe-tran", "hans-ebert",
    "priya-nair", "owen-l", "lina-schwarz", "bartek-w", "chiamaka-e", "tpham", "igor-s",
    "emre-yilmaz", "wrightj", "sofia-rossi", "marcus-t", "aleksi-v", "isabela-f", "dkim",
    "rory-mc", "ana-luiza", "klaus-m", "femi-ad", "julien-r", "stephanie-w", "vikram-s",
    "greta-n", "paulo-s", "ewan-g", "mira-o", "thabo-n", "liam-oc", "ingrid-h", "rahul-dev",
    "nadia-b", "cormac-f", "jia-wen", "bruno-c", "helena-k", "ozan-t", "matt-dunn",
    "svetlana-i", "adewale-o", "nils-b", "camila-r", "kofi-m", "lena-weber", "ahmed-s",
    "ruth-a", "diego-m", "saoirse-q", "tobias-g", "mei-ling", "pavel-d", "grace-h",
    "ricardo-l", "elif-k", "jonas-e", "amara-n", "viktor-z", "hannah-b", "farid-m",
    "olga-p", "conor-d", "yusuf-a", "beatriz-s", "mikko-l", "anjali-p", "stefan-r",
    "chloe-d", "gustavo-f", "ifeoma-c", "arjun-m", "karin-l", "wes-taylor", "dana-k",
    "pieter-v", "noa-s", "raj-patel-ops", "emma-j", "bogdan-t", "yasmin-h", "ciaran-w",
    "luis-g", "marta-s", "ken-o", "vera-m", "ezra-b", "sunita-r", "alexei-n", "paula-c",
    "zain-q", "lotte-d", "hiro-s", "ana-p", "maxim-k", "deborah-e", "finn-h", "shreya-g",
)
