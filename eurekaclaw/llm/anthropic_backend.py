"""The `anthropic` backend on the official SDK.

Structured output is a forced tool call whose input schema is the output model's JSON schema;
the stable system prefix carries `cache_control` so repeated role instructions are cached. The
SDK's own retries are off (max_retries=0): the session client is the one retry layer
(eurekaclaw/http_retry.py). Failures are mapped to our error classes by exception type and HTTP
status, never by message text.

When LLM_STREAM says so (eurekaclaw/llm/streaming.py) the reply comes through the SDK's event
stream (`messages.stream`): text and tool-input deltas feed the token meter, and the SDK's
accumulated final message is read exactly like a whole reply. A stream that ends without
`message_stop` or breaks off at the transport is retryable (`stream_cut`); an `error` event inside
a stream is classified by its error type as the status that type stands for.
"""

from __future__ import annotations

import inspect
import json
import sys
from types import ModuleType
from typing import Any

import anthropic

from eurekaclaw.config import Settings
from eurekaclaw.errors import LLMError, LLMFatalError, LLMRetryableError, MissingConfigError
from eurekaclaw.llm.client import BaseLLMClient
from eurekaclaw.llm.streaming import TokenMeter, stream_cut, wants_stream
from eurekaclaw.llm.types import LLMRequest, LLMResponse, Message, ModelTier, Usage
from eurekaclaw.llm.wire import (
    CONNECT_TIMEOUT_S,
    estimated_usage,
    hide_secret,
    map_blocks,
    output_tool_name,
    response,
    status_error,
)
from eurekaclaw.redact import register_secret

# An `error` event inside a stream arrives after a 200; its type says which status it stands for.
_ERROR_TYPE_STATUS = {
    "invalid_request_error": 400,
    "authentication_error": 401,
    "permission_error": 403,
    "not_found_error": 404,
    "request_too_large": 413,
    "rate_limit_error": 429,
    "api_error": 500,
    "timeout_error": 504,
    "overloaded_error": 529,
}


def sdk_httpx() -> ModuleType:
    """The httpx package the installed SDK is built on (`httpx`, or `httpx2` for SDK 2.x).
    An injected `http_client` (and a test's MockTransport) must come from this package."""
    base = anthropic.DefaultAsyncHttpxClient.__mro__[1]
    return sys.modules[base.__module__.partition(".")[0]]


class AnthropicBackend(BaseLLMClient):
    name = "anthropic"

    def __init__(self, settings: Settings, *, http_client: Any = None) -> None:
        if settings.anthropic_api_key is None:
            raise MissingConfigError("the anthropic backend needs ANTHROPIC_API_KEY")
        self.settings = settings
        self._key = settings.anthropic_api_key.get_secret_value()
        register_secret(self._key)
        kwargs: dict[str, Any] = {
            "api_key": self._key,
            "max_retries": 0,  # one retry layer: the session client's
            "timeout": anthropic.Timeout(settings.llm_timeout_s, connect=CONNECT_TIMEOUT_S),
        }
        if settings.anthropic_base_url:
            kwargs["base_url"] = settings.anthropic_base_url
        if http_client is not None:
            kwargs["http_client"] = http_client
        self.client = anthropic.AsyncAnthropic(**kwargs)
        # SDK 2.x speaks an API version that rejects sampling parameters (even temperature=1.0)
        # and has dropped them from its signature; older SDKs still send them.
        self.sends_temperature = "temperature" in inspect.signature(self.client.messages.create).parameters

    def model_for(self, tier: ModelTier) -> str:
        return self.settings.eurekaclaw_fast_model if tier == "fast" else self.settings.eurekaclaw_model

    async def aclose(self) -> None:
        await self.client.close()

    # --- request ------------------------------------------------------------------------------
    def request_params(self, request: LLMRequest) -> dict[str, Any]:
        params: dict[str, Any] = {
            "model": request.model or self.model_for(request.tier),
            "max_tokens": request.max_tokens,
            "messages": [_convert_message(m) for m in request.messages],
        }
        system: list[dict[str, Any]] = []
        if request.system_stable:
            system.append(
                {
                    "type": "text",
                    "text": request.system_stable,
                    "cache_control": {"type": "ephemeral"},
                }
            )
        if request.system_dynamic:
            system.append({"type": "text", "text": request.system_dynamic})
        if system:
            params["system"] = system
        tools = [{"name": t.name, "description": t.description, "input_schema": t.input_schema} for t in request.tools]
        if request.output is not None:
            name = output_tool_name(request.output)
            tools.append(
                {
                    "name": name,
                    "description": f"Submit the answer as a {request.output.__name__} object.",
                    "input_schema": request.output_schema() or {},
                }
            )
            params["tool_choice"] = {"type": "tool", "name": name}
        if tools:
            params["tools"] = tools
        if request.temperature is not None and self.sends_temperature:
            params["temperature"] = request.temperature
        return params

    async def complete(self, request: LLMRequest) -> LLMResponse:
        params = self.request_params(request)
        try:
            if wants_stream(self.settings.llm_stream):
                message = await self._streamed(params, request)
            else:
                message = await self.client.messages.create(**params)
        except anthropic.AnthropicError as exc:
            raise self.map_error(exc) from None
        return self._response(message, request, params["model"])

    async def _streamed(self, params: dict[str, Any], request: LLMRequest) -> Any:
        """The final message of one streamed request, assembled by the SDK."""
        meter, seen = TokenMeter(), _StreamState()
        try:
            async with self.client.messages.stream(**params) as stream:
                async for event in stream:
                    seen.take(event, meter)
                if seen.stopped:
                    return await stream.get_final_message()
        except sdk_httpx().TransportError as exc:  # mid-stream the SDK lets httpx's errors through
            billed = seen.billed(request, meter)
            if isinstance(exc, sdk_httpx().TimeoutException):
                raise LLMRetryableError(
                    "the Anthropic API timed out while streaming", reason="timeout", usage=billed
                ) from None
            raise stream_cut("the Anthropic API", type(exc).__name__, billed) from None
        except json.JSONDecodeError:  # a torn event: the SDK cannot read it, the reply is broken
            raise stream_cut("the Anthropic API", "an event that is not JSON", seen.billed(request, meter)) from None
        except anthropic.APIStatusError as exc:
            if seen.start_usage is None:
                raise  # refused before the stream began: nothing was billed
            err = self.map_error(exc)  # an `event: error` mid-stream; the tokens so far may be billed
            if isinstance(err, LLMRetryableError | LLMFatalError):
                err.usage = err.usage or seen.billed(request, meter)
            raise err from None
        finally:
            meter.finish()
        raise stream_cut("the Anthropic API", "no message_stop", seen.billed(request, meter))

    # --- response -------------------------------------------------------------------------------
    @staticmethod
    def _response(message: Any, request: LLMRequest, model: str) -> LLMResponse:
        forced = output_tool_name(request.output) if request.output is not None else None
        texts: list[str] = []
        calls: list[tuple[str, str, dict[str, Any]]] = []
        structured: dict[str, Any] | None = None
        for block in message.content:
            kind = getattr(block, "type", None)
            if kind == "text":
                texts.append(block.text)
            elif kind == "tool_use":
                data = dict(block.input) if isinstance(block.input, dict) else {}
                if forced and block.name == forced and structured is None:
                    structured = data
                else:
                    calls.append((block.id, block.name, data))
        return response(
            text="".join(texts),
            calls=calls,
            structured=structured,
            stop=message.stop_reason,
            usage=_usage(message.usage),
            model=message.model or model,
        )

    # --- errors ----------------------------------------------------------------------------------
    def map_error(self, exc: anthropic.AnthropicError) -> LLMError:
        """Classify by exception type and status code only; the API's text is shown, not read."""
        if isinstance(exc, anthropic.APIStatusError):
            status = exc.status_code
            if status < 400:  # an error event inside a stream that began with 200
                status = _ERROR_TYPE_STATUS.get(_error_type(exc), 500)
            text = hide_secret(f"Anthropic API returned HTTP {status}: {_api_message(exc)}", self._key)
            return status_error(status, text, exc.response.headers, key_hint="ANTHROPIC_API_KEY")
        if isinstance(exc, anthropic.APITimeoutError):
            return LLMRetryableError("the Anthropic API request timed out", reason="timeout")
        if isinstance(exc, anthropic.APIConnectionError):
            cause = type(exc.__cause__).__name__ if exc.__cause__ is not None else "connection error"
            return LLMRetryableError(f"cannot reach the Anthropic API ({cause})", reason="connection")
        if isinstance(exc, anthropic.APIResponseValidationError):
            # a 200 whose body is not the API's shape (a proxy's page, a torn body): try again
            return LLMRetryableError("the Anthropic API answered with an unreadable body", reason="bad_body")
        return LLMFatalError(f"Anthropic SDK error: {type(exc).__name__}")


