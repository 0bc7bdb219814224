"""Where the tests find the checkout, its demo data and `../shared` (the evaluation data beside a clone)."""

from __future__ import annotations

import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
ORBIT = REPO / "datasets" / "orbit"
SHARED = Path(os.environ.get("ATLAS_SHARED") or REPO.parent / "shared")  # `$ATLAS_SHARED`, else ../shared
