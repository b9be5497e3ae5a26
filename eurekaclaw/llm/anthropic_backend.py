"""The `anthropic` backend on the official SDK.

Structured output is a forced tool call whose input schema is the output model's JSON schema;
the stable system prefix carries `cache_control` so repeated role instructions are cached. The
SDK's own retries are off (max_retries=0): the session client is the one retry layer
(eurekaclaw/http_retry.py). Failures are mapped to our error classes by exception type and HTTP
status, never by message text.
"""

from __future__ import annotations

import inspect
import sys
from types import ModuleType
from typing import Any

import anthropic

from eurekaclaw.config import Settings
from eurekaclaw.errors import (
    LLMAuthError,
    LLMError,
    LLMFatalError,
    LLMRetryableError,
    MissingConfigError,
)
from eurekaclaw.http_retry import parse_retry_after, retryable_status, status_reason
from eurekaclaw.llm.client import BaseLLMClient
from eurekaclaw.llm.openai_compat import hide_secret, output_tool_name
from eurekaclaw.llm.types import (
    LLMRequest,
    LLMResponse,
    Message,
    ModelTier,
    StopReason,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
    Usage,
)
from eurekaclaw.redact import register_secret

CONNECT_TIMEOUT_S = 10.0

_STOP: dict[str, StopReason] = {
    "end_turn": "end_turn",
    "max_tokens": "max_tokens",
    "model_context_window_exceeded": "max_tokens",
    "stop_sequence": "stop_sequence",
    "tool_use": "tool_use",
    "pause_turn": "end_turn",
    "refusal": "error",
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
        self.sends_temperature = (
            "temperature" in inspect.signature(self.client.messages.create).parameters
        )

    def model_for(self, tier: ModelTier) -> str:
        return (
            self.settings.eurekaclaw_fast_model
            if tier == "fast"
            else self.settings.eurekaclaw_model
        )

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
        tools = [
            {"name": t.name, "description": t.description, "input_schema": t.input_schema}
            for t in request.tools
        ]
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
            message = await self.client.messages.create(**params)
        except anthropic.AnthropicError as exc:
            raise self.map_error(exc) from None
        return self._response(message, request, params["model"])

    # --- response -------------------------------------------------------------------------------
    @staticmethod
    def _response(message: Any, request: LLMRequest, model: str) -> LLMResponse:
        forced = output_tool_name(request.output) if request.output is not None else None
        texts: list[str] = []
        calls: list[ToolUseBlock] = []
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
                    calls.append(ToolUseBlock(id=block.id, name=block.name, input=data))
        stop = _STOP.get(message.stop_reason or "end_turn", "end_turn")
        if stop == "tool_use" and not calls:
            stop = "end_turn"  # the only call was the structured answer: nothing to execute
        u = message.usage
        usage = Usage(
            input_tokens=u.input_tokens or 0,
            output_tokens=u.output_tokens or 0,
            cache_write_tokens=getattr(u, "cache_creation_input_tokens", None) or 0,
            cache_read_tokens=getattr(u, "cache_read_input_tokens", None) or 0,
        )
        return LLMResponse(
            text="".join(texts),
            tool_calls=calls,
            structured=structured,
            stop_reason=stop,
            usage=usage,
            model=message.model or model,
        )

    # --- errors ----------------------------------------------------------------------------------
    def map_error(self, exc: anthropic.AnthropicError) -> LLMError:
        """Classify by exception type and status code only; the API's text is shown, not read."""
        if isinstance(exc, anthropic.APIStatusError):
            status = exc.status_code
            text = hide_secret(
                f"Anthropic API returned HTTP {status}: {_api_message(exc)}", self._key
            )
            auth = anthropic.AuthenticationError | anthropic.PermissionDeniedError
            if isinstance(exc, auth) or status in (401, 403):
                return LLMAuthError(text + " (check ANTHROPIC_API_KEY)", status=status)
            if (
                isinstance(exc, anthropic.RateLimitError | anthropic.InternalServerError)
                or retryable_status(status)
            ):
                return LLMRetryableError(
                    text, status=status, retry_after=parse_retry_after(exc.response.headers),
                    reason=status_reason(status),
                )
            return LLMFatalError(text, status=status)
        if isinstance(exc, anthropic.APITimeoutError):
            return LLMRetryableError("the Anthropic API request timed out", reason="timeout")
        if isinstance(exc, anthropic.APIConnectionError):
            cause = (
                type(exc.__cause__).__name__ if exc.__cause__ is not None else "connection error"
            )
            return LLMRetryableError(f"cannot reach the Anthropic API ({cause})", reason="connection")
        if isinstance(exc, anthropic.APIResponseValidationError):
            # a 200 whose body is not the API's shape (a proxy's page, a torn body): try again
            return LLMRetryableError("the Anthropic API answered with an unreadable body", reason="bad_body")
        return LLMFatalError(f"Anthropic SDK error: {type(exc).__name__}")


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
    blocks: list[dict[str, Any]] = []
    for block in message.content:
        if isinstance(block, TextBlock):
            if block.text:  # the API rejects empty text blocks
                blocks.append({"type": "text", "text": block.text})
        elif isinstance(block, ToolUseBlock):
            blocks.append(
                {"type": "tool_use", "id": block.id, "name": block.name, "input": block.input}
            )
        elif isinstance(block, ToolResultBlock):
            result: dict[str, Any] = {
                "type": "tool_result",
                "tool_use_id": block.tool_use_id,
                "content": block.content,
            }
            if block.is_error:
                result["is_error"] = True
            blocks.append(result)
    return {"role": message.role, "content": blocks}
