"""The model port: one request in, one reply out; the OpenAI Responses adapter behind it."""

from __future__ import annotations

import json
import logging
import random
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol

from atlas.settings import Settings
from workers.errors import BudgetSpent, ModelMalformed, ModelRejected, ModelUnavailable
from workers.runs.state import Usage

if TYPE_CHECKING:  # imported where a client is made: an offline worker never loads the SDK (1.2 s of CPU, 23 MiB)
    import openai

log = logging.getLogger("atlas.model")


@dataclass(frozen=True)
class ModelRequest:
    instructions: str
    input: list[dict[str, Any]]
    tools: list[dict[str, Any]]
    tool_choice: Literal["auto", "none"] = "auto"
    max_output_tokens: int = 25_000
    text: dict[str, Any] | None = (
        None  # the Responses API's `text` (e.g. a strict json_schema format); None: plain text
    )
    # The run's remaining working seconds: no try of this call (nor the pauses between its retries) outlives
    # them, since a worker's thread cannot be stopped from outside. None: the client's own timeout and retries.
    seconds_left: float | None = None


@dataclass(frozen=True)
class ModelReply:
    """The reply's output items as plain dicts (ready to send back as input) and its usage."""

    output: list[dict[str, Any]]
    usage: Usage
    status: str = "completed"
    incomplete_reason: str | None = None
    text: str = ""
    calls: list[dict[str, Any]] = field(default_factory=list)

    @classmethod
    def of(
        cls, output: list[dict[str, Any]], usage: Usage, status: str = "completed", incomplete_reason: str | None = None
    ) -> ModelReply:
        calls = [item for item in output if item.get("type") == "function_call"]
        texts = [
            part.get("text", "")
            for item in output
            if item.get("type") == "message"
            for part in item.get("content", [])
            if part.get("type") == "output_text"
        ]
        return cls(output, usage, status, incomplete_reason, "".join(texts), calls)


class Model(Protocol):
    def respond(self, request: ModelRequest) -> ModelReply: ...


# What `responses.create` passes for a non-streaming call: the API key as a bearer token.
_REQUEST_OPTIONS: openai.RequestOptions = {"security": {"bearer_auth": True}}
# The SDK's own backoff between retries (openai/_constants.py), for the retries Atlas takes itself
# when a call has a deadline; a server's Retry-After is honoured up to MAX_RETRY_AFTER_SECONDS.
FIRST_RETRY_SECONDS, MAX_RETRY_SECONDS, MAX_RETRY_AFTER_SECONDS = 0.5, 8.0, 60.0


class ResponsesModel:
    """`POST /responses` through the client (not `parse`: a bad argument must reach the model as an error).

    Why `client.post` and not `client.responses.create`: `create` walks the whole body through the
    SDK's recursive type transform, 2 ms per call at step 1 and 18 ms at 32 items, to turn typed
    params into JSON. Atlas's body is plain JSON already (items are dicts), so it goes through the
    same lower-level path `create` ends in: the client's retries, timeout, auth headers and error
    types are the same. The reply comes back as parsed JSON (`cast_to=object`), not as the SDK's
    typed `Response`: building that object (it echoes the request's tools and instructions) cost
    more than the rest of the call, and Atlas needs only the output items, as plain dicts, and the
    usage; `_reply` checks the shape of exactly those.
    """

    def __init__(self, settings: Settings, model: str | None = None) -> None:
        import openai

        self.model = model or settings.model
        self.client = openai.OpenAI(
            api_key=settings.openai_api_key or "unused",
            base_url=settings.openai_base_url,
            timeout=settings.model_timeout_seconds,
            max_retries=settings.model_max_retries,
        )
        self.retries = settings.model_max_retries
        self.configured_timeout = settings.model_timeout_seconds  # a try's timeout when the run has time for it

    def warm(self) -> None:
        """Build the headers every request carries now: the SDK makes them on its first call, running `uname -p` in
        a subprocess (once per process), which a worker's first run would wait on (workers/process/warmup.py)."""
        self.client.platform_headers()  # cached by the SDK for every client of the process

    def body(self, request: ModelRequest) -> dict[str, Any]:
        """The request body `responses.create` would send for these arguments."""
        return {
            "model": self.model,
            "instructions": request.instructions,
            "input": request.input,
            "tools": request.tools,
            "tool_choice": request.tool_choice,
            "parallel_tool_calls": True,
            "max_output_tokens": request.max_output_tokens,
            "store": False,
            "include": ["reasoning.encrypted_content"],
            **({"text": request.text} if request.text is not None else {}),
        }

    def respond(self, request: ModelRequest) -> ModelReply:
        """One reply; a 200 that is not a Response is asked again up to `retries` times, like an outage.
        With `request.seconds_left`, BudgetSpent once those seconds are gone (the try in flight is cut off)."""
        deadline = None if request.seconds_left is None else time.monotonic() + request.seconds_left
        for attempt in range(self.retries + 1):
            try:
                return self._respond(request) if deadline is None else self._respond_by(request, deadline)
            except ModelMalformed as exc:
                if attempt == self.retries:
                    raise
                log.warning("model %s: %s; asking again (%d of %d)", self.model, exc, attempt + 1, self.retries)
        raise AssertionError("unreachable")

    def _respond_by(self, request: ModelRequest, deadline: float) -> ModelReply:
        """As the SDK's retries (same errors, same backoff), taken here so that each try's timeout is what
        is left of the run's working seconds when it starts, and no retry starts past them."""
        import openai

        for retry in range(self.retries + 1):
            left = deadline - time.monotonic()
            if left <= 0:
                raise BudgetSpent(f"model {self.model}: the run's working seconds ran out before the call")
            timeout = min(self.configured_timeout, left)
            try:
                return self._respond(request, timeout=timeout, max_retries=0)
            except ModelMalformed:
                raise  # asked again by `respond`, on its own count
            except ModelUnavailable as exc:
                if timeout < self.configured_timeout and isinstance(exc.__cause__, openai.APITimeoutError):
                    raise BudgetSpent(
                        f"model {self.model}: cut off after {timeout:.1f}s, the run's working seconds"
                    ) from exc
                pause = _retry_pause(retry, exc.__cause__)
                if retry == self.retries or time.monotonic() + pause >= deadline:
                    raise
                log.warning(
                    "model %s: %s; trying again in %.1fs (%d of %d)", self.model, exc, pause, retry + 1, self.retries
                )
                time.sleep(pause)
        raise AssertionError("unreachable")

    def _respond(
        self, request: ModelRequest, *, timeout: float | None = None, max_retries: int | None = None
    ) -> ModelReply:
        import openai

        options: openai.RequestOptions = {**_REQUEST_OPTIONS}
        if timeout is not None:
            options["timeout"] = timeout
        if max_retries is not None:
            options["max_retries"] = max_retries
        try:
            response = self.client.post("/responses", body=self.body(request), cast_to=object, options=options)
        except (openai.APIConnectionError, openai.RateLimitError, openai.InternalServerError) as exc:
            raise ModelUnavailable(f"model API unavailable: {type(exc).__name__}") from exc
        except openai.APIStatusError as exc:
            if exc.status_code >= 500 or exc.status_code in (408, 409, 429):
                raise ModelUnavailable(f"model API answered {exc.status_code}") from exc
            raise ModelRejected(f"model API refused the request ({exc.status_code})") from exc
        except (openai.APIResponseValidationError, ValueError) as exc:  # a 200 whose body is not JSON
            raise ModelMalformed(f"model API sent a reply that is not JSON ({type(exc).__name__})") from exc
        try:
            return _reply(response)
        except (AttributeError, TypeError, ValueError) as exc:
            raise ModelMalformed(f"model API sent a reply that is not a Response ({type(exc).__name__})") from exc