class _StreamState:
    """What a stream has shown so far: whether it ended, and the usage its start announced."""

    def __init__(self) -> None:
        self.stopped = False
        self.start_usage: Any = None

    def take(self, event: Any, meter: TokenMeter) -> None:
        kind = getattr(event, "type", None)
        if kind == "message_start":
            self.start_usage = event.message.usage
        elif kind == "content_block_delta":
            delta = event.delta
            piece = getattr(delta, "text", None) or getattr(delta, "partial_json", None)
            if isinstance(piece, str) and piece:
                meter.add(piece)
        elif kind == "message_stop":
            self.stopped = True

    def billed(self, request: LLMRequest, meter: TokenMeter) -> Usage:
        """What a broken stream may have cost: the prompt as message_start counted it (else the
        ledger's high estimate) and the reply tokens seen so far."""
        if self.start_usage is None:
            return estimated_usage(request, "", meter.tokens)
        usage = _usage(self.start_usage)
        usage.output_tokens = max(meter.tokens, usage.output_tokens)
        return usage


def _usage(u: Any) -> Usage:
    return Usage(
        input_tokens=u.input_tokens or 0,
        output_tokens=u.output_tokens or 0,
        cache_write_tokens=getattr(u, "cache_creation_input_tokens", None) or 0,
        cache_read_tokens=getattr(u, "cache_read_input_tokens", None) or 0,
    )


def _error_type(exc: anthropic.APIStatusError) -> str:
    body = exc.body
    error = body.get("error") if isinstance(body, dict) else None
    return str(error.get("type") or "") if isinstance(error, dict) else ""


def _api_message(exc: anthropic.APIStatusError) -> str:
    body = exc.body
    if isinstance(body, dict):
        error = body.get("error")
        if isinstance(error, dict) and error.get("message"):
            return str(error["message"])[:300]
    return exc.response.reason_phrase or type(exc).__name__


def _convert_message(message: Message) -> dict[str, Any]:
    if isinstance(message.content, str):
        return {"role": message.role, "content": message.content}
    blocks: list[dict[str, Any]] = map_blocks(
        message,
        # the API rejects empty text blocks
        text=lambda b: {"type": "text", "text": b.text} if b.text else None,
        tool_use=lambda b: {"type": "tool_use", "id": b.id, "name": b.name, "input": b.input},
        tool_result=lambda b: {
            "type": "tool_result",
            "tool_use_id": b.tool_use_id,
            "content": b.content,
            **({"is_error": True} if b.is_error else {}),
        },
    )
    return {"role": message.role, "content": blocks}
