"""What a run remembers of its messages on its chat platform: one typed value per platform.

A platform's reporter records here what it has posted (message ids, whether the progress message is
open, a digest of the answer), saved right after each post, so a re-delivered job edits what it
finds instead of posting again. Which model a run carries follows its platform (`Origin.kind`).

In the run record a surface stays the plain object it always was: no `kind` key (the origin says
which platform) and only the keys that were ever written, so records from before these types load,
and a record written now reads the same to an older process. A key this version does not know (a
newer one wrote it) is kept through a load and a save, never dropped.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Protocol, Self

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, SerializerFunctionWrapHandler, model_serializer

# What a platform never took within its outage budget (bot/slack/delivery.py); `atlas runs show` says so.
Undeliverable = Literal["answer", "cards", "triage_card"]
ProgressMode = Literal["stream", "placeholder"]  # Slack: a streamed message, or one updated by ts
PostedVia = Literal["webhook", "channel"]  # Discord: an interaction's follow-up, or a bot message


class Surface(BaseModel):
    """What every platform's surface has: whether the answer or the cards never reached the platform."""

    model_config = ConfigDict(extra="allow")  # kept, not dropped: see the module's docstring

    undelivered: Undeliverable | None = None
    outage_since: float | None = None  # unix time the platform first refused this delivery (workers/runs/redelivery.py)
    outage_tries: int = 0  # re-deliveries scheduled since then

    @model_serializer(mode="wrap")
    def _as_written(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """Only the keys that were loaded or assigned, as the plain dict of older versions held them."""
        data: dict[str, Any] = handler(self)
        written = self.model_fields_set | set(self.model_extra or {})
        return {key: value for key, value in data.items() if key in written}

    @classmethod
    def of(cls, run: HasSurface) -> Self:
        """The run's surface as this platform's reporter reads it. A run of another platform here is a
        bug in the caller (reporters check `run.origin.kind` first): TypeError."""
        surface = run.surface
        if not isinstance(surface, cls):
            raise TypeError(f"run {run.id} has a {type(surface).__name__}; {cls.__name__} was asked for")
        return surface


class HasSurface(Protocol):
    """A run as `Surface.of` reads it (workers/runs/state.py `RunState`, which imports this module)."""

    @property
    def id(self) -> str: ...

    @property
    def surface(self) -> Surface: ...


class CliSurface(Surface):
    """`atlas ask`: the terminal tails the run's event stream; nothing is posted anywhere."""

    kind: Literal["cli"] = Field(default="cli", exclude=True)


class SlackSurface(Surface):
    """A run's Slack thread: the progress message, the answer's messages, a stop press."""

    kind: Literal["slack"] = Field(default="slack", exclude=True)
    assistant_thread: bool = False  # asked in Slack's assistant view: the answer streams into the progress message
    progress_ts: str | None = None
    progress_mode: ProgressMode | None = None
    progress_open: bool = False
    stopped_by_user: bool = False  # the person pressed stop: nothing more is posted but one note
    stop_note_ts: str | None = None
    answer_ts: list[str] = Field(default_factory=list)  # the answer's messages, in order
    answer_posting: float = 0.0  # when a try set out to post the next one (bot/slack/answer.py): 0 when none did
    answer_digest: str | None = None  # of what was posted: a changed answer on a re-delivery is edited in
    answer_mode: Literal["stream"] | None = None  # "stream": the answer is in the progress message
    answer_streamed: int = 0  # characters of the answer appended to the stream so far


def _text(value: Any) -> Any:
    return "" if value is None else value


class DiscordInteraction(BaseModel):
    """A slash command's webhook: the application id and the interaction's token, and when it came
    (the token lives 15 minutes)."""

    app: str
    token: Annotated[str, BeforeValidator(_text)]
    at: float = 0.0


class DiscordSurface(Surface):
    """A run's Discord thread (or the slash command's interaction): progress, the answer's messages."""

    kind: Literal["discord"] = Field(default="discord", exclude=True)
    interaction: DiscordInteraction | None = None  # a `/atlas ask` run
    thread_id: str | None = None  # where the run speaks, once known (a mention's thread is started on first use)
    reply_to: str | None = None  # no thread could be started: replies reference the question's message
    progress_id: str | None = None
    progress_open: bool = False
    progress_done: bool = False  # the interaction's own message closed: later progress is a bot message
    answer_ids: list[tuple[str, PostedVia]] = Field(default_factory=list)  # (message id, how it was posted)
    answer_digest: str | None = None


RunSurface = Annotated[CliSurface | SlackSurface | DiscordSurface, Field(discriminator="kind")]
SURFACES: dict[str, type[CliSurface | SlackSurface | DiscordSurface]] = {
    "cli": CliSurface,
    "slack": SlackSurface,
    "discord": DiscordSurface,
}


def for_platform(platform: str, raw: Any) -> Any:
    """A stored surface (a plain dict with no `kind`) made the model of the run's platform; anything
    else (a model already, or a value pydantic should refuse) is passed on unchanged."""
    if raw is None:
        raw = {}
    if isinstance(raw, dict) and "kind" not in raw and platform in SURFACES:
        return SURFACES[platform].model_validate(raw)
    return raw