def _retry_pause(retry: int, error: BaseException | None) -> float:
    """The SDK's wait before retry number `retry` + 1: the server's Retry-After if it sent a short one,
    else exponential backoff from half a second, at most 8 s, less up to a quarter of jitter."""
    response = getattr(error, "response", None)
    header = response.headers.get("retry-after") if response is not None else None
    try:
        after = float(header) if header is not None else None
    except ValueError:
        after = None
    if after is not None and 0 < after <= MAX_RETRY_AFTER_SECONDS:
        return after
    return min(FIRST_RETRY_SECONDS * 2.0**retry, MAX_RETRY_SECONDS) * (1 - 0.25 * random.random())


def _reply(body: object) -> ModelReply:
    """The reply as the loop needs it. Parsed JSON, leniently (a new item type or field must not break
    Atlas), so the shape Atlas relies on is checked here: an object whose output is a list of items
    with a type, and usage numbers where there are any. A body the client left as text (a JSON reply
    under another content type, as the SDK also accepts) is parsed here."""
    if isinstance(body, str):
        body = json.loads(body)
    if not isinstance(body, dict) or not isinstance(body.get("output"), list):
        raise TypeError(f"got {type(body).__name__} without an output list")
    details = body.get("usage") or {}
    cached = (details.get("input_tokens_details") or {}).get("cached_tokens")
    usage = Usage(
        input_tokens=details.get("input_tokens") or 0,
        cached_tokens=cached or 0,
        output_tokens=details.get("output_tokens") or 0,
    )
    output = [_as_input_item(_without_nulls(item)) for item in body["output"]]
    if not all(isinstance(item.get("type"), str) for item in output):
        raise TypeError("an output item has no type")
    status = body.get("status") or "completed"
    incomplete = body.get("incomplete_details") or {}
    reason = incomplete.get("reason")
    if not isinstance(status, str) or not (reason is None or isinstance(reason, str)):
        raise TypeError("status or incomplete reason is not text")
    return ModelReply.of(output, usage, status, reason)


def _without_nulls(item: object) -> dict[str, Any]:
    """An output item without its null fields, at any depth (what the SDK's `exclude_none` dump gave):
    the input schema takes no nulls where the output schema has them."""
    if not isinstance(item, dict):
        raise TypeError(f"an output item is {type(item).__name__}, not an object")
    stripped: dict[str, Any] = _strip(item)
    return stripped


def _strip(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _strip(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_strip(v) for v in value]
    return value


def _as_input_item(item: dict[str, Any]) -> dict[str, Any]:
    """Output items go back as input items; drop output-only fields the input schema does not take."""
    if item.get("type") == "message":
        item["content"] = [
            {k: v for k, v in part.items() if k in ("type", "text", "annotations", "logprobs")}
            for part in item.get("content", [])
        ]
    if item.get("type") == "reasoning":
        item.pop("status", None)
        item.setdefault("summary", [])
    return item
