"""The `openai_compat` backend: any server that speaks OpenAI chat completions (vLLM, Ollama,
llama.cpp server, OpenRouter, ...), on plain httpx.

Structured output has three modes (OPENAI_COMPAT_STRUCTURED) because servers differ in what they
support: `json_schema` (response_format), `tool` (a forced function call) and `prompt` (the schema
in the system prompt, JSON taken from the text). Failures are classified by HTTP status or httpx
exception type only; the server's message is shown to the user but never inspected.

Each `complete` is one HTTP request: the session client is the one retry layer
(eurekaclaw/http_retry.py). A non-JSON 200, a 200 carrying an error and a reply without choices
are raised as retryable, like 408/409/429/5xx, timeouts and connection failures.

This module also holds `output_tool_name`, which the anthropic backend shares; it imports nothing
heavy, so the anthropic backend can use it without pulling in this backend's dependencies.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import httpx
from pydantic import BaseModel

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
from eurekaclaw.llm.session_client import extract_json
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
from eurekaclaw.redact import register_secret, scrub

log = logging.getLogger(__name__)

CONNECT_TIMEOUT_S = 10.0

_NAME_RE = re.compile(r"[^a-zA-Z0-9_-]")
_FINISH: dict[str, StopReason] = {
    "stop": "end_turn",
    "length": "max_tokens",
    "tool_calls": "tool_use",
    "function_call": "tool_use",
    "content_filter": "error",
}


# --- helpers shared with the anthropic backend ------------------------------------------------


def output_tool_name(output: type[BaseModel]) -> str:
    """The forced tool that carries structured output: `submit_<Model>`, API-safe, ≤64 chars."""
    return _NAME_RE.sub("_", f"submit_{output.__name__}")[:64]


def hide_secret(text: str, secret: str | None = None) -> str:
    """Servers sometimes echo the key they rejected; it must not reach a message or a log."""
    if secret:
        register_secret(secret)
    return scrub(text)


# --- the backend -------------------------------------------------------------------------------------


class OpenAICompatBackend(BaseLLMClient):
    name = "openai_compat"

    def __init__(
        self,
        settings: Settings,
        *,
        http_client: httpx.AsyncClient | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep,
    ) -> None:
        if not settings.openai_compat_base_url or not settings.openai_compat_model:
            raise MissingConfigError(
                "the openai_compat backend needs OPENAI_COMPAT_BASE_URL and OPENAI_COMPAT_MODEL"
            )
        self.settings = settings
        self.url = settings.openai_compat_base_url.rstrip("/") + "/chat/completions"
        self.structured_mode = settings.openai_compat_structured
        key = settings.openai_compat_api_key
        self._key = key.get_secret_value() if key is not None else None
        register_secret(self._key)
        self._client = http_client
        self._transport = transport
        self._sleep = sleep

    def model_for(self, tier: ModelTier) -> str:
        main = self.settings.openai_compat_model or ""
        return (self.settings.openai_compat_fast_model or main) if tier == "fast" else main

    def _http(self) -> httpx.AsyncClient:
        # Created on first use, inside the event loop that will use it.
        if self._client is None:
            timeout = httpx.Timeout(self.settings.llm_timeout_s, connect=CONNECT_TIMEOUT_S)
            self._client = httpx.AsyncClient(timeout=timeout, transport=self._transport)
        return self._client

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()

    # --- request ---------------------------------------------------------------------------
    def request_body(self, request: LLMRequest) -> dict[str, Any]:
        system = request.system_text()
        if request.output is not None and self.structured_mode == "prompt":
            schema = json.dumps(request.output_schema(), indent=1)
            instructions = (
                f"Reply with only one JSON object (a {request.output.__name__}) that validates "
                f"against this JSON schema, and nothing else:\n```json\n{schema}\n```"
            )
            system = f"{system}\n\n{instructions}" if system else instructions
        messages: list[dict[str, Any]] = [{"role": "system", "content": system}] if system else []
        for message in request.messages:
            messages.extend(_convert_message(message))
        body: dict[str, Any] = {
            "model": request.model or self.model_for(request.tier),
            "messages": messages,
            "max_tokens": request.max_tokens,
        }
        tools = [_function_tool(t.name, t.description, t.input_schema) for t in request.tools]
        if request.output is not None and self.structured_mode == "tool":
            name = output_tool_name(request.output)
            tools.append(
                _function_tool(
                    name,
                    f"Submit the answer as a {request.output.__name__} object.",
                    request.output_schema() or {},
                )
            )
            body["tool_choice"] = {"type": "function", "function": {"name": name}}
        elif request.output is not None and self.structured_mode == "json_schema":
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {
                    "name": _NAME_RE.sub("_", request.output.__name__)[:64],
                    "schema": request.output_schema(),
                    "strict": False,
                },
            }
        if tools:
            body["tools"] = tools
        if request.temperature is not None:
            body["temperature"] = request.temperature
        return body

    # --- one attempt (the session client retries) ----------------------------------------------
    async def complete(self, request: LLMRequest) -> LLMResponse:
        body = self.request_body(request)
        data = await self._post(body)
        return self._parse(data, request, body["model"])

    async def _post(self, body: dict[str, Any]) -> dict[str, Any]:
        headers = {"Authorization": f"Bearer {self._key}"} if self._key else {}
        try:
            resp = await self._http().post(self.url, json=body, headers=headers)
        except httpx.TimeoutException as exc:
            raise LLMRetryableError(f"{self.url} timed out ({type(exc).__name__})", reason="timeout") from None
        except httpx.UnsupportedProtocol:
            raise LLMFatalError(
                f"OPENAI_COMPAT_BASE_URL {self.settings.openai_compat_base_url!r} is not an http(s) URL"
            ) from None
        except httpx.TransportError as exc:
            raise LLMRetryableError(f"cannot reach {self.url} ({type(exc).__name__})", reason="connection") from None
        if resp.status_code >= 400:
            raise self._status_error(resp.status_code, _error_text(resp), resp.headers)
        try:
            data = resp.json()
        except ValueError:
            raise LLMRetryableError(
                f"{self.url} answered {resp.status_code} with a body that is not JSON", reason="bad_body",
                retry_after=parse_retry_after(resp.headers),
            ) from None
        if not isinstance(data, dict):
            raise LLMRetryableError(f"{self.url} answered with JSON that is not an object", reason="bad_body")
        error = data.get("error")
        if error and not data.get("choices"):
            # Some gateways (OpenRouter) report upstream failures in a 200 body with a code.
            code = error.get("code") if isinstance(error, dict) else None
            status = code if isinstance(code, int) else 502
            err = self._status_error(status, _message_of(error), resp.headers)
            if isinstance(err, LLMRetryableError):
                err.reason, err.usage = "error_in_body", _billed(data.get("usage"))
            raise err
        return data

    def _status_error(self, status: int, detail: str, headers: Mapping[str, str]) -> LLMError:
        text = hide_secret(f"{self.url} returned HTTP {status}: {detail}", self._key)
        if status in (401, 403):
            return LLMAuthError(text + " (check OPENAI_COMPAT_API_KEY)", status=status)
        if retryable_status(status):
            return LLMRetryableError(text, status=status, retry_after=parse_retry_after(headers),
                                     reason=status_reason(status))
        return LLMFatalError(text, status=status)

    # --- response ------------------------------------------------------------------------------
    def _parse(self, data: dict[str, Any], request: LLMRequest, model: str) -> LLMResponse:
        """An OpenAI chat completion as our response: message text → tool calls (the forced
        output tool becomes the structured answer) → structured answer from the text when the
        server has no tool mode → stop reason."""
        choice = self._first_choice(data)
        message = choice.get("message") or {}
        text = _message_text(message)
        structured, calls, bad_arguments = self._tool_calls(message, request)
        if bad_arguments is not None:
            text = text or bad_arguments  # SessionLLM shows the bad arguments in its repair call
        if request.output is not None and structured is None and self.structured_mode != "tool":
            structured = self._structured_from_text(text)
        stop = _FINISH.get(choice.get("finish_reason") or "stop", "end_turn")
        if stop == "tool_use" and not calls:
            stop = "end_turn"  # the only call was the structured answer: nothing to execute
        return LLMResponse(
            text=text,
            tool_calls=calls,
            structured=structured,
            stop_reason=stop,
            usage=_usage(data.get("usage")),
            model=str(data.get("model") or model),
        )

    def _first_choice(self, data: dict[str, Any]) -> dict[str, Any]:
        choices = data.get("choices") or []
        if not choices or not isinstance(choices[0], dict):
            raise LLMRetryableError(f"{self.url} answered without choices", reason="no_choices",
                                    usage=_billed(data.get("usage")))
        return choices[0]

    def _tool_calls(
        self, message: dict[str, Any], request: LLMRequest,
    ) -> tuple[dict[str, Any] | None, list[ToolUseBlock], str | None]:
        """(the forced output tool's arguments, the other tool calls, the forced tool's raw
        arguments when they are not a JSON object)."""
        forced = output_tool_name(request.output) if request.output is not None else None
        structured: dict[str, Any] | None = None
        bad_arguments: str | None = None
        calls: list[ToolUseBlock] = []
        for i, call in enumerate(message.get("tool_calls") or []):
            fn = call.get("function") or {}
            raw = fn.get("arguments") or "{}"
            args = _json_object(raw) if isinstance(raw, str) else (raw if isinstance(raw, dict) else None)
            if forced and self.structured_mode == "tool" and fn.get("name") == forced:
                structured = args
                bad_arguments = str(raw) if args is None else None
                continue
            if args is None:
                log.warning("openai_compat: arguments of tool %s are not a JSON object", fn.get("name"))
                args = {}
            calls.append(ToolUseBlock(id=call.get("id") or f"call_{i}", name=fn.get("name", ""), input=args))
        return structured, calls, bad_arguments

    def _structured_from_text(self, text: str) -> dict[str, Any] | None:
        """The JSON object of a reply in json_schema/json mode (or embedded in prose)."""
        structured = _json_object(text) if self.structured_mode == "json_schema" else None
        if structured is not None:
            return structured
        try:
            found = extract_json(text)
        except ValueError:
            return None
        return found if isinstance(found, dict) else None


def _message_text(message: dict[str, Any]) -> str:
    text = message.get("content") or ""
    if isinstance(text, list):  # some servers return content parts
        text = "".join(p.get("text", "") for p in text if isinstance(p, dict))
    return str(text)


# --- conversion helpers ------------------------------------------------------------------------------


def _function_tool(name: str, description: str, schema: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {"name": name, "description": description, "parameters": schema},
    }


def _convert_message(message: Message) -> list[dict[str, Any]]:
    """One of our messages as OpenAI messages: tool results become role "tool" messages, which
    must directly follow the assistant message that asked for them, so they come first."""
    if isinstance(message.content, str):
        return [{"role": message.role, "content": message.content}]
    texts = [b.text for b in message.content if isinstance(b, TextBlock) and b.text]
    if message.role == "assistant":
        calls = [
            {
                "id": b.id,
                "type": "function",
                "function": {"name": b.name, "arguments": json.dumps(b.input, ensure_ascii=False)},
            }
            for b in message.content
            if isinstance(b, ToolUseBlock)
        ]
        out: dict[str, Any] = {"role": "assistant", "content": "\n".join(texts) or None}
        if calls:
            out["tool_calls"] = calls
        return [out]
    converted: list[dict[str, Any]] = [
        {
            "role": "tool",
            "tool_call_id": b.tool_use_id,
            "content": f"[tool error] {b.content}" if b.is_error else b.content,
        }
        for b in message.content
        if isinstance(b, ToolResultBlock)
    ]
    if texts:
        converted.append({"role": "user", "content": "\n".join(texts)})
    return converted


def _json_object(text: str) -> dict[str, Any] | None:
    try:
        value = json.loads(text)
    except (json.JSONDecodeError, TypeError):
        return None
    return value if isinstance(value, dict) else None


def _message_of(error: Any) -> str:
    if isinstance(error, dict):
        return str(error.get("message") or error.get("detail") or json.dumps(error)[:300])
    return str(error)[:300]


def _error_text(resp: httpx.Response) -> str:
    try:
        data = resp.json()
    except ValueError:
        return resp.text[:300] or resp.reason_phrase
    if isinstance(data, dict):
        for key in ("error", "message", "detail"):
            if data.get(key):
                return _message_of(data[key])[:300]
    return json.dumps(data)[:300]


def _billed(raw: Any) -> Usage | None:
    """Tokens a server reports for a failed answer, if it reports any."""
    usage = _usage(raw)
    return usage if (usage.input_tokens or usage.output_tokens or usage.cache_read_tokens) else None


def _usage(raw: Any) -> Usage:
    if not isinstance(raw, dict):
        return Usage()
    prompt = int(raw.get("prompt_tokens") or 0)
    details = raw.get("prompt_tokens_details") or {}
    cached = int(details.get("cached_tokens") or 0) if isinstance(details, dict) else 0
    # OpenAI counts cached tokens inside prompt_tokens; our Usage keeps them apart (as Anthropic does).
    return Usage(
        input_tokens=max(0, prompt - cached),
        output_tokens=int(raw.get("completion_tokens") or 0),
        cache_read_tokens=cached,
    )
