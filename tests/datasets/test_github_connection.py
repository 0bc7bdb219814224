"""A sync makes all its requests over one kept-open connection (datasets/github_fetch.kept_open).

Outside a `with client:` block githubkit builds an httpx client per request, each with a new TLS context
that loads the CA bundle (~0.1 s of CPU): a first sync of 10,000 blobs spent most of its time there
(bench/code_sync.py). The stand-in sees it as one client port per request.
"""

from __future__ import annotations

from pathlib import Path

from tests.standins.github_api import GitHubAPI
from tests.standins.github_repo import generate
from tests.support.github_harness import run_sync, settings_for


def test_a_sync_makes_every_request_over_one_connection(tmp_path: Path) -> None:
    with GitHubAPI(generate(3, comments=1)) as api:
        assert run_sync(api, settings_for(api, tmp_path), build_index=False).complete
        assert len(api.calls) > 10 and len({c.peer for c in api.calls}) == 1
        assert api.violations == []
