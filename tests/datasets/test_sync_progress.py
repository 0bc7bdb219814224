"""The sync's progress output: a redrawn line on a terminal, plain lines elsewhere, waits said aloud."""

from __future__ import annotations

import io

from datasets.sync_progress import Progress


def test_terminal_redraws_one_line_and_says_when_it_waits() -> None:
    out = io.StringIO()
    progress = Progress(out, tty=True)
    progress.page("issues", 100, 1, 4, "4999")
    progress.page("issues", 100, 2, 4, "4998")
    progress.waiting(125, "rate limited")
    progress.close()
    text = out.getvalue()
    assert text.count("\r\x1b[2K") == 2 and "issues: 200 items · page 2/4" in text and "rate limit 4998 left" in text
    assert "ETA" in text and "rate limited; waiting 2:05 for GitHub's reset" in text


def test_plain_lines_when_not_a_terminal() -> None:
    out = io.StringIO()
    progress = Progress(out, tty=False)
    progress.page("comments", 100, 1, None, "10")
    progress.page("comments", 50, 2, None, "9")
    assert "\r" not in out.getvalue() and out.getvalue().count("\n") == 2
