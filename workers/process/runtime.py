"""What a worker process builds once and reuses for every job: Redis, corpus, tools, model, Slack clients."""

from __future__ import annotations

import functools
import json
import logging
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Any, cast

import redis

from atlas import stop_signals
from atlas.connection import worker_connection
from atlas.settings import Settings
from bot.slack.client import SlackClients
from tools import Corpus, open_corpus, v2_registry
from tools.corpus import set_limit as set_corpus_limit
from tools.hand_off import with_hand_off
from tools.registry import Registry
from tools.repo_scope import scoped
from tools.tracker import Tracker
from tools.trackers import tracker_for
from workers.agent.compaction import SUMMARY_INSTRUCTIONS, extractive_summary
from workers.agent.cost import dollars
from workers.agent.instructions import instructions_for
from workers.agent.loop import Agent
from workers.agent.model import Model, ModelRequest
from workers.agent.ports import Limits, Reporter
from workers.agent.sources import sources_of
from workers.approvals import gate
from workers.chat import ChatPlatform
from workers.console_data.question_vectors import Embedder
from workers.errors import BudgetSpent
from workers.followup import links, subscriptions
from workers.knowledge import solved_claim, watches
from workers.knowledge.cited import cited
from workers.process import platforms, repo_parts
from workers.process.channel_models import ChannelModels, ChannelSummarizer, build_models
from workers.process.job_tools import JobTools
from workers.runs import lease
from workers.runs.state import AnsweredBy, Platform, RunState, Usage
from workers.runs.store import RunStore
from workers.triage.engine import Triage
from workers.triage.engine_cache import EngineCache

log = logging.getLogger("atlas.runtime")
TOOL_THREADS_PER_RUN = 4  # a step asks for a few read calls at once


@dataclass(frozen=True)
class JobKeeper:
    """The run's keeper for one job (workers/agent/ports.py `RunKeeper`): the runtime's, settling the
    answer's sources against the corpus the job opened (opening it again stat-ed every doc once more).
    `fence` runs before each save and pause: it raises LeaseLost once another job took the run's lease."""

    runtime: Runtime
    corpus: Corpus
    fence: Callable[[], None] = lease.unfenced

    def save(self, run: RunState) -> None:
        self.fence()
        self.runtime.save(run)

    def pause(self, run: RunState) -> None:
        self.fence()
        self.runtime.pause(run)

    def settle(self, run: RunState) -> None:
        self.runtime.settle(run, self.corpus)


