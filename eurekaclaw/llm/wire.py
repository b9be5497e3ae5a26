"""What the network and in-process backends share: walking a message's content blocks, the
structured-output tool's name, keeping a key out of messages, classifying a failure by its HTTP
status, taking a JSON object out of a reply's text, and counting usage fail-closed when a server
reports none.

It imports nothing heavy (no SDK, no httpx), so any backend can use it.
"""

from __future__ import annotations

import json
import logging
import math
import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel

from eurekaclaw.errors import LLMAuthError, LLMError, LLMFatalError, LLMRetryableError
from eurekaclaw.http_retry import parse_retry_after, retryable_status, status_reason
from eurekaclaw.llm.ledger import TOKENS_PER_CHAR_ESTIMATE, prompt_tokens_estimate
from eurekaclaw.llm.session_client import extract_json
from eurekaclaw.llm.types import LLMRequest, LLMResponse, Message, StopReason, ToolUseBlock, Usage
from eurekaclaw.redact import register_secret, scrub

if TYPE_CHECKING:
    from eurekaclaw.llm.types import TextBlock, ToolResultBlock

log = logging.getLogger(__name__)

CONNECT_TIMEOUT_S = 10.0

_NAME_RE = re.compile(r"[^a-zA-Z0-9_-]")
T = TypeVar("T")

# Why a reply ended, as each provider says it (Anthropic's stop_reason, the finish_reason of
# OpenAI-style servers and llama.cpp), in our terms.
_STOP_REASONS: dict[str, StopReason] = {
    "end_turn": "end_turn",
    "stop": "end_turn",
    "pause_turn": "end_turn",
    "max_tokens": "max_tokens",
    "length": "max_tokens",
    "model_context_window_exceeded": "max_tokens",
    "stop_sequence": "stop_sequence",
    "tool_use": "tool_use",
    "tool_calls": "tool_use",
    "function_call": "tool_use",
    "refusal": "error",
    "content_filter": "error",
}


def stop_reason(raw: str | None) -> StopReason:
    return _STOP_REASONS.get(raw or "end_turn", "end_turn")


def response(
    *,
    text: str,
    calls: list[tuple[str, str, dict[str, Any]]],
    structured: dict[str, Any] | None,
    stop: str | None,
    usage: Usage,
    model: str,
) -> LLMResponse:
    """A reply in our terms; `calls` are the tool calls to execute as (id, name, input), the
    forced structured-output call already taken out."""
    reason = stop_reason(stop)
    if reason == "tool_use" and not calls:
        reason = "end_turn"  # the only call was the structured answer: nothing to execute
    return LLMResponse(
        text=text,
        tool_calls=[ToolUseBlock(id=i, name=n, input=a) for i, n, a in calls],
        structured=structured,
        stop_reason=reason,
        usage=usage,
        model=model,
    )


def map_blocks(
    message: Message,
    *,
    text: Callable[[TextBlock], T | None] | None = None,
    tool_use: Callable[[ToolUseBlock], T | None] | None = None,
    tool_result: Callable[[ToolResultBlock], T | None] | None = None,
) -> list[T]:
    """Each content block of `message`, in order, through the function for its kind; blocks
    of a kind without a function, and None results, are left out. Plain-string content is one
    text block. The one place that knows our block kinds, so a new kind is added once."""
    out: list[T] = []
    for block in message.blocks():
        if block.type == "text":
            value = text(block) if text else None
        elif block.type == "tool_use":
            value = tool_use(block) if tool_use else None
        else:
            value = tool_result(block) if tool_result else None
        if value is not None:
            out.append(value)
    return out


def api_name(name: str) -> str:
    """A name the APIs accept for a tool or schema: [a-zA-Z0-9_-], at most 64 characters."""
    return _NAME_RE.sub("_", name)[:64]


def output_tool_name(output: type[BaseModel]) -> str:
    """The forced tool that carries structured output: `submit_<Model>`, API-safe, ≤64 chars."""
    return api_name(f"submit_{output.__name__}")


def hide_secret(text: str, secret: str | None = None) -> str:
    """Servers sometimes echo the key they rejected; it must not reach a message or a log."""
    if secret:
        register_secret(secret)
    return scrub(text)


def status_error(status: int, text: str, headers: Mapping[str, str], *, key_hint: str) -> LLMError:
    """An HTTP failure as our error class, by status alone: 401/403 auth (the hint names the
    variable to check), 408/409/429/5xx retryable with the server's Retry-After, else fatal.
    `text` must already be scrubbed."""
    if status in (401, 403):
        return LLMAuthError(f"{text} (check {key_hint})", status=status)
    if retryable_status(status):
        return LLMRetryableError(
            text, status=status, retry_after=parse_retry_after(headers), reason=status_reason(status)
        )
    return LLMFatalError(text, status=status)


def json_object_in(text: str) -> dict[str, Any] | None:
    """The reply's JSON object: the whole text (raw control characters in strings tolerated,
    as small models write them), else the first object inside it (a ```json fence, prose)."""
    try:
        found = json.loads(text, strict=False)
    except (json.JSONDecodeError, TypeError):
        try:
            found = extract_json(text)
        except ValueError:
            return None
    return found if isinstance(found, dict) else None


_warned: set[str] = set()


def estimated_usage(request: LLMRequest, reply_text: str, tokens_seen: int = 0, *, who: str = "") -> Usage:
    """Usage for a reply whose server reported none. Counting it as zero would make the call
    free and the budget blind, so it is estimated high: the prompt as the ledger estimates it,
    the reply at the larger of the tokens seen streaming and a generous count of its text."""
    if who and who not in _warned:
        _warned.add(who)
        log.warning("%s reported no token usage; counting an upper-bound estimate instead", who)
    reply = max(tokens_seen, math.ceil(len(reply_text) * TOKENS_PER_CHAR_ESTIMATE))
    return Usage(input_tokens=prompt_tokens_estimate(request), output_tokens=reply)
