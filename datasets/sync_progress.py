"""What `atlas sync github` shows while it works: a redrawn bar on a terminal, plain lines otherwise.

The bar shows the listing, items so far, items per second, the remaining rate limit and an ETA
(from the `last` page of GitHub's `Link` header); while a rate limit is waited out it says so.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO


class Progress:
    """Progress of one sync; `tty=None` asks the stream whether it is a terminal."""

    def __init__(self, out: TextIO | None = None, *, tty: bool | None = None) -> None:
        self.out = out or sys.stderr
        self.tty = self.out.isatty() if tty is None else tty
        self.started = time.monotonic()
        self.items = 0
        self.listing = ""
        self.rate_left: str = "?"
        self._drawn = False

    def page(self, listing: str, items: int, page: int, last_page: int | None, rate_left: str | None) -> None:
        """A page of `listing` was stored: `items` new ones, page `page` of `last_page` when known."""
        if listing != self.listing:
            self._end_line()
            self.listing, self.started, self.items = listing, time.monotonic(), 0
        self.items += items
        if rate_left:
            self.rate_left = rate_left
        elapsed = max(time.monotonic() - self.started, 1e-6)
        rate = self.items / elapsed
        eta = ""
        if last_page and page < last_page:
            eta = f" · ETA {_clock(elapsed / page * (last_page - page))}"
        of = f"/{last_page}" if last_page else ""
        line = (
            f"{listing}: {self.items:,} items · page {page}{of} · {rate:,.0f}/s · rate limit {self.rate_left} left{eta}"
        )
        self._show(line)

    def waiting(self, seconds: float, why: str) -> None:
        """A rate limit is being waited out."""
        self._show(f"{self.listing or 'sync'}: {why}; waiting {_clock(seconds)} for GitHub's reset", force_line=True)

    def note(self, text: str) -> None:
        """A one-off line (a skipped file, a finished step)."""
        self._end_line()
        print(text, file=self.out, flush=True)

    def close(self) -> None:
        self._end_line()

    def _show(self, line: str, *, force_line: bool = False) -> None:
        if self.tty and not force_line:
            self.out.write("\r\x1b[2K" + line)
            self.out.flush()
            self._drawn = True
            return
        self._end_line()
        print(line, file=self.out, flush=True)

    def _end_line(self) -> None:
        if self._drawn:
            self.out.write("\n")
            self.out.flush()
            self._drawn = False


class Silent(Progress):
    """No output (webhook jobs and the periodic sync log instead)."""

    def __init__(self) -> None:
        super().__init__(out=sys.stderr, tty=False)

    def _show(self, line: str, *, force_line: bool = False) -> None:
        pass

    def note(self, text: str) -> None:
        pass


def _clock(seconds: float) -> str:
    seconds = int(seconds)
    return (
        f"{seconds // 3600}:{seconds % 3600 // 60:02d}:{seconds % 60:02d}"
        if seconds >= 3600
        else f"{seconds // 60}:{seconds % 60:02d}"
    )