@dataclass
class Runtime:
    settings: Settings
    conn: redis.Redis
    store: RunStore
    registry: Registry
    model: Model
    summary_model: Model | None
    tracker: Tracker
    slack: SlackClients | None = None  # with SLACK_BOT_TOKEN: every Slack run's thread is posted through these
    # set when the worker is asked to stop: a run in flight saves after its step and hands over (workers/jobs/runs.py)
    stopping: threading.Event = field(default_factory=threading.Event)
    help_registry: Registry | None = field(default=None, init=False, repr=False)  # help runs' tools (`agent`)
    tool_pool: ThreadPoolExecutor = field(
        init=False, repr=False
    )  # every run's read tools, sized for the worker's concurrency
    repo_trackers: dict[str, Tracker] = field(
        default_factory=dict, init=False, repr=False
    )  # the other repositories' trackers, built on first use (workers/process/repo_parts.py)
    triage_engines: EngineCache = field(
        default_factory=EngineCache, init=False, repr=False
    )  # every triage job's engine
    channel_models: ChannelModels = field(init=False, repr=False)  # a run's model and budgets by its channel

    def __post_init__(self) -> None:
        self.tool_pool = tool_pool(self.settings.worker_concurrency)
        self.channel_models = ChannelModels(self.settings)

    def agent(
        self,
        reporter: Reporter,
        *,
        unprompted: bool = False,
        fence: Callable[[], None] = lease.unfenced,
        run: RunState | None = None,
    ) -> Agent:
        """The agent for one job: this process's model and tools, the runtime as the run's keeper and summarizer.
        `unprompted` (a help channel's run): the tools include `hand_off`, its way to say it is not confident.
        `fence`: the job's lease check, before every save (`JobKeeper`). `run`: its channel's model and budgets
        (atlas.toml), its calls held to the daily caps; None: the install's."""
        mine = repo_parts.run_settings(self.settings, run)  # the run's repository's folder and prompt (issue 38)
        corpus = open_corpus(mine.data_dir, mine.home, mine.semantic_docs)
        registry = self._help_registry() if unprompted else self.registry
        tools = JobTools(registry, corpus, self.conn, self.tracker, functools.partial(repo_parts.scope_for, self))
        return Agent(
            model=self.model if run is None else self.channel_models.model_for(run, self.model),
            tools=tools,
            keeper=JobKeeper(self, corpus, fence),
            reporter=reporter,
            summarizer=self
            if run is None
            else ChannelSummarizer(self, self.channel_models.scoped(run, self.summary_model)),
            limits=Limits(budget=self.channel_models.plan(run).budget, tool_timeout=self.settings.tool_timeout_seconds),
            instructions=instructions_for(mine.project),
            stopping=self.stopping,
            pool=self.tool_pool,
        )

    def _help_registry(self) -> Registry:
        """The registry with `hand_off`, built on first use (its definitions are generated once)."""
        if self.help_registry is None:
            self.help_registry = with_hand_off(self.registry)
        return self.help_registry

    def repo_tracker(self, repo: str) -> Tracker:
        """The tracker of `repo`, one of several served (workers/process/repo_parts.py)."""
        return repo_parts.tracker_of(self, repo)

    def triage_engine(self) -> Triage:
        """The offline triage of this worker's data folder, opened once and kept while its tracker is unchanged."""
        return self.triage_engines.engine(self.settings.data_dir, self.settings.home, self.settings.semantic_docs)

    def save(self, run: RunState) -> None:
        """Persist the run (the agent's keeper)."""
        self.store.save(run)

    def pause(self, run: RunState) -> None:
        """Open the paused step's approvals and schedule their expiry (the agent's keeper)."""
        gate.pause(self, run)

    def settle(self, run: RunState, corpus: Corpus | None = None) -> None:
        """Cost and cited sources, computed once before a run's final state is saved; sources are looked up
        in `corpus` (the job's), else in the run's repository's corpus as it is now."""
        mine = self.channel_models.plan(run)  # the channel's model and its price (atlas.toml), else the install's
        run.cost_usd = dollars(run.usage, mine.price)
        here = repo_parts.run_settings(self.settings, run)  # the run's repository's folder and tracker (issue 38)
        run.answered_by = AnsweredBy(model=mine.model, data_dir=str(here.data_dir))
        if run.answer:
            corpus = corpus or open_corpus(here.data_dir, here.home, here.semantic_docs)
            pages = corpus.docs.pages
            run.sources = sources_of(run, pages)
            run.source_urls = {s: pages[s].url for s in run.sources if s in pages and pages[s].url}
            run.source_urls.update(repo_parts.issue_links(self.settings, run))  # each issue its repository's page
            named = repo_parts.named_doc_links(self.settings, run)  # every repository's: docs under their names
            run.sources = [s for s in run.sources if not any(n.endswith(f": {s}") for n in named)] + list(named)
            run.source_urls.update({s: url for s, url in named.items() if url})
            watches.record(self.conn, run, cited(run, corpus), self.settings.knowledge.watch_seconds)  # notes on change
            solved_claim.remember_answer(self.conn, run)  # a forum post tagged solved finds its answer
        tracker = subscriptions.tracker_name(here)  # filed or linked: the thread follows it, in its repository
        links.subscribe_run(self.conn, tracker, run, self.settings.org.canonical)

    def platform_for(self, platform: Platform, channel: str | None = None) -> ChatPlatform | None:
        """The chat platform a run of this kind reports on; approval cards describe issues from this worker's
        tracker (each repository's, when it serves several). `channel`: a help run's, whose hand-off atlas.toml
        may set apart from ATLAS_HANDOFF."""
        settings = self.settings
        if channel in settings.help.channel_handoff:
            settings = replace(settings, help=replace(settings.help, handoff=settings.help.handoff_of(channel)))
        tracker = repo_parts.RoutingTracker(self) if settings.org.many else self.tracker
        return platforms.for_run(settings, self.store, platform, cast(Tracker, tracker), self.slack)

    def companions(self, run: RunState) -> tuple[Reporter, ...]:
        """What the run's platform shows beside its thread (workers/process/platforms.py)."""
        return platforms.companions(self.settings, run, self.slack)

    def summarize(
        self, items: list[dict[str, Any]], *, seconds_left: float | None = None, model: Model | None = None
    ) -> tuple[str, Usage]:
        """A cheap model call that condenses dropped items, and its usage; the extractive summary
        (free) when no model is configured, the run has no working second left, or the call fails or outlives them.
        `model`: the summary model as a channel's run holds it to its caps (workers/process/channel_models.py)."""
        summary_model = model or self.summary_model
        if summary_model is None or (seconds_left is not None and seconds_left <= 0):
            return extractive_summary(items), Usage()
        try:
            reply = summary_model.respond(
                ModelRequest(
                    instructions=SUMMARY_INSTRUCTIONS,
                    input=[{"type": "message", "role": "user", "content": json.dumps(items)[:40_000]}],
                    tools=[],
                    tool_choice="none",
                    max_output_tokens=800,
                    seconds_left=seconds_left,
                )
            )
            if reply.text.strip():
                return reply.text, reply.usage
            return extractive_summary(items), reply.usage
        except BudgetSpent:
            log.info("summary model call cut off at the run's working seconds; using the extractive summary")
        except Exception:  # the summary is an optimisation: fall back, never fail the run over it
            log.warning("summary model call failed; using the extractive summary", exc_info=True)
        return extractive_summary(items), Usage()


