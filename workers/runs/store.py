"""The run store: run records and their progress events in Redis."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from typing import Any

import redis

from workers.console_data import index_filing, question_vectors, run_index
from workers.console_data.question_vectors import Embedder
from workers.errors import RunNotFound
from workers.runs import record_json
from workers.runs.record_json import EVENTS_MAXLEN as EVENTS_MAXLEN
from workers.runs.record_json import RUN_TTL_SECONDS as RUN_TTL_SECONDS
from workers.runs.record_json import events_key as events_key
from workers.runs.record_json import run_key as run_key
from workers.runs.state import RunState

log = logging.getLogger("atlas.runs")

DROPPED_OUTPUT = "(not kept once the run finished)"
PREVIEW_MARK = " It began: "
PREVIEW_CHARS = 240  # what the console shows of each result of a finished run (bot/console/runs_page.py)


def kept_when_finished(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A finished run's items as stored: tool outputs and reasoning are what a resume sends back to the model,
    and a finished run is never resumed, so its record keeps the calls (names, arguments: approval cards
    show what a run read) and the messages, each output only as a note with its first `PREVIEW_CHARS`
    characters (the console's preview), for the 30 days it is kept. Its question, answer, sources, steps,
    usage and cost are fields of their own. What only the Responses API reads is left out too (`_API_ONLY`: an
    item's id and status, a text part's empty annotations and logprobs): about 300 bytes of a 3-step run's
    2,800, at 10,000 runs a day kept 30 days (issue 40's `python -m bench redis_keys`)."""
    kept: list[dict[str, Any]] = []
    for item in items:
        kind = item.get("type")
        item = {k: v for k, v in item.items() if k not in _API_ONLY}
        if kind == "function_call_output":
            item["output"] = DROPPED_OUTPUT + _preview(item.get("output"))
        elif kind == "message" and isinstance(item.get("content"), list):
            item["content"] = [_kept_part(part) for part in item["content"]]
        kept.append(item)
    return kept


_API_ONLY = frozenset({"id", "status", "encrypted_content"})  # a resume sends them back; a finished run never resumes


def _kept_part(part: Any) -> Any:
    """A message's content part without the lists the API sends empty (a citation's annotation is kept)."""
    if not isinstance(part, dict):
        return part
    return {k: v for k, v in part.items() if not (k in ("annotations", "logprobs") and not v)}


def _preview(output: Any) -> str:
    if isinstance(output, str) and output.startswith(DROPPED_OUTPUT):
        return output.removeprefix(DROPPED_OUTPUT)  # saved again: the preview is already there
    shown = output if isinstance(output, str) else json.dumps(output, ensure_ascii=False)
    return PREVIEW_MARK + shown[:PREVIEW_CHARS] if shown else ""


def preview_of(output: Any) -> str:
    """What a run's page shows of a tool result: the result itself while the run works, its kept start after."""
    if isinstance(output, str) and output.startswith(DROPPED_OUTPUT):
        return output.removeprefix(DROPPED_OUTPUT).removeprefix(PREVIEW_MARK)
    shown = output if isinstance(output, str) else json.dumps(output, ensure_ascii=False)
    return shown[:PREVIEW_CHARS]


class RunStore:
    """Loads and saves whole run records; every step ends with `save`. A worker's store has an `embedder` (the
    docs encoder, loaded on first use; None when its package is absent): a finished gap run's question is kept
    as a vector for the console (workers/console_data/question_vectors.py). The web process's has none."""

    def __init__(self, conn: redis.Redis, embedder: Callable[[], Embedder | None] | None = None) -> None:
        self.conn = conn
        self.embedder = embedder

    def save(self, run: RunState) -> None:
        """Persist the run; a finished one without the tool outputs and reasoning it read (`kept_when_finished`). A
        paused or ended run is also filed in the console's indexes, with its results' previews
        (workers/console_data/run_index.py)."""
        run.updated_at = time.time()
        filed = run.final or run.status == "awaiting_approval"
        first = filed and run.unfiled
        if first:
            run.unfiled = False  # in the record before its first filing: a filing that then fails is redone in full
        record = run.model_copy(update={"items": kept_when_finished(run.items)}) if run.final else run
        filing = run_index.filing(run) if filed else None  # the console's read model, filed as the run pauses or ends
        if (
            filing is None or filing == run.filed()
        ):  # (filed moments ago by this object: a surface remembering its message)
            self.conn.set(run_key(run.id), record.model_dump_json(), ex=RUN_TTL_SECONDS)
            return
        pipe = self.conn.pipeline(transaction=False)
        pipe.set(run_key(run.id), record.model_dump_json(), ex=RUN_TTL_SECONDS)
        index_filing.pending(pipe, filing, first)  # filed later, with others (one command here instead of ~27)
        _, length = pipe.execute()
        index_filing.after(self.conn, int(length))
        run.mark_filed(filing)
        if run.final and self.embedder is not None:
            self._keep_vectors(run, int(length) == 1)  # once per filing; wanted runs by the window's first saver

    def _keep_vectors(self, run: RunState, take_wanted: bool) -> None:
        """The run's question as a vector when it is a gap, and those of a few runs voted down since (the web
        process that took the vote has no model). A failure costs only grouping by meaning: the run is saved."""
        try:
            model = self.embedder() if self.embedder is not None else None
            if model is None:
                return
            gap = bool(run_index.gap_of(run.status, run.answer, run.handoff))
            missing, wanted = question_vectors.due(self.conn, run.id, gap, take_wanted)
            questions: dict[str, tuple[str, float]] = {}
            if missing:
                questions[run.id] = (run.question, run.created_at)
            for raw in self.conn.mget([run_key(i) for i in wanted]) if wanted else []:
                if isinstance(raw, bytes):
                    record = json.loads(raw)
                    questions[record["id"]] = (str(record.get("question") or ""), float(record["created_at"]))
            question_vectors.keep(self.conn, questions, model, time.time())
        except Exception:
            log.warning("run %s: question vectors not kept; the gaps page groups these by words", run.id, exc_info=True)

    def load(self, run_id: str) -> RunState:
        raw = self.conn.get(run_key(run_id))
        if raw is None:
            raise RunNotFound(run_id)
        return RunState.model_validate_json(raw)

    def publish(self, run_id: str, event: dict[str, Any], *, expire: bool = True) -> None:
        """Append a progress event for anyone watching (the CLI tails this stream); `expire=False` when
        the stream's TTL was (re)set moments ago, by this job's first event."""
        key = events_key(run_id)
        if not expire:
            self.conn.xadd(key, {"event": json.dumps(event)}, maxlen=EVENTS_MAXLEN, approximate=True)
            return
        pipe = self.conn.pipeline(transaction=False)
        pipe.xadd(key, {"event": json.dumps(event)}, maxlen=EVENTS_MAXLEN, approximate=True)
        pipe.expire(key, RUN_TTL_SECONDS)
        pipe.execute()

    def events(self, run_id: str, after: str = "0", block_ms: int = 1000) -> list[tuple[str, dict[str, Any]]]:
        """Events after stream id `after`, waiting up to `block_ms` for the first one."""
        return record_json.events(self.conn, run_id, after, block_ms)