def build(settings: Settings) -> Runtime:
    """Wire the parts for this process; the offline model stands in when no model is configured."""
    conn = worker_connection(settings)  # a Redis restart pauses the job; it never ends the worker
    model, summary = build_models(settings, conn)  # offline, or held to the daily caps
    # Load indexes now, not during the first job, and the docs' embedding model with the sections' vectors
    # (read back; new docs are embedded in the background, searches rank by words until then, so a
    # first `atlas ask` on a fresh machine does not wait ~15 s for Orbit's 159 sections).
    set_corpus_limit(settings.org.open_corpora)  # many repositories: the least recently used indexes close
    corpus = open_corpus(settings.data_dir, settings.home, settings.semantic_docs)
    corpus.docs.warm(wait=False)
    # Not the tokenizer (47 MiB): a run builds it only once a text is too long to fit by its bytes (atlas/tokens.py)
    slack = SlackClients.for_settings(settings) if settings.slack_bot_token else None
    registry = v2_registry(settings.project, knowledge=corpus.knowledge is not None)  # no code/history: not offered
    if settings.org.many:  # every tool takes `repo`; a run searches its channel's repository, or all (issue 38)
        registry = scoped(registry, settings.repos)
    registry.definitions()  # the strict schemas, made once now: ~0.3 s the first run would otherwise wait on
    return Runtime(
        settings,
        conn,
        RunStore(conn, question_embedder(settings)),
        registry,
        model,
        summary,
        tracker_for(settings, conn),
        slack,
    )


def question_embedder(settings: Settings) -> Callable[[], Embedder | None] | None:
    """What keeps a finished gap run's question as a vector for the console's gaps page: the docs encoder this
    worker searches with (loaded on first use; None when its package is absent), unless ATLAS_SEMANTIC is off."""
    if not settings.semantic_docs:
        return None
    from tools.docsearch.semantic import encoder

    return encoder


def tool_pool(concurrency: int) -> ThreadPoolExecutor:
    """The read tools' threads for a process working `concurrency` runs at once: a few calls per run's step
    without waiting on another run's (a thread only starts when a call needs it)."""
    return ThreadPoolExecutor(
        max_workers=max(8, TOOL_THREADS_PER_RUN * concurrency),
        thread_name_prefix="atlas-tool",
        initializer=stop_signals.hold,  # started from whichever thread calls: SIGTERM stays the main thread's
    )


_installed: Runtime | None = None


def install(runtime: Runtime) -> None:
    """`atlas worker` installs the runtime it built from its settings."""
    global _installed
    _installed = runtime


def current() -> Runtime:
    """The process's runtime; plain `rq worker` processes build it from the environment on first use."""
    global _installed
    if _installed is None:
        _installed = _from_env()
    return _installed


@functools.cache
def _from_env() -> Runtime:
    return build(Settings.from_env())
